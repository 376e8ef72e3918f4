//! Password hashing with argon2id (online.md ON-A01), on one long-lived thread per core.
//!
//! Each hash takes the configured memory (19 MiB in production). Hashing on a few threads of
//! its own queues a burst of sign-ins instead of taking gigabytes (more at once would not
//! finish sooner), and each thread reuses one memory block for every hash it makes. Measured
//! with 2 000 sign-ups (`velha-load`): on tokio's blocking pool the server peaked at 500 MiB,
//! on these threads with a fresh block per hash at 276 MiB (the allocator keeps freed blocks
//! in each thread's arena), reusing one block at 105 MiB; handing blocks back to the system
//! instead cost a third of the sign-ups per second.

use std::sync::{Arc, Mutex, mpsc};

use argon2::password_hash::{Ident, Output, ParamsString, PasswordHash, SaltString};
use argon2::{Algorithm, Argon2, Block, Params, Version};

type Memory = Vec<Block>;
type Job = Box<dyn FnOnce(&mut Memory) + Send>;

/// Password hashing.
#[derive(Clone)]
pub struct Passwords {
    params: Params,
    dummy: String,
    jobs: Arc<Mutex<mpsc::Sender<Job>>>,
}

const ARGON2ID: Ident<'static> = Ident::new_unwrap("argon2id");

fn argon2(params: Params) -> Argon2<'static> {
    Argon2::new(Algorithm::Argon2id, Version::V0x13, params)
}

fn run(argon: &Argon2, password: &str, salt: &[u8], out: &mut [u8], memory: &mut Memory) -> bool {
    memory.resize(argon.params().block_count(), Block::default());
    argon
        .hash_password_into_with_memory(password.as_bytes(), salt, out, &mut memory[..])
        .is_ok()
}

impl Passwords {
    /// Argon2id with `memory_kib` of memory, 2 passes, 1 lane (OWASP's choice at 19 MiB).
    pub fn new(memory_kib: u32) -> Result<Passwords, String> {
        let params = Params::new(memory_kib, 2, 1, None).map_err(|e| e.to_string())?;
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for i in 0..cores {
            let queue = queue.clone();
            std::thread::Builder::new()
                .name(format!("argon2-{i}"))
                .spawn(move || {
                    let mut memory = Memory::new();
                    loop {
                        let job = queue.lock().unwrap_or_else(|e| e.into_inner()).recv();
                        match job {
                            Ok(job) => job(&mut memory),
                            Err(_) => break,
                        }
                    }
                })
                .map_err(|e| format!("cannot start a hashing thread: {e}"))?;
        }
        let mut p = Passwords {
            params,
            dummy: String::new(),
            jobs: Arc::new(Mutex::new(jobs)),
        };
        p.dummy = p.hash("a password nobody has", &mut Memory::new())?;
        Ok(p)
    }

    /// The PHC string of a new salted hash.
    pub fn hash(&self, password: &str, memory: &mut Memory) -> Result<String, String> {
        let mut salt = [0u8; 16];
        getrandom::fill(&mut salt).map_err(|e| e.to_string())?;
        let mut out = [0u8; 32];
        if !run(
            &argon2(self.params.clone()),
            password,
            &salt,
            &mut out,
            memory,
        ) {
            return Err("argon2 refused the password or salt".to_owned());
        }
        let salt = SaltString::encode_b64(&salt).map_err(|e| e.to_string())?;
        let phc = PasswordHash {
            algorithm: ARGON2ID,
            version: Some(Version::V0x13.into()),
            params: ParamsString::try_from(&self.params).map_err(|e| e.to_string())?,
            salt: Some(salt.as_salt()),
            hash: Some(Output::new(&out).map_err(|e| e.to_string())?),
        };
        Ok(phc.to_string())
    }

    /// Whether `password` matches the stored PHC string (with the parameters written in it).
    /// With no hash (unknown account, Google-only account) a dummy is checked, so the answer
    /// takes as long either way.
    pub fn verify(&self, password: &str, stored: Option<&str>, memory: &mut Memory) -> bool {
        let (phc, real) = match stored {
            Some(h) => (h, true),
            None => (self.dummy.as_str(), false),
        };
        let Ok(parsed) = PasswordHash::new(phc) else {
            return false;
        };
        let (Some(salt), Some(expected)) = (parsed.salt, parsed.hash) else {
            return false;
        };
        let Ok(params) = Params::try_from(&parsed) else {
            return false;
        };
        let mut salt_buf = [0u8; 64];
        let Ok(salt) = salt.decode_b64(&mut salt_buf) else {
            return false;
        };
        if parsed.algorithm != ARGON2ID || parsed.version != Some(Version::V0x13.into()) {
            return false;
        }
        let mut out = vec![0u8; expected.len()];
        let ran = run(&argon2(params), password, salt, &mut out, memory);
        // Output's equality does not stop at the first differing byte.
        let same = Output::new(&out).is_ok_and(|o| o == expected);
        ran && same && real
    }

    async fn in_turn<T: Send + 'static>(
        &self,
        work: impl FnOnce(&Passwords, &mut Memory) -> T + Send + 'static,
    ) -> Option<T> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let me = self.clone();
        let job: Job = Box::new(move |memory| {
            let _ = reply.send(work(&me, memory));
        });
        self.jobs
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .send(job)
            .ok()?;
        answer.await.ok()
    }

    /// [`Passwords::hash`] on a hashing thread, in turn.
    pub async fn hash_in_turn(&self, password: String) -> Result<String, String> {
        self.in_turn(move |p, memory| p.hash(&password, memory))
            .await
            .unwrap_or_else(|| Err("the hashing threads stopped".to_owned()))
    }

    /// [`Passwords::verify`] on a hashing thread, in turn.
    pub async fn verify_in_turn(&self, password: String, stored: Option<String>) -> bool {
        self.in_turn(move |p, memory| p.verify(&password, stored.as_deref(), memory))
            .await
            .unwrap_or(false)
    }
}

#[cfg(test)]
mod tests {
    use argon2::password_hash::{PasswordHasher, PasswordVerifier};

    use super::*;

    #[test]
    fn on_a01_passwords_are_argon2id_salted_and_verified() {
        let p = Passwords::new(256).unwrap();
        let mut memory = Memory::new();
        let a = p.hash("cubo-gira-9", &mut memory).unwrap();
        let b = p.hash("cubo-gira-9", &mut memory).unwrap();
        assert!(a.starts_with("$argon2id$v=19$m=256,t=2,p=1$"), "{a}");
        assert_ne!(a, b, "salted");
        assert!(p.verify("cubo-gira-9", Some(&a), &mut memory));
        assert!(!p.verify("cubo-gira-8", Some(&a), &mut memory));
        assert!(!p.verify("a password nobody has", None, &mut memory));
        assert!(!p.verify("x", Some("not a hash"), &mut memory));
        // The same strings as the argon2 crate's own PHC hashing, both ways.
        let theirs = argon2(Params::new(512, 3, 1, None).unwrap())
            .hash_password(b"outra-senha", &SaltString::encode_b64(&[7; 16]).unwrap())
            .unwrap()
            .to_string();
        assert!(p.verify("outra-senha", Some(&theirs), &mut memory));
        let parsed = PasswordHash::new(&a).unwrap();
        assert!(
            argon2(Params::default())
                .verify_password(b"cubo-gira-9", &parsed)
                .is_ok()
        );
    }

    #[tokio::test]
    async fn hashing_threads_answer_in_turn() {
        let p = Passwords::new(64).unwrap();
        let hashes: Vec<String> = futures_util::future::join_all(
            (0..8).map(|i| p.hash_in_turn(format!("senha-{i}-longa"))),
        )
        .await
        .into_iter()
        .map(Result::unwrap)
        .collect();
        for (i, h) in hashes.into_iter().enumerate() {
            assert!(
                p.verify_in_turn(format!("senha-{i}-longa"), Some(h.clone()))
                    .await
            );
            assert!(!p.verify_in_turn("errada".into(), Some(h)).await);
        }
    }
}
