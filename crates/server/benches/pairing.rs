//! One round of Jogo da Velha 2.0's pairing (ON-V01), which every server process runs every
//! `--pair-every-ms`, over queues of 1 000 to 100 000 waiting players with random ratings and
//! waits of up to two minutes. Prints the time a round takes; asserts nothing about time.
//!
//!   cargo bench -p velha-server --bench pairing

use std::time::Instant;

use velha_server::store::{Waiting, pairs};

fn main() {
    let mut seed = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let now = 10_000_000;
    for n in [1_000, 10_000, 100_000] {
        let waiting: Vec<Waiting> = (0..n)
            .map(|i| Waiting {
                account_id: format!("player-{i}"),
                rating: 600 + (next() % 1_200) as u32,
                joined_at: now - (next() % 120_000) as i64,
            })
            .collect();
        let runs = 5;
        let mut best = f64::MAX;
        let mut paired = 0;
        for _ in 0..runs {
            let started = Instant::now();
            paired = pairs(&waiting, now).len();
            best = best.min(started.elapsed().as_secs_f64() * 1000.0);
        }
        println!("{n:>7} waiting: {paired:>6} pairs in {best:8.2} ms (best of {runs})");
    }
}
