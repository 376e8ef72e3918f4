//! Stripe Billing: Checkout in subscription mode, the customer portal, and webhook events
//! signed with the endpoint's secret (`Stripe-Signature: t=…,v1=…`, HMAC-SHA256 of
//! `t.body`). Requests name the API version they were written for, and the webhook endpoint
//! is made with the same one (docs/payments.md), so every object has the fields read here.

use axum::http::HeaderMap;
use futures_util::future::BoxFuture;
use ring::hmac;
use serde::Deserialize;
use serde_json::Value;

use super::{
    Change, Locale, Notice, NoticeError, Order, Page, Provider, ProviderError, SubscriptionState,
    Withdrawal,
};

/// The API version requests are written for and the webhook endpoint must send.
pub const API_VERSION: &str = "2024-06-20";

/// How far a signature's time may be from ours: Stripe's own libraries' default.
pub const TOLERANCE_S: i64 = 300;

/// Stripe as configured.
pub struct Stripe {
    http: reqwest::Client,
    api: String,
    secret_key: String,
    webhook: hmac::Key,
    price: String,
}

impl Stripe {
    /// `api` is https://api.stripe.com, or the tests' stand-in; `price` the plan's price id.
    pub fn new(api: &str, secret_key: &str, webhook_secret: &str, price: &str) -> Stripe {
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .unwrap_or_default();
        Stripe {
            http,
            api: api.trim_end_matches('/').to_owned(),
            secret_key: secret_key.to_owned(),
            // The whole secret, `whsec_` and all, is the key: that is how Stripe signs.
            webhook: hmac::Key::new(hmac::HMAC_SHA256, webhook_secret.as_bytes()),
            price: price.to_owned(),
        }
    }

    async fn post(
        &self,
        path: &str,
        form: &[(String, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, ProviderError> {
        let mut request = self
            .http
            .post(format!("{}{path}", self.api))
            .bearer_auth(&self.secret_key)
            .header("Stripe-Version", API_VERSION)
            .form(form);
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        let answer = request
            .send()
            .await
            .map_err(|e| ProviderError(format!("Stripe did not answer {path}: {e}")))?;
        let status = answer.status();
        let body: Value = answer
            .json()
            .await
            .map_err(|e| ProviderError(format!("Stripe's answer to {path} is not JSON: {e}")))?;
        if !status.is_success() {
            let error = &body["error"];
            return Err(ProviderError(format!(
                "Stripe refused {path} ({status}, {} {}): {}",
                error["type"].as_str().unwrap_or("?"),
                error["code"].as_str().unwrap_or(""),
                error["message"].as_str().unwrap_or("no message")
            )));
        }
        Ok(body)
    }

    fn page(path: &str, body: &Value) -> Result<Page, ProviderError> {
        match (body["id"].as_str(), body["url"].as_str()) {
            (Some(id), Some(url)) => Ok(Page {
                id: id.to_owned(),
                url: url.to_owned(),
                expires_at: body["expires_at"].as_i64().unwrap_or(0),
            }),
            _ => Err(ProviderError(format!(
                "Stripe's answer to {path} has no id or url"
            ))),
        }
    }
}

fn locale(l: Locale) -> &'static str {
    match l {
        Locale::Pt => "pt-BR",
        Locale::En => "en",
    }
}

fn pair(k: &str, v: impl Into<String>) -> (String, String) {
    (k.to_owned(), v.into())
}

impl Provider for Stripe {
    fn name(&self) -> &'static str {
        "stripe"
    }

    fn checkout<'a>(&'a self, order: Order<'a>) -> BoxFuture<'a, Result<Page, ProviderError>> {
        Box::pin(async move {
            let mut form = vec![
                pair("mode", "subscription"),
                pair("line_items[0][price]", &*self.price),
                pair("line_items[0][quantity]", "1"),
                // Stripe writes the session's id where its template word is.
                pair(
                    "success_url",
                    order
                        .success_url
                        .replace("{SESSION}", "{CHECKOUT_SESSION_ID}"),
                ),
                pair("cancel_url", order.cancel_url),
                pair("client_reference_id", order.account),
                pair("metadata[account_id]", order.account),
                pair("subscription_data[metadata][account_id]", order.account),
                pair("locale", locale(order.locale)),
                pair("expires_at", order.expires_at.to_string()),
            ];
            match (order.customer, order.email) {
                (Some(customer), _) => form.push(pair("customer", customer)),
                (None, Some(email)) => form.push(pair("customer_email", email)),
                (None, None) => {}
            }
            let path = "/v1/checkout/sessions";
            let body = self.post(path, &form, Some(&order.idempotency_key)).await?;
            Stripe::page(path, &body)
        })
    }

    fn portal<'a>(
        &'a self,
        customer: &'a str,
        return_url: &'a str,
        l: Locale,
    ) -> BoxFuture<'a, Result<Page, ProviderError>> {
        Box::pin(async move {
            let form = [
                pair("customer", customer),
                pair("return_url", return_url),
                pair("locale", locale(l)),
            ];
            let path = "/v1/billing_portal/sessions";
            let body = self.post(path, &form, None).await?;
            Stripe::page(path, &body)
        })
    }

    fn notice(&self, headers: &HeaderMap, body: &[u8], now: i64) -> Result<Notice, NoticeError> {
        let header = headers
            .get("stripe-signature")
            .and_then(|v| v.to_str().ok())
            .ok_or(NoticeError::Signature("no Stripe-Signature header"))?;
        verify(&self.webhook, header, body, now)?;
        read_event(body)
    }
}

/// Checks `Stripe-Signature` over `body` at `now`: one of its `v1` signatures (there are two
/// while the endpoint's secret is being rolled) must be the HMAC of `t.body`, compared in
/// constant time, and `t` within the tolerance of now either way.
pub fn verify(key: &hmac::Key, header: &str, body: &[u8], now: i64) -> Result<(), NoticeError> {
    let mut time = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => time = t.parse::<i64>().ok(),
            Some(("v1", s)) => signatures.push(s),
            _ => {}
        }
    }
    let time = time.ok_or(NoticeError::Signature("the signature has no time"))?;
    if signatures.is_empty() {
        return Err(NoticeError::Signature("the signature has no v1 scheme"));
    }
    if (now - time).abs() > TOLERANCE_S {
        return Err(NoticeError::Signature(
            "the signature's time is too far from now",
        ));
    }
    let mut signed = Vec::with_capacity(body.len() + 12);
    signed.extend_from_slice(time.to_string().as_bytes());
    signed.push(b'.');
    signed.extend_from_slice(body);
    let matches = signatures
        .iter()
        .any(|s| hex_bytes(s).is_some_and(|tag| hmac::verify(key, &signed, &tag).is_ok()));
    if matches {
        Ok(())
    } else {
        Err(NoticeError::Signature("no signature matches the body"))
    }
}

fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

#[derive(Deserialize)]
struct Event {
    id: String,
    #[serde(rename = "type")]
    kind: String,
    created: i64,
    data: EventData,
}

#[derive(Deserialize)]
struct EventData {
    object: Value,
}

fn text(v: &Value) -> Option<String> {
    v.as_str().filter(|s| !s.is_empty()).map(str::to_owned)
}

/// An id that may come as the string or as the expanded object.
fn id_of(v: &Value) -> Option<String> {
    text(v).or_else(|| text(&v["id"]))
}

fn malformed(kind: &str, what: &str) -> NoticeError {
    NoticeError::Malformed(format!("a {kind} event without {what}"))
}

/// Reads a signed event into what it changes. Fields are read where API version
/// [`API_VERSION`] puts them, and where later versions moved them (an invoice's subscription
/// under `parent`), so an endpoint upgraded ahead of the server still reads right.
pub fn read_event(body: &[u8]) -> Result<Notice, NoticeError> {
    let event: Event = serde_json::from_slice(body)
        .map_err(|e| NoticeError::Malformed(format!("not a Stripe event: {e}")))?;
    let o = &event.data.object;
    let kind = event.kind.as_str();
    let change = match kind {
        "checkout.session.completed" | "checkout.session.async_payment_succeeded"
            if o["mode"] == "subscription" =>
        {
            match text(&o["client_reference_id"]) {
                Some(account) => Change::CheckoutCompleted {
                    account,
                    session: id_of(o).ok_or_else(|| malformed(kind, "an id"))?,
                    customer: id_of(&o["customer"]),
                    subscription: id_of(&o["subscription"]),
                },
                // Made by someone else with this account (a payment link): not ours to apply.
                None => Change::Other,
            }
        }
        "checkout.session.expired" => match text(&o["client_reference_id"]) {
            Some(account) => Change::CheckoutExpired {
                account,
                session: id_of(o).ok_or_else(|| malformed(kind, "an id"))?,
            },
            None => Change::Other,
        },
        "customer.subscription.created"
        | "customer.subscription.updated"
        | "customer.subscription.deleted"
        | "customer.subscription.paused"
        | "customer.subscription.resumed" => Change::Subscription(SubscriptionState {
            id: id_of(o).ok_or_else(|| malformed(kind, "an id"))?,
            customer: id_of(&o["customer"]),
            account: text(&o["metadata"]["account_id"]),
            status: text(&o["status"]).ok_or_else(|| malformed(kind, "a status"))?,
            cancel_at_period_end: o["cancel_at_period_end"].as_bool().unwrap_or(false),
            ended_at: o["ended_at"].as_i64(),
        }),
        "invoice.paid" | "invoice.payment_failed" => {
            let parent = &o["parent"]["subscription_details"];
            let subscription = id_of(&o["subscription"]).or_else(|| id_of(&parent["subscription"]));
            let Some(subscription) = subscription else {
                // A one-off invoice: nothing of the subscription's.
                return Ok(notice(event, Change::Other));
            };
            let period_end = o["lines"]["data"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|line| line["period"]["end"].as_i64())
                .max()
                .or_else(|| o["period_end"].as_i64())
                .ok_or_else(|| malformed(kind, "a period"))?;
            let account = text(&o["subscription_details"]["metadata"]["account_id"])
                .or_else(|| text(&parent["metadata"]["account_id"]));
            Change::Invoice {
                id: id_of(o).ok_or_else(|| malformed(kind, "an id"))?,
                subscription,
                customer: id_of(&o["customer"]),
                account,
                period_end,
                payment: id_of(&o["payment_intent"]).or_else(|| id_of(&o["charge"])),
                paid: kind == "invoice.paid",
            }
        }
        // Only a full refund ends access; a partial one is a discount given back.
        "charge.refunded" if o["refunded"] == true => Change::Withdrawn {
            payment: id_of(&o["payment_intent"])
                .or_else(|| id_of(o))
                .ok_or_else(|| malformed(kind, "a payment"))?,
            reason: Withdrawal::Refund,
            withdrawn: true,
        },
        "charge.dispute.created" | "charge.dispute.closed" => {
            let payment = id_of(&o["payment_intent"])
                .or_else(|| id_of(&o["charge"]))
                .ok_or_else(|| malformed(kind, "a payment"))?;
            Change::Withdrawn {
                payment,
                reason: Withdrawal::Dispute,
                // Closed as won gives the money back; lost or still open keeps it taken.
                withdrawn: !(kind == "charge.dispute.closed" && o["status"] == "won"),
            }
        }
        _ => Change::Other,
    };
    Ok(notice(event, change))
}

fn notice(event: Event, change: Change) -> Notice {
    Notice {
        id: event.id,
        kind: event.kind,
        created: event.created,
        change,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sign(secret: &str, t: i64, body: &str) -> String {
        let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
        let tag = hmac::sign(&key, format!("{t}.{body}").as_bytes());
        tag.as_ref().iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn on_a03_a_notice_is_taken_only_with_a_fresh_signature_of_its_very_body() {
        let secret = "whsec_test";
        let key = hmac::Key::new(hmac::HMAC_SHA256, secret.as_bytes());
        let body = r#"{"id":"evt_1"}"#;
        let now = 1_800_000_000;
        let good = sign(secret, now, body);
        assert_eq!(
            verify(&key, &format!("t={now},v1={good}"), body.as_bytes(), now),
            Ok(())
        );
        // A rolled secret: the old signature first, then the new one.
        let old = sign("whsec_old", now, body);
        assert_eq!(
            verify(
                &key,
                &format!("t={now},v1={old},v1={good}"),
                body.as_bytes(),
                now + 299
            ),
            Ok(())
        );
        let refused = |header: String, body: &str, at: i64| {
            verify(&key, &header, body.as_bytes(), at).is_err()
        };
        assert!(
            refused(format!("t={now},v1={good}"), r#"{"id":"evt_2"}"#, now),
            "another body"
        );
        assert!(
            refused(format!("t={},v1={good}", now + 1), body, now),
            "another time"
        );
        assert!(
            refused(format!("t={now},v1={good}"), body, now + 301),
            "too old"
        );
        assert!(
            refused(format!("t={now},v1={good}"), body, now - 301),
            "from the future"
        );
        assert!(
            refused(format!("t={now},v0={good}"), body, now),
            "only v1 counts"
        );
        assert!(refused(format!("v1={good}"), body, now), "no time");
        assert!(
            refused(format!("t={now},v1={}", &good[..62]), body, now),
            "cut short"
        );
        assert!(
            refused(format!("t={now},v1=zz{}", &good[2..]), body, now),
            "not hex"
        );
        assert!(
            refused(format!("t={now},v1={old}"), body, now),
            "another secret"
        );
    }

    #[test]
    fn on_a03_events_are_read_from_their_objects() {
        let read = |kind: &str, object: Value| {
            let body = serde_json::json!({"id": "evt_9", "type": kind, "created": 7, "data": {"object": object}});
            read_event(body.to_string().as_bytes()).unwrap().change
        };
        assert_eq!(
            read(
                "invoice.paid",
                serde_json::json!({
                    "id": "in_1", "customer": "cus_1", "subscription": "sub_1", "payment_intent": "pi_1",
                    "subscription_details": {"metadata": {"account_id": "acc"}},
                    "lines": {"data": [{"period": {"start": 1, "end": 100}}, {"period": {"end": 90}}]}
                })
            ),
            Change::Invoice {
                id: "in_1".into(),
                subscription: "sub_1".into(),
                customer: Some("cus_1".into()),
                account: Some("acc".into()),
                period_end: 100,
                payment: Some("pi_1".into()),
                paid: true,
            }
        );
        // A later API version's invoice: the subscription under `parent`.
        let Change::Invoice {
            subscription,
            account,
            paid,
            ..
        } = read(
            "invoice.payment_failed",
            serde_json::json!({"id": "in_2", "parent": {"subscription_details": {
                "subscription": "sub_2", "metadata": {"account_id": "acc"}}},
                "lines": {"data": [{"period": {"end": 5}}]}}),
        )
        else {
            panic!("an invoice")
        };
        assert_eq!(
            (subscription.as_str(), account.as_deref(), paid),
            ("sub_2", Some("acc"), false)
        );
        assert_eq!(
            read(
                "charge.refunded",
                serde_json::json!({"id": "ch_1", "payment_intent": "pi_1", "refunded": false})
            ),
            Change::Other,
            "partial"
        );
        assert_eq!(
            read(
                "charge.dispute.closed",
                serde_json::json!({"id": "dp_1", "charge": "ch_1", "payment_intent": "pi_1", "status": "won"})
            ),
            Change::Withdrawn {
                payment: "pi_1".into(),
                reason: Withdrawal::Dispute,
                withdrawn: false
            }
        );
        assert!(matches!(
            read_event(br#"{"id":"evt","type":"customer.subscription.updated","created":1,"data":{"object":{"id":"sub"}}}"#),
            Err(NoticeError::Malformed(_))
        ));
        assert!(read_event(b"not json").is_err());
    }
}
