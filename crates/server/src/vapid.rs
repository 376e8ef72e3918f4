//! The server's VAPID key (RFC 8292), which signs its Web Push requests and which browsers
//! subscribe with (`applicationServerKey`): from `--vapid-private-key-file` (PKCS#8, PEM or
//! DER), or else made once and kept in the database's secrets, so every process behind a load
//! balancer signs with the same key and a subscription made through one works from all.

use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::rand::SystemRandom;
use ring::signature::{ECDSA_P256_SHA256_FIXED_SIGNING, EcdsaKeyPair, KeyPair};

use crate::store::Store;

const SECRET: &str = "vapid_private_key";

/// The key, and its public half as browsers take it.
pub struct Vapid {
    /// `applicationServerKey`: the uncompressed P-256 point, base64url.
    pub public_key: String,
    pair: EcdsaKeyPair,
    rng: SystemRandom,
}

impl Vapid {
    /// The configured key, or the database's.
    pub async fn load(store: &Store, file: Option<&std::path::Path>) -> Result<Vapid, String> {
        let rng = SystemRandom::new();
        let pkcs8 = match file {
            Some(path) => {
                let bytes = std::fs::read(path)
                    .map_err(|e| format!("cannot read the VAPID key {}: {e}", path.display()))?;
                from_pem(&bytes).unwrap_or(bytes)
            }
            None => {
                let fresh = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
                    .map_err(|_| "cannot make a VAPID key".to_owned())?;
                let kept = store
                    .secret(SECRET, STANDARD.encode(fresh.as_ref()))
                    .await
                    .map_err(|e| format!("cannot keep the VAPID key: {e}"))?;
                STANDARD
                    .decode(kept)
                    .map_err(|e| format!("the stored VAPID key is not base64: {e}"))?
            }
        };
        let pair = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &pkcs8, &rng)
            .map_err(|e| format!("the VAPID key is not a P-256 PKCS#8 key: {e}"))?;
        Ok(Vapid {
            public_key: URL_SAFE_NO_PAD.encode(pair.public_key().as_ref()),
            pair,
            rng,
        })
    }

    /// The `Authorization` header of a push to `endpoint` (RFC 8292): a JWT (ES256) for the
    /// endpoint's origin, valid 12 hours (services take at most 24), naming `subject` to
    /// contact, with the public key.
    pub fn authorization(&self, endpoint: &str, subject: &str, now_s: i64) -> Option<String> {
        let audience = reqwest::Url::parse(endpoint)
            .ok()?
            .origin()
            .ascii_serialization();
        let header = URL_SAFE_NO_PAD.encode(br#"{"typ":"JWT","alg":"ES256"}"#);
        let claims = serde_json::json!({"aud": audience, "exp": now_s + 12 * 3600, "sub": subject});
        let signed = format!("{header}.{}", URL_SAFE_NO_PAD.encode(claims.to_string()));
        let signature = self.pair.sign(&self.rng, signed.as_bytes()).ok()?;
        Some(format!(
            "vapid t={signed}.{}, k={}",
            URL_SAFE_NO_PAD.encode(signature.as_ref()),
            self.public_key
        ))
    }
}

/// The DER inside a PEM's `PRIVATE KEY` block, if the file is one.
fn from_pem(bytes: &[u8]) -> Option<Vec<u8>> {
    let text = std::str::from_utf8(bytes).ok()?;
    let body = text
        .split("-----BEGIN PRIVATE KEY-----")
        .nth(1)?
        .split("-----END PRIVATE KEY-----")
        .next()?;
    let joined: String = body.split_whitespace().collect();
    STANDARD.decode(joined).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pem_private_key_is_read_as_its_der() {
        let der = [0x30u8, 0x81, 0x87, 0x02, 0x01];
        let pem = format!(
            "-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n",
            STANDARD.encode(der)
        );
        assert_eq!(from_pem(pem.as_bytes()).as_deref(), Some(&der[..]));
        assert_eq!(from_pem(&der), None);
    }
}
