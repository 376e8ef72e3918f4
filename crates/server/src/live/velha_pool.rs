//! The server's Velha (ON-G05): the same engine as the app's, thinking as long per action,
//! on a few threads of her own so that a search never holds one of the async runtime's
//! threads. Each thread keeps one Velha (and her 2 MB table) for every match it serves.

use std::sync::{Arc, Mutex};

use tokio::sync::{mpsc, oneshot};
use velha_ai::{Opponent, Rng, Velha};
use velha_rules::{Cube, CubeAction};

struct Job {
    earlier: Vec<Cube>,
    position: Cube,
    reply: oneshot::Sender<Option<CubeAction>>,
}

/// The Velha's threads and the decisions waiting for them. A live match waits for at most
/// one decision, and a player is in at most one match (ON-M02), so the queue is bounded by
/// the players in Velha matches.
pub struct VelhaPool {
    jobs: mpsc::UnboundedSender<Job>,
}

impl VelhaPool {
    /// `threads` threads (at least one), which end when the pool is dropped.
    pub fn new(threads: usize) -> std::io::Result<VelhaPool> {
        let (jobs, queue) = mpsc::unbounded_channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        for n in 0..threads.max(1) {
            let queue = queue.clone();
            let mut seed = [0u8; 8];
            getrandom::fill(&mut seed).map_err(std::io::Error::other)?;
            std::thread::Builder::new()
                .name(format!("velha-{n}"))
                .spawn(move || serve(&queue, Rng::new(u64::from_le_bytes(seed))))?;
        }
        Ok(VelhaPool { jobs })
    }

    /// Asks for her action from `position`, after the game's `earlier` positions (oldest
    /// first); the answer is `None` when the game is over or the pool has stopped.
    pub fn decide(
        &self,
        earlier: Vec<Cube>,
        position: Cube,
    ) -> oneshot::Receiver<Option<CubeAction>> {
        let (reply, answer) = oneshot::channel();
        // A stopped pool drops the job, and with it `reply`: the answer then reads as none.
        // Counted before it is sent, so its thread never counts it out first.
        metrics::gauge!(crate::metrics::VELHA_QUEUE).increment(1.0);
        let job = Job {
            earlier,
            position,
            reply,
        };
        if self.jobs.send(job).is_err() {
            metrics::gauge!(crate::metrics::VELHA_QUEUE).decrement(1.0);
        }
        answer
    }
}

fn serve(queue: &Mutex<mpsc::UnboundedReceiver<Job>>, mut rng: Rng) {
    let mut velha = Velha::new();
    loop {
        // One thread waits on the queue at a time; the others wait for the lock.
        let job = queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .blocking_recv();
        let Some(job) = job else { return };
        metrics::gauge!(crate::metrics::VELHA_QUEUE).decrement(1.0);
        // A match that ended meanwhile no longer waits for her.
        if job.reply.is_closed() {
            continue;
        }
        let action =
            velha.choose_in_game(&job.earlier, &job.position, Velha::PLAY_LIMITS, &mut rng);
        let _ = job.reply.send(action);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_rules::{Level, Position};

    #[tokio::test]
    async fn on_g05_the_pool_answers_every_decision_with_a_legal_action() {
        let pool = VelhaPool::new(2).unwrap();
        let start = Cube::new(Level::One);
        let action = pool.decide(Vec::new(), start).await.unwrap().unwrap();
        let mut after = start;
        after.play(action).expect("her action is legal");
        // Ten decisions at once on two threads: every one is answered.
        let answers: Vec<_> = (0..10).map(|_| pool.decide(Vec::new(), start)).collect();
        for answer in answers {
            assert!(answer.await.unwrap().is_some());
        }
    }
}
