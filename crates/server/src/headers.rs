//! What every answer carries besides its body: an [`velha_api::ApiError`] body on every error
//! (also the ones the framework writes itself: 405, 408, 415…), `Cache-Control: no-store` on
//! the API (its answers are one player's, some carry a session token), and the browser
//! protections for the web app (Content-Security-Policy, nosniff, Referrer-Policy, and HSTS
//! when a real certificate is configured).

use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::Response;
use velha_api::ApiError;

use crate::error::code_for;

/// Exactly what the web app needs: its own scripts and wasm (compiling wasm needs
/// 'wasm-unsafe-eval', nothing else of eval), its own style sheet (no inline styles),
/// its own images and the characters' drawings built into it (`data:` SVG in `img`, which
/// never runs scripts), the API and the live WebSocket on the same origin, its service worker.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; script-src 'self' \
    'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data:; \
    connect-src 'self'; worker-src 'self'; manifest-src 'self'; object-src 'none'; \
    base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// A year, as browsers advise for HSTS.
const HSTS: &str = "max-age=31536000";

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// Turns an error the framework answered in its own words (or with no body) into an
/// `ApiError` with the same status and headers (a 405 keeps its `Allow`).
pub async fn error_bodies(response: Response) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) || is_json(&response) {
        return response;
    }
    let (mut parts, body) = response.into_parts();
    let text = axum::body::to_bytes(body, 4096).await.unwrap_or_default();
    let text = String::from_utf8_lossy(&text);
    let message = match text.trim() {
        "" => status
            .canonical_reason()
            .unwrap_or("the request failed")
            .to_lowercase(),
        t => t.to_owned(),
    };
    let body = serde_json::to_vec(&ApiError::new(code_for(status), message)).unwrap_or_default();
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body))
}

/// Middleware: [`protect`] every answer, `hsts` when the certificate is a real one.
pub async fn protection(
    axum::extract::State(hsts): axum::extract::State<bool>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    protect(&mut response, api, hsts);
    response
}

/// Adds the headers every answer carries: `api` ones are never cached.
fn protect(response: &mut Response, api: bool, hsts: bool) {
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    if api {
        h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
    if hsts {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;
    use axum::response::IntoResponse;
    use velha_api::ErrorCode;

    use super::*;

    #[tokio::test]
    async fn framework_errors_become_api_errors_keeping_status_and_headers() {
        let mut plain = (StatusCode::METHOD_NOT_ALLOWED, "").into_response();
        plain
            .headers_mut()
            .insert(header::ALLOW, HeaderValue::from_static("GET,HEAD"));
        let answer = error_bodies(plain).await;
        assert_eq!(answer.status(), StatusCode::METHOD_NOT_ALLOWED);
        assert_eq!(answer.headers()[header::ALLOW], "GET,HEAD");
        let body = axum::body::to_bytes(answer.into_body(), 4096)
            .await
            .unwrap();
        let e: velha_api::ApiError = serde_json::from_slice(&body).unwrap();
        assert_eq!(e.code, ErrorCode::MethodNotAllowed);
        assert_eq!(e.message, "method not allowed");

        let text = (StatusCode::UNSUPPORTED_MEDIA_TYPE, "Expected JSON").into_response();
        let answer = error_bodies(text).await;
        let body = axum::body::to_bytes(answer.into_body(), 4096)
            .await
            .unwrap();
        let e: velha_api::ApiError = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (e.code, e.message.as_str()),
            (ErrorCode::UnsupportedMediaType, "Expected JSON")
        );

        let fine = (StatusCode::OK, "ok").into_response();
        let answer = error_bodies(fine).await;
        assert_eq!(answer.status(), StatusCode::OK);
    }
}
