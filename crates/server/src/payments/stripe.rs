//! Stripe Billing: Checkout in subscription mode, the customer portal, and webhook events
//! signed with the endpoint's secret (`Stripe-Signature: t=…,v1=…`, HMAC-SHA256 of
//! `t.body`). Requests name the API version they were written for, and the webhook endpoint
//! is made with the same one (docs/payments.md), so every object has the fields read here.

use axum::http::HeaderMap;
use futures_util::future::BoxFuture;
use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::Value;
use sha2::Sha256;

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
    webhook: Hmac<Sha256>,
    price: String,
}

impl Stripe {
    /// `api` is https://api.stripe.com, or the tests' stand-in; `price` the plan's price id.
    pub fn new(
        api: &str,
        secret_key: &str,
        webhook_secret: &str,
        price: &str,
    ) -> Result<Stripe, String> {
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(10))
            .build()
            .map_err(|e| format!("cannot make Stripe's HTTP client: {e}"))?;
        Ok(Stripe {
            http,
            api: api.trim_end_matches('/').to_owned(),
            secret_key: secret_key.to_owned(),
            // The whole secret, `whsec_` and all, is the key: that is how Stripe signs.
            webhook: Hmac::new_from_slice(webhook_secret.as_bytes())
                .map_err(|e| format!("the webhook secret is no HMAC key: {e}"))?,
            price: price.to_owned(),
        })
    }

    async fn post(
        &self,
        path: &str,
        form: &[(String, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, ProviderError> {
        self.call(reqwest::Method::POST, path, form, idempotency_key)
            .await
    }

    async fn call(
        &self,
        method: reqwest::Method,
        path: &str,
        form: &[(String, String)],
        idempotency_key: Option<&str>,
    ) -> Result<Value, ProviderError> {
        let mut request = self
            .http
            .request(method, format!("{}{path}", self.api))
            .bearer_auth(&self.secret_key)
            .header("Stripe-Version", API_VERSION)
            .form(form);
        if let Some(key) = idempotency_key {
            request = request.header("Idempotency-Key", key);
        }
        let answer = request
            .send()
            .await
            .map_err(|e| ProviderError::new(format!("Stripe did not answer {path}: {e}")))?;
        let status = answer.status();
        let body: Value = answer.json().await.map_err(|e| {
            ProviderError::new(format!("Stripe's answer to {path} is not JSON: {e}"))
        })?;
        if !status.is_success() {
            let error = &body["error"];
            return Err(ProviderError {
                message: format!(
                    "Stripe refused {path} ({status}, {} {}): {}",
                    error["type"].as_str().unwrap_or("?"),
                    error["code"].as_str().unwrap_or(""),
                    error["message"].as_str().unwrap_or("no message")
                ),
                missing_customer: error["code"] == "resource_missing"
                    && error["param"] == "customer",
                missing: error["code"] == "resource_missing",
                wrong_state: status == reqwest::StatusCode::BAD_REQUEST
                    && error["type"] == "invalid_request_error"
                    && error["param"].is_null(),
            });
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
            _ => Err(ProviderError::new(format!(
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

    fn cancel<'a>(&'a self, subscription: &'a str) -> BoxFuture<'a, Result<(), ProviderError>> {
        Box::pin(async move {
            let path = format!("/v1/subscriptions/{subscription}");
            match self.call(reqwest::Method::DELETE, &path, &[], None).await {
                Ok(_) => Ok(()),
                Err(e) if e.missing => Ok(()),
                Err(e) => Err(e),
            }
        })
    }

    fn expire_checkout<'a>(&'a self, session: &'a str) -> BoxFuture<'a, Result<(), ProviderError>> {
        Box::pin(async move {
            let path = format!("/v1/checkout/sessions/{session}/expire");
            match self.post(&path, &[], None).await {
                Ok(_) => Ok(()),
                Err(e) if e.missing || e.wrong_state => Ok(()),
                Err(e) => Err(e),
            }
        })
    }

    fn notice(&self, headers: &HeaderMap, body: &[u8], now: i64) -> Result<Notice, NoticeError> {
        let header = headers
            .get("stripe-signature")
            .and_then(|v| v.to_str().ok())
            .ok_or(NoticeError::Signature("no Stripe-Signature header"))?;
        verify(&self.webhook, header, body, now)?;
        read_event(body, &self.price)
    }
}

/// The most signatures a header may carry (two while the endpoint's secret is rolled, a
/// margin besides): each costs a comparison, and the header is the sender's to fill.
const MOST_SIGNATURES: usize = 8;
/// The largest event taken: Stripe's are a few kilobytes.
pub const LARGEST_EVENT: usize = 256 * 1024;

/// Checks `Stripe-Signature` over `body` at `now`: one of its `v1` signatures (two while the
/// endpoint's secret is being rolled) must be the HMAC of `t.body`, compared in constant time, and `t` no older than the tolerance (a later one is only the clocks
/// differing: nobody without the secret can sign one).
pub fn verify(key: &Hmac<Sha256>, header: &str, body: &[u8], now: i64) -> Result<(), NoticeError> {
    if body.len() > LARGEST_EVENT {
        return Err(NoticeError::Signature("the body is larger than any event"));
    }
    let mut time = None;
    let mut signatures = Vec::new();
    for part in header.split(',') {
        match part.trim().split_once('=') {
            Some(("t", t)) => time = t.parse::<i64>().ok(),
            Some(("v1", s)) => signatures.push(s),
            _ => {}
        }
        if signatures.len() > MOST_SIGNATURES {
            return Err(NoticeError::Signature("the header has too many signatures"));
        }
    }
    let time = time.ok_or(NoticeError::Signature("the signature has no time"))?;
    if signatures.is_empty() {
        return Err(NoticeError::Signature("the signature has no v1 scheme"));
    }
    if now - time > TOLERANCE_S {
        return Err(NoticeError::Signature("the signature is too old"));
    }
    // The body is hashed once; each signature costs only the last block and a comparison.
    let mut mac = key.clone();
    mac.update(time.to_string().as_bytes());
    mac.update(b".");
    mac.update(body);
    let matches = signatures
        .iter()
        .any(|s| hex_bytes(s).is_some_and(|tag| mac.clone().verify_slice(&tag).is_ok()));
    if matches {
        Ok(())
    } else {
        Err(NoticeError::Signature("no signature matches the body"))
    }
}

/// A SHA-256 tag in hex, or nothing.
fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    if s.len() != 64 {
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
    api_version: Option<String>,
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

/// Whether the object's items (a subscription's `items`, an invoice's `lines`) include the
/// plan's price: a subscription to anything else sold on the same Stripe account opens nothing.
fn sells(list: &Value, price: &str) -> bool {
    list["data"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|item| id_of(&item["price"]).as_deref() == Some(price))
}

/// Reads a signed event of API version [`API_VERSION`] into what it changes; events of the
/// plan's `price` only count. Another version is refused: its objects keep fields elsewhere
/// (from 2025-03-31 an invoice names its payments in a list of its own), and reading them as
/// this version's would miss refunds.
pub fn read_event(body: &[u8], price: &str) -> Result<Notice, NoticeError> {
    let event: Event = serde_json::from_slice(body)
        .map_err(|e| NoticeError::Malformed(format!("not a Stripe event: {e}")))?;
    if event.api_version.as_deref() != Some(API_VERSION) {
        return Err(NoticeError::Malformed(format!(
            "the event is of API version {}; make the webhook endpoint with {API_VERSION}",
            event.api_version.as_deref().unwrap_or("none")
        )));
    }
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
        | "customer.subscription.resumed"
            if sells(&o["items"], price) =>
        {
            Change::Subscription(SubscriptionState {
                id: id_of(o).ok_or_else(|| malformed(kind, "an id"))?,
                customer: id_of(&o["customer"]),
                account: text(&o["metadata"]["account_id"]),
                status: text(&o["status"]).ok_or_else(|| malformed(kind, "a status"))?,
                cancel_at_period_end: o["cancel_at_period_end"].as_bool().unwrap_or(false),
                ended_at: o["ended_at"].as_i64(),
            })
        }
        "invoice.paid" | "invoice.payment_failed" if sells(&o["lines"], price) => {
            let Some(subscription) = id_of(&o["subscription"]) else {
                // A one-off invoice: nothing of the subscription's.
                return Ok(notice(event, Change::Other));
            };
            // The lines' period, which the invoice pays for; the invoice's own `period_end`
            // is the period before's.
            let period_end = o["lines"]["data"]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|line| id_of(&line["price"]).as_deref() == Some(price))
                .filter_map(|line| line["period"]["end"].as_i64())
                .max()
                .ok_or_else(|| malformed(kind, "a period"))?;
            Change::Invoice {
                id: id_of(o).ok_or_else(|| malformed(kind, "an id"))?,
                subscription,
                customer: id_of(&o["customer"]),
                account: text(&o["subscription_details"]["metadata"]["account_id"]),
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
        "charge.dispute.created"
        | "charge.dispute.updated"
        | "charge.dispute.closed"
        | "charge.dispute.funds_withdrawn"
        | "charge.dispute.funds_reinstated" => {
            let payment = id_of(&o["payment_intent"])
                .or_else(|| id_of(&o["charge"]))
                .ok_or_else(|| malformed(kind, "a payment"))?;
            Change::Withdrawn {
                payment,
                reason: Withdrawal::Dispute,
                // The status says where the money is: an inquiry (warning_…) takes none, a
                // dispute open or lost has taken it, a won one gave it back.
                withdrawn: matches!(
                    o["status"].as_str(),
                    Some("needs_response" | "under_review" | "lost")
                ),
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

    fn key(secret: &str) -> Hmac<Sha256> {
        Hmac::new_from_slice(secret.as_bytes()).unwrap()
    }

    fn sign(secret: &str, t: i64, body: &str) -> String {
        let mut mac = key(secret);
        mac.update(format!("{t}.{body}").as_bytes());
        let tag = mac.finalize().into_bytes();
        tag.iter().map(|b| format!("{b:02x}")).collect()
    }

    #[test]
    fn on_a03_a_notice_is_taken_only_with_a_fresh_signature_of_its_very_body() {
        let secret = "whsec_test";
        let key = key(secret);
        let body = r#"{"id":"evt_1"}"#;
        let now = 1_800_000_000;
        let good = sign(secret, now, body);
        let check =
            |header: String, body: &str, at: i64| verify(&key, &header, body.as_bytes(), at);
        assert_eq!(check(format!("t={now},v1={good}"), body, now), Ok(()));
        // A rolled secret: the old signature first, then the new one; and a test-mode v0.
        let old = sign("whsec_old", now, body);
        assert_eq!(
            check(
                format!("t={now},v1={old},v1={good},v0={old}"),
                body,
                now + 300
            ),
            Ok(())
        );
        // Our clock behind Stripe's is no reason to refuse.
        assert_eq!(check(format!("t={now},v1={good}"), body, now - 600), Ok(()));
        let refused = |header: String, body: &str, at: i64| check(header, body, at).is_err();
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
        let many = format!("t={now}{},v1={good}", format!(",v1={old}").repeat(8));
        assert_eq!(
            check(many, body, now),
            Err(NoticeError::Signature("the header has too many signatures")),
            "each signature costs a comparison: a few only"
        );
        let large = "x".repeat(LARGEST_EVENT + 1);
        assert!(refused(
            format!("t={now},v1={}", sign(secret, now, &large)),
            &large,
            now
        ));
    }

    const PRICE: &str = "price_velha";

    fn read(kind: &str, object: Value) -> Change {
        let body = serde_json::json!({"id": "evt_9", "type": kind, "created": 7,
            "api_version": API_VERSION, "data": {"object": object}});
        read_event(body.to_string().as_bytes(), PRICE)
            .unwrap()
            .change
    }

    fn dispute(status: &str) -> Change {
        read(
            "charge.dispute.updated",
            serde_json::json!({"id": "dp_1", "charge": "ch_1", "payment_intent": "pi_1", "status": status}),
        )
    }

    #[test]
    fn on_a03_events_are_read_from_their_objects() {
        let line = |price: &str, end: i64| serde_json::json!({"price": {"id": price}, "period": {"start": 1, "end": end}});
        assert_eq!(
            read(
                "invoice.paid",
                serde_json::json!({
                    "id": "in_1", "customer": "cus_1", "subscription": "sub_1", "payment_intent": "pi_1",
                    "subscription_details": {"metadata": {"account_id": "acc"}}, "period_end": 1,
                    "lines": {"data": [line(PRICE, 100), line(PRICE, 90), line("price_other", 500)]}
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
        // Another product sold on the same Stripe account opens nothing.
        assert_eq!(
            read(
                "invoice.paid",
                serde_json::json!({"id": "in_2", "subscription": "sub_2",
                "lines": {"data": [line("price_other", 100)]}})
            ),
            Change::Other
        );
        assert_eq!(
            read(
                "customer.subscription.updated",
                serde_json::json!({"id": "sub_2", "status": "active",
                "items": {"data": [{"price": {"id": "price_other"}}]}})
            ),
            Change::Other
        );
        assert_eq!(
            read(
                "charge.refunded",
                serde_json::json!({"id": "ch_1", "payment_intent": "pi_1", "refunded": false})
            ),
            Change::Other,
            "partial"
        );
        let withdrawn = |w| Change::Withdrawn {
            payment: "pi_1".into(),
            reason: Withdrawal::Dispute,
            withdrawn: w,
        };
        assert_eq!(dispute("needs_response"), withdrawn(true));
        assert_eq!(dispute("lost"), withdrawn(true));
        assert_eq!(dispute("won"), withdrawn(false));
        assert_eq!(
            dispute("warning_needs_response"),
            withdrawn(false),
            "an inquiry takes no money"
        );
        assert_eq!(dispute("warning_closed"), withdrawn(false));
        assert!(matches!(
            read_event(br#"{"id":"evt","type":"customer.subscription.updated","created":1,"api_version":"2024-06-20","data":{"object":{"id":"sub","items":{"data":[{"price":"price_velha"}]}}}}"#, PRICE),
            Err(NoticeError::Malformed(_))
        ));
        let later = br#"{"id":"evt","type":"invoice.paid","created":1,"api_version":"2025-03-31.basil","data":{"object":{}}}"#;
        assert_eq!(
            read_event(later, PRICE),
            Err(NoticeError::Malformed(
                "the event is of API version 2025-03-31.basil; make the webhook endpoint with 2024-06-20".into()
            ))
        );
        assert!(read_event(b"not json", PRICE).is_err());
    }
}
