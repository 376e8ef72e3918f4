//! Google sign-in on the desktop, as Google asks of installed apps: the system browser opens
//! the authorization page, the answer comes back to a one-time listener on the loopback
//! address, and the code is traded for an ID token with the PKCE verifier (RFC 7636, S256),
//! so a code caught by another program on the machine is worth nothing.

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use velha_api::GoogleDesktop;

/// Why no ID token came.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GoogleFailure {
    /// No browser could be opened.
    NoBrowser,
    /// The player said no on Google's page.
    Cancelled,
    /// Google's answer was missing or wrong, or never came.
    Failed,
}

/// How long the player has to finish on Google's page.
const PATIENCE: Duration = Duration::from_secs(10 * 60);
/// A request line and headers are far smaller; a client sending more is not the browser.
const MOST_REQUEST: usize = 16 * 1024;

fn random_text(bytes: usize) -> Result<String, GoogleFailure> {
    let mut b = vec![0u8; bytes];
    getrandom::fill(&mut b).map_err(|_| GoogleFailure::Failed)?;
    Ok(URL_SAFE_NO_PAD.encode(b))
}

/// Whether this platform signs in with Google through the system browser (phones need an
/// app-claimed redirect instead of a loopback one).
pub const GOOGLE_IN_BROWSER: bool = cfg!(not(any(target_os = "android", target_os = "ios")));

/// What the browser asked of the loopback listener: the query's pairs.
fn query_of(request: &str) -> Option<Vec<(String, String)>> {
    let target = request.lines().next()?.strip_prefix("GET ")?;
    let target = target.split(' ').next()?;
    let url = reqwest::Url::parse(&format!("http://127.0.0.1{target}")).ok()?;
    (url.path() == "/").then(|| url.query_pairs().into_owned().collect())
}

fn page(body: &str) -> String {
    let html = format!(
        "<!doctype html><meta charset=\"utf-8\"><title>Cubo da Velha</title>\
         <p style=\"font:20px sans-serif;margin:2em\">{body}</p>"
    );
    format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/html; charset=utf-8\r\ncontent-length: {}\r\n\
         cache-control: no-store\r\nconnection: close\r\n\r\n{html}",
        html.len()
    )
}

const NOT_HERE: &str = "HTTP/1.1 404 Not Found\r\ncontent-length: 0\r\nconnection: close\r\n\r\n";

/// Reads one request from the browser and answers it: the code when it is Google's answer
/// to this sign-in, `None` for anything else (a favicon, a stranger).
async fn one_request(
    listener: &TcpListener,
    state: &str,
    pages: (&str, &str),
) -> Option<Result<String, GoogleFailure>> {
    let (mut stream, _) = listener.accept().await.ok()?;
    let mut request = Vec::new();
    let mut chunk = [0u8; 2048];
    let read = tokio::time::timeout(Duration::from_secs(5), async {
        while !request.windows(4).any(|w| w == b"\r\n\r\n") && request.len() < MOST_REQUEST {
            let n = stream.read(&mut chunk).await.ok()?;
            if n == 0 {
                break;
            }
            request.extend_from_slice(&chunk[..n]);
        }
        Some(())
    })
    .await;
    let pairs = read
        .ok()
        .flatten()
        .and_then(|()| query_of(&String::from_utf8_lossy(&request)));
    let value = |pairs: &[(String, String)], key: &str| {
        pairs.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let outcome = pairs
        .filter(|p| value(p, "state").as_deref() == Some(state))
        .map(|p| match (value(&p, "code"), value(&p, "error")) {
            (Some(code), None) => Ok(code),
            (_, Some(e)) if e == "access_denied" => Err(GoogleFailure::Cancelled),
            _ => Err(GoogleFailure::Failed),
        });
    let answer = match &outcome {
        Some(Ok(_)) => page(pages.0),
        Some(Err(_)) => page(pages.1),
        None => NOT_HERE.to_owned(),
    };
    let _ = stream.write_all(answer.as_bytes()).await;
    let _ = stream.shutdown().await;
    outcome
}

/// Signs in with Google in the system browser and answers the ID token. `pages` is what the
/// browser shows afterwards: when it worked, and when it did not.
pub async fn google_sign_in(
    client: &GoogleDesktop,
    pages: (&'static str, &'static str),
) -> Result<String, GoogleFailure> {
    let verifier = random_text(32)?;
    let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
    let state = random_text(16)?;
    let listener = TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|_| GoogleFailure::Failed)?;
    let port = listener
        .local_addr()
        .map_err(|_| GoogleFailure::Failed)?
        .port();
    let redirect = format!("http://127.0.0.1:{port}/");
    let mut authorize =
        reqwest::Url::parse(&client.authorization_url).map_err(|_| GoogleFailure::Failed)?;
    authorize
        .query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &client.client_id)
        .append_pair("redirect_uri", &redirect)
        .append_pair("scope", "openid email")
        .append_pair("state", &state)
        .append_pair("code_challenge", &challenge)
        .append_pair("code_challenge_method", "S256")
        .append_pair("prompt", "select_account");
    let address = authorize.to_string();
    let opened = super::native::open_page(&address);
    tokio::pin!(opened);
    let mut browser_open = false;
    let deadline = tokio::time::sleep(PATIENCE);
    tokio::pin!(deadline);
    let code = loop {
        tokio::select! {
            open = &mut opened, if !browser_open => {
                if !open {
                    return Err(GoogleFailure::NoBrowser);
                }
                browser_open = true;
            }
            answer = one_request(&listener, &state, pages) => {
                if let Some(answer) = answer {
                    break answer?;
                }
            }
            () = &mut deadline => return Err(GoogleFailure::Failed),
        }
    };
    drop(listener);
    trade(client, &code, &redirect, &verifier).await
}

/// Trades the code for the ID token at the token endpoint.
async fn trade(
    client: &GoogleDesktop,
    code: &str,
    redirect: &str,
    verifier: &str,
) -> Result<String, GoogleFailure> {
    #[derive(serde::Deserialize)]
    struct Tokens {
        id_token: String,
    }
    let mut form = vec![
        ("grant_type", "authorization_code"),
        ("code", code),
        ("redirect_uri", redirect),
        ("client_id", client.client_id.as_str()),
        ("code_verifier", verifier),
    ];
    if let Some(secret) = &client.client_secret {
        form.push(("client_secret", secret));
    }
    let http = super::native::client().ok_or(GoogleFailure::Failed)?;
    let response = http
        .post(&client.token_url)
        .form(&form)
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|_| GoogleFailure::Failed)?;
    let text = response.text().await.map_err(|_| GoogleFailure::Failed)?;
    let tokens: Tokens = serde_json::from_str(&text).map_err(|_| GoogleFailure::Failed)?;
    Ok(tokens.id_token)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a01_the_loopback_listener_reads_only_its_own_answer() {
        let pairs = query_of("GET /?state=s1&code=4%2Fabc HTTP/1.1\r\nHost: x\r\n\r\n").unwrap();
        assert!(pairs.contains(&("code".into(), "4/abc".into())));
        assert!(query_of("GET /favicon.ico HTTP/1.1\r\n\r\n").is_none());
        assert!(query_of("POST /?code=x HTTP/1.1\r\n\r\n").is_none());
        assert!(query_of("garbage").is_none());
    }

    /// The whole trip on the loopback: a stranger's request and a wrong state are turned
    /// away, Google's answer with this sign-in's state is taken, and "access_denied" reads
    /// as cancelled.
    #[tokio::test]
    async fn on_a01_the_loopback_listener_takes_the_answer_with_its_state() {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let ask = |path: &'static str| async move {
            let mut s = tokio::net::TcpStream::connect(("127.0.0.1", port))
                .await
                .unwrap();
            s.write_all(format!("GET {path} HTTP/1.1\r\nHost: x\r\n\r\n").as_bytes())
                .await
                .unwrap();
            let mut answer = String::new();
            s.read_to_string(&mut answer).await.unwrap();
            answer
        };
        let pages = ("fine", "failed");
        for (path, expected, status) in [
            ("/favicon.ico", None, "404"),
            ("/?state=other&code=c", None, "404"),
            (
                "/?state=mine&error=access_denied",
                Some(Err(GoogleFailure::Cancelled)),
                "200",
            ),
            (
                "/?state=mine&error=server_error",
                Some(Err(GoogleFailure::Failed)),
                "200",
            ),
            (
                "/?state=mine&code=the-code",
                Some(Ok("the-code".to_owned())),
                "200",
            ),
        ] {
            let (got, answer) = tokio::join!(one_request(&listener, "mine", pages), ask(path));
            assert_eq!(got, expected, "{path}");
            assert!(
                answer.starts_with(&format!("HTTP/1.1 {status}")),
                "{answer}"
            );
        }
    }
}
