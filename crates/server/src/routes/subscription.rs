//! Buying the subscription (ON-A03, docs/payments.md): what is on sale and the player's
//! standing, the provider's checkout and portal, and the provider's signed notices.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use velha_api::{ErrorCode, PageRequest, PaidState, ProviderPage, SubscriptionView};

use crate::app::App;
use crate::auth::{Player, is_subscriber};
use crate::dates::last_day;
use crate::error::{AppError, AppResult, Json};
use crate::payments::{Change, Locale, NoticeError, Order, Payments};
use crate::store::Claim;
use crate::token::now_ms;

/// How long a checkout's page takes payment: near Stripe's shortest (30 minutes by its
/// clock, with room for ours to differ), so an abandoned one soon lets the player open another.
const CHECKOUT_TTL_MS: i64 = 40 * 60_000;
/// A claim this old was left by a request that died while asking the provider.
const CLAIM_STALE_MS: i64 = 20_000;
/// How long a request waits for another one's checkout page.
const WAIT_FOR_CLAIM: Duration = Duration::from_secs(12);

fn unavailable(why: &str) -> AppError {
    AppError::new(ErrorCode::PaymentsUnavailable, why)
}

fn configured(app: &App) -> AppResult<&Payments> {
    app.payments
        .as_ref()
        .ok_or_else(|| unavailable("this server sells no subscription"))
}

/// The app's address the provider's pages return to: the configured one, else the host the
/// request came to (only a host name and port: anything else is refused, not echoed).
fn origin(payments: &Payments, headers: &HeaderMap) -> AppResult<String> {
    if let Some(url) = &payments.public_url {
        return Ok(url.clone());
    }
    let host = headers
        .get(axum::http::header::HOST)
        .and_then(|h| h.to_str().ok())
        .filter(|h| {
            !h.is_empty()
                && h.len() <= 255
                && h.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b".-:[]".contains(&b))
        })
        .ok_or_else(|| AppError::new(ErrorCode::BadRequest, "the request names no host"))?;
    Ok(format!("https://{host}"))
}

/// What is on sale, and the player's subscription.
#[utoipa::path(
    get,
    path = "/api/subscription",
    tag = "subscription",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, body = SubscriptionView),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn get(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<SubscriptionView>> {
    let now = now_ms();
    let paid = app.store.paid_summary(&player.account.id, now).await?;
    Ok(Json(SubscriptionView {
        plans: app
            .payments
            .as_ref()
            .map(|p| p.plans.clone())
            .unwrap_or_default(),
        subscriber: is_subscriber(&player.account, now),
        until: player.account.subscribed_until.map(last_day),
        paid_through: paid.paid_through.map(last_day),
        paid: paid.state,
        manageable: paid.manageable,
    }))
}

/// Opens the provider's checkout for the signed-in player; while one is open, the same page.
#[utoipa::path(
    post,
    path = "/api/subscription/checkout",
    tag = "subscription",
    request_body = PageRequest,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The checkout page to open", body = ProviderPage),
        (status = 401, body = velha_api::ApiError),
        (status = 409, description = "conflict: a paid subscription runs; manage it in the portal", body = velha_api::ApiError),
        (status = 403, description = "email_unverified: the account's e-mail is not confirmed yet (where the server sends e-mail)", body = velha_api::ApiError),
        (status = 503, description = "payments_unavailable: none configured, or the provider did not answer", body = velha_api::ApiError),
    )
)]
pub async fn checkout(
    State(app): State<Arc<App>>,
    player: Player,
    headers: HeaderMap,
    Json(body): Json<PageRequest>,
) -> AppResult<Json<ProviderPage>> {
    let payments = configured(&app)?;
    let account = &player.account;
    let now = now_ms();
    // The receipts and, later, a forgotten password go to the e-mail: it must be the
    // player's. (Where no e-mail can be sent, nothing can be confirmed, and nothing is asked.)
    if app.mail.is_some() && account.email.is_some() && account.email_verified_at.is_none() {
        return Err(AppError::new(
            ErrorCode::EmailUnverified,
            "confirm your e-mail first: open the link sent to it",
        ));
    }
    // A second subscription would charge twice: a running one, even canceled and still
    // lasting or with its renewal refused, is changed in the portal.
    if app.store.paid_summary(&account.id, now).await?.state != PaidState::None {
        return Err(AppError::new(
            ErrorCode::Conflict,
            "a paid subscription runs already: manage it in the portal",
        ));
    }
    let origin = origin(payments, &headers)?;
    // Answering an open page costs nothing; only asking the provider counts.
    let claimed_at = match app
        .store
        .claim_checkout(&account.id, now, CHECKOUT_TTL_MS, CLAIM_STALE_MS)
        .await?
    {
        Claim::Open(url) => return Ok(Json(ProviderPage { url })),
        Claim::Pending => return wait_for_page(&app, &account.id).await,
        Claim::Mine { claimed_at } => claimed_at,
    };
    if let Err(e) = app.limits.provider_pages_by_account.take(&account.id, now) {
        app.store.release_checkout(&account.id, claimed_at).await?;
        return Err(e);
    }
    let provider = &payments.provider;
    let mut customer = app.store.customer_of(&account.id, provider.name()).await?;
    let expires_at = (claimed_at + CHECKOUT_TTL_MS) / 1000;
    let asked = loop {
        let order = Order {
            account: &account.id,
            email: account.email.as_deref(),
            customer: customer.as_deref(),
            success_url: format!("{origin}/assinatura/confirmando?sessao={{SESSION}}"),
            cancel_url: format!("{origin}/assinatura"),
            locale: Locale::of(body.locale.as_deref()),
            expires_at,
            idempotency_key: format!(
                "checkout-{}-{claimed_at}-{}",
                account.id,
                customer.as_deref().unwrap_or("new")
            ),
        };
        match provider.checkout(order).await {
            // The customer was erased at the provider: a new one, or the player could never
            // subscribe again.
            Err(e) if e.missing_customer && customer.is_some() => {
                tracing::warn!(error = %e, "the player's customer is gone at the provider");
                app.store
                    .forget_customer(&account.id, provider.name())
                    .await?;
                customer = None;
            }
            other => break other,
        }
    };
    let page = match asked {
        Ok(page) => page,
        Err(e) => {
            tracing::error!(error = %e, "no checkout");
            app.store.release_checkout(&account.id, claimed_at).await?;
            app.limits.provider_pages_by_account.give_back(&account.id);
            return Err(unavailable("the payment provider did not open a checkout"));
        }
    };
    let expires_ms = if page.expires_at > 0 {
        page.expires_at * 1000
    } else {
        expires_at * 1000
    };
    if app
        .store
        .fill_checkout(&account.id, claimed_at, &page.id, &page.url, expires_ms)
        .await?
    {
        return Ok(Json(ProviderPage { url: page.url }));
    }
    // The claim was taken over while the provider answered (this request was thought dead):
    // this page is never shown, so the player has one to pay, the other request's.
    tracing::warn!(session = %page.id, "a checkout made after its claim was taken over");
    wait_for_page(&app, &account.id).await
}

/// The page another request of the player's is asking the provider for.
async fn wait_for_page(app: &App, account: &str) -> AppResult<Json<ProviderPage>> {
    let deadline = tokio::time::Instant::now() + WAIT_FOR_CLAIM;
    while tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(100)).await;
        match app.store.checkout_page(account).await? {
            Some(Some(url)) => return Ok(Json(ProviderPage { url })),
            Some(None) => break,
            None => {}
        }
    }
    Err(unavailable("the payment provider did not open a checkout"))
}

/// Opens the provider's customer portal: cancel, resume, change the card, the invoices.
#[utoipa::path(
    post,
    path = "/api/subscription/portal",
    tag = "subscription",
    request_body = PageRequest,
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The portal page to open", body = ProviderPage),
        (status = 401, body = velha_api::ApiError),
        (status = 409, description = "no_customer: the player never paid", body = velha_api::ApiError),
        (status = 503, description = "payments_unavailable", body = velha_api::ApiError),
    )
)]
pub async fn portal(
    State(app): State<Arc<App>>,
    player: Player,
    headers: HeaderMap,
    Json(body): Json<PageRequest>,
) -> AppResult<Json<ProviderPage>> {
    let payments = configured(&app)?;
    let provider = &payments.provider;
    app.limits
        .provider_pages_by_account
        .take(&player.account.id, now_ms())?;
    let customer = app
        .store
        .customer_of(&player.account.id, provider.name())
        .await?
        .ok_or_else(|| {
            AppError::new(
                ErrorCode::NoCustomer,
                "there is no paid subscription to manage",
            )
        })?;
    let back = format!("{}/conta", origin(payments, &headers)?);
    match provider
        .portal(&customer, &back, Locale::of(body.locale.as_deref()))
        .await
    {
        Ok(page) => Ok(Json(ProviderPage { url: page.url })),
        Err(e) => {
            tracing::error!(error = %e, "no portal");
            Err(unavailable("the payment provider did not open its portal"))
        }
    }
}

/// The provider's notices (Stripe's webhook). The signature is checked over the raw body
/// before any of it is read; each notice applies once, in the provider's order.
#[utoipa::path(
    post,
    path = "/api/payments/webhook",
    tag = "subscription",
    request_body(content = String, description = "The provider's event, as it signed it", content_type = "application/json"),
    responses(
        (status = 200, description = "Kept (or seen before, or none of ours)", body = String),
        (status = 400, description = "bad_signature, or bad_request for a signed body that is no event", body = velha_api::ApiError),
        (status = 503, description = "payments_unavailable: none configured", body = velha_api::ApiError),
    )
)]
pub async fn webhook(
    State(app): State<Arc<App>>,
    headers: HeaderMap,
    body: Bytes,
) -> AppResult<&'static str> {
    let payments = configured(&app)?;
    let provider = &payments.provider;
    let notice = provider
        .notice(&headers, &body, now_ms() / 1000)
        .map_err(|e| match e {
            NoticeError::Signature(why) => {
                tracing::warn!(why, "a payment notice refused");
                AppError::new(ErrorCode::BadSignature, why)
            }
            NoticeError::Malformed(why) => AppError::new(ErrorCode::BadRequest, why),
        })?;
    let fresh = app
        .store
        .apply_notice(provider.name(), &notice, payments.grace_ms, now_ms())
        .await?;
    tracing::info!(id = %notice.id, kind = %notice.kind, fresh, "payment notice");
    if let Change::CheckoutCompleted { account, .. } = &notice.change {
        // A checkout paid after its account was deleted: nobody but us can stop its charges.
        // Asked again each time the notice comes, so a failure here has the provider send it
        // again until the subscription is ended.
        if app.store.account_by_id(account).await?.is_none() {
            crate::routes::deletion::end_subscriptions(&app, account).await?;
        }
    }
    Ok("ok")
}
