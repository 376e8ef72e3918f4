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
/// With Google sign-in, the origin of the Google Identity Services script too: the script,
/// its style sheet, the button's frame and its requests (what Google's guide lists).
pub fn content_security_policy(
    google_script: Option<&reqwest::Url>,
) -> Result<HeaderValue, String> {
    let google = match google_script {
        Some(url) if url.scheme() == "https" => {
            format!(" {}", url.origin().ascii_serialization())
        }
        Some(url) => {
            return Err(format!(
                "the Google script must be served over HTTPS: {url}"
            ));
        }
        None => String::new(),
    };
    let frames = if google.is_empty() {
        String::new()
    } else {
        format!(" frame-src{google};")
    };
    let policy = format!(
        "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'{google}; \
         style-src 'self'{google}; img-src 'self' data:; connect-src 'self'{google};{frames} \
         worker-src 'self'; manifest-src 'self'; object-src 'none'; base-uri 'self'; \
         form-action 'self'; frame-ancestors 'none'"
    );
    HeaderValue::from_str(&policy).map_err(|e| format!("bad Content-Security-Policy: {e}"))
}

/// What [`protection`] adds to every answer.
#[derive(Clone)]
pub struct Protection {
    /// Whether to send HSTS.
    pub hsts: bool,
    /// The Content-Security-Policy.
    pub policy: HeaderValue,
}

/// A year, as browsers advise for HSTS.
const HSTS: &str = "max-age=31536000";

fn is_json(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"))
}

/// HTTP/2 carries a request's host in its `:authority`, not in a `Host` header: the checks that
/// compare a page's origin with the host it asked (auth.rs's `same_origin`) read the header
/// whichever version carried the request. A `Host` header sent beside it is replaced, as RFC
/// 9113 §8.3.1 makes the `:authority` the one that counts.
pub async fn host_from_authority(mut request: axum::extract::Request) -> axum::extract::Request {
    if request.version() == axum::http::Version::HTTP_2
        && let Some(value) = request
            .uri()
            .authority()
            .and_then(|a| HeaderValue::from_str(a.as_str()).ok())
    {
        request.headers_mut().insert(header::HOST, value);
    }
    request
}

/// Turns an error the framework answered in its own words (or with no body) into an
/// `ApiError` with the same status and headers (a 405 keeps its `Allow`). It runs inside the
/// compression (app.rs), so the words it reads are never compressed bytes.
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
    // Those described the old body, not this plain JSON: a precompressed file's 416 keeps its
    // `Content-Encoding: br` on a plain-text reason.
    parts.headers.remove(header::CONTENT_LENGTH);
    parts.headers.remove(header::CONTENT_ENCODING);
    parts.headers.insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    Response::from_parts(parts, Body::from(body))
}

/// Middleware: [`protect`] every answer, HSTS when the certificate is a real one.
pub async fn protection(
    axum::extract::State(protection): axum::extract::State<Protection>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let path = request.uri().path();
    let caching = if path.starts_with("/api/") {
        "no-store"
    } else if is_hashed(path) {
        IMMUTABLE
    } else {
        // index.html, sw.js, the manifest, icons: always asked again (answered 304 when
        // unchanged), so a new build reaches players at once.
        "no-cache"
    };
    let mut response = next.run(request).await;
    // A hashed name that is not there gets the app's page (the fallback for its own routes):
    // that answer must not be kept as if it were the file.
    let caching = if caching == IMMUTABLE && is_html(&response) {
        "no-cache"
    } else {
        caching
    };
    protect(&mut response, caching, &protection);
    response
}

fn is_html(response: &Response) -> bool {
    response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("text/html"))
}

/// Built assets carry their content's hash in their names (scripts/build-web.sh): a name
/// never changes content, so browsers keep them a year without asking.
const IMMUTABLE: &str = "public, max-age=31536000, immutable";

/// True for a path whose file name ends in `-` and 12 hex digits before its extension.
fn is_hashed(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or_default();
    let Some((stem, _ext)) = name.rsplit_once('.') else {
        return false;
    };
    stem.rsplit_once('-').is_some_and(|(_, hash)| {
        hash.len() == 12
            && hash
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase())
    })
}

/// Adds the headers every answer carries, and how it may be cached (`no-store` on the API).
fn protect(response: &mut Response, caching: &'static str, protection: &Protection) {
    let response_ok = response.status().is_success() || response.status().is_redirection();
    let h = response.headers_mut();
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("strict-origin-when-cross-origin"),
    );
    h.insert(header::CONTENT_SECURITY_POLICY, protection.policy.clone());
    // A cached error would outlive its cause.
    let caching = if response_ok { caching } else { "no-store" };
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static(caching));
    if protection.hsts {
        h.insert(
            header::STRICT_TRANSPORT_SECURITY,
            HeaderValue::from_static(HSTS),
        );
    }
}

#[cfg(test)]
mod tests {
    use axum::http::StatusCode;

    #[test]
    fn only_content_hashed_names_are_immutable() {
        for hashed in [
            "/pkg/cubo-da-velha_bg-0123456789ab.wasm",
            "/style-a1b2c3d4e5f6.css",
        ] {
            assert!(super::is_hashed(hashed), "{hashed}");
        }
        for plain in [
            "/",
            "/index.html",
            "/sw.js",
            "/icons/icon-192.png",
            "/pkg/cubo-da-velha.js",
            "/x-0123456789a.js",
            "/x-0123456789AB.js",
            "/x-0123456789ab",
        ] {
            assert!(!super::is_hashed(plain), "{plain}");
        }
    }
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

    #[tokio::test]
    async fn a_rewritten_error_carries_no_encoding_of_the_body_it_replaced() {
        // What ServeDir answers a multipart range on a precompressed file.
        let mut unsatisfiable = (
            StatusCode::RANGE_NOT_SATISFIABLE,
            "Cannot serve multipart range requests",
        )
            .into_response();
        let h = unsatisfiable.headers_mut();
        h.insert(header::CONTENT_ENCODING, HeaderValue::from_static("br"));
        h.insert(
            header::CONTENT_RANGE,
            HeaderValue::from_static("bytes */13"),
        );
        let answer = error_bodies(unsatisfiable).await;
        assert_eq!(answer.status(), StatusCode::RANGE_NOT_SATISFIABLE);
        assert!(!answer.headers().contains_key(header::CONTENT_ENCODING));
        assert_eq!(answer.headers()[header::CONTENT_RANGE], "bytes */13");
        let body = axum::body::to_bytes(answer.into_body(), 4096)
            .await
            .unwrap();
        let e: velha_api::ApiError = serde_json::from_slice(&body).unwrap();
        assert_eq!(
            (e.code, e.message.as_str()),
            (
                ErrorCode::BadRequest,
                "Cannot serve multipart range requests"
            )
        );
    }
}
