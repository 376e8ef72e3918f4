//! Google sign-in: an ID token is verified against Google's published keys (RS256), which are
//! fetched from the configured JWKS URL, cached for as long as its Cache-Control allows, and
//! fetched again when a token names a key not in the cache (Google rotates keys).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use jsonwebtoken::{Algorithm, DecodingKey, Validation, decode, decode_header};
use serde::Deserialize;
use tokio::sync::Mutex;
use velha_api::ErrorCode;

use crate::error::AppError;

/// What the server keeps of a verified Google ID token.
#[derive(Clone, Debug, Deserialize)]
pub struct GoogleClaims {
    /// Google's stable id of the account.
    pub sub: String,
    /// The account's e-mail.
    #[serde(default)]
    pub email: Option<String>,
    /// Whether Google verified that e-mail.
    #[serde(default)]
    pub email_verified: Option<bool>,
}

#[derive(Deserialize)]
struct Jwks {
    keys: Vec<Jwk>,
}

#[derive(Deserialize)]
struct Jwk {
    kid: String,
    kty: String,
    #[serde(default)]
    n: String,
    #[serde(default)]
    e: String,
}

struct Cache {
    keys: HashMap<String, DecodingKey>,
    fetched: Option<Instant>,
    max_age: Duration,
}

/// The Google ID token verifier.
pub struct Google {
    /// The client ids tokens may be issued to (the web's and the desktop's); none: Google
    /// sign-in is off.
    audiences: Vec<String>,
    jwks_url: String,
    http: reqwest::Client,
    cache: Mutex<Cache>,
}

/// Keys are fetched again for an unknown key id at most this often, so forged key ids cannot
/// make the server hammer Google.
const MIN_REFETCH: Duration = Duration::from_secs(1);
const DEFAULT_MAX_AGE: Duration = Duration::from_secs(3600);
const ISSUERS: [&str; 2] = ["accounts.google.com", "https://accounts.google.com"];

fn refused(why: impl std::fmt::Display) -> AppError {
    AppError::new(
        ErrorCode::BadGoogleToken,
        format!("the Google ID token was refused: {why}"),
    )
}

fn max_age(headers: &reqwest::header::HeaderMap) -> Option<Duration> {
    let value = headers.get(reqwest::header::CACHE_CONTROL)?.to_str().ok()?;
    value.split(',').find_map(|part| {
        let seconds = part.trim().strip_prefix("max-age=")?;
        seconds.parse().ok().map(Duration::from_secs)
    })
}

impl Google {
    /// A verifier for tokens meant for one of `audiences` (none: Google sign-in is off).
    pub fn new(audiences: Vec<String>, jwks_url: String, http: reqwest::Client) -> Google {
        Google {
            audiences,
            jwks_url,
            http,
            cache: Mutex::new(Cache {
                keys: HashMap::new(),
                fetched: None,
                max_age: DEFAULT_MAX_AGE,
            }),
        }
    }

    async fn fetch(&self, cache: &mut Cache) -> Result<(), AppError> {
        let unavailable = |e: String| {
            tracing::warn!(error = %e, url = %self.jwks_url, "Google keys could not be fetched");
            AppError::new(
                ErrorCode::GoogleUnavailable,
                "Google's keys could not be fetched; try again in a moment",
            )
        };
        cache.fetched = Some(Instant::now());
        let response = self
            .http
            .get(&self.jwks_url)
            .timeout(Duration::from_secs(10))
            .send()
            .await
            .and_then(|r| r.error_for_status())
            .map_err(|e| unavailable(e.to_string()))?;
        let age = max_age(response.headers()).unwrap_or(DEFAULT_MAX_AGE);
        let jwks: Jwks = response
            .json()
            .await
            .map_err(|e| unavailable(e.to_string()))?;
        let mut keys = HashMap::new();
        for k in jwks.keys.iter().filter(|k| k.kty == "RSA") {
            match DecodingKey::from_rsa_components(&k.n, &k.e) {
                Ok(key) => {
                    keys.insert(k.kid.clone(), key);
                }
                Err(e) => tracing::warn!(kid = %k.kid, error = %e, "unusable Google key"),
            }
        }
        cache.keys = keys;
        cache.max_age = age;
        Ok(())
    }

    async fn key(&self, kid: &str) -> Result<DecodingKey, AppError> {
        let mut cache = self.cache.lock().await;
        let stale = cache.fetched.is_none_or(|t| t.elapsed() >= cache.max_age);
        let unknown = !cache.keys.contains_key(kid)
            && cache.fetched.is_none_or(|t| t.elapsed() >= MIN_REFETCH);
        if stale || unknown {
            self.fetch(&mut cache).await?;
        }
        cache
            .keys
            .get(kid)
            .cloned()
            .ok_or_else(|| refused(format!("no Google key has id {kid:?}")))
    }

    /// Verifies an ID token: RS256 signature by one of Google's keys, issuer, audience = our
    /// client ids, not expired.
    pub async fn verify(&self, token: &str) -> Result<GoogleClaims, AppError> {
        if self.audiences.is_empty() {
            return Err(AppError::new(
                ErrorCode::GoogleUnavailable,
                "Google sign-in is not configured on this server",
            ));
        }
        // Google's tokens are about a kilobyte; a longer one is refused before it is parsed.
        if token.len() > 16 * 1024 {
            return Err(AppError::new(
                ErrorCode::TooLong,
                format!(
                    "an ID token has at most 16 KiB; this one has {} bytes",
                    token.len()
                ),
            ));
        }
        let header = decode_header(token).map_err(refused)?;
        if header.alg != Algorithm::RS256 {
            return Err(refused(format!("{:?} is not RS256", header.alg)));
        }
        let kid = header.kid.ok_or_else(|| refused("it names no key"))?;
        let key = self.key(&kid).await?;
        let mut validation = Validation::new(Algorithm::RS256);
        validation.set_audience(&self.audiences);
        validation.set_issuer(&ISSUERS);
        validation.set_required_spec_claims(&["exp", "iss", "aud", "sub"]);
        let data = decode::<GoogleClaims>(token, &key, &validation).map_err(refused)?;
        Ok(data.claims)
    }
}
