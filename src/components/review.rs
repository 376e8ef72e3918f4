//! "Onde eu errei?" (ANA-11): after a game lost to the computer on this device, the same game
//! move by move on the game's own screen, analysed at once. The screen shows the position the
//! review is at instead of the game on the board; closing it goes back to that game.

use std::hash::{Hash, Hasher};

use dioxus::prelude::*;
use velha_ai::analysis::Game;
use velha_rules::{Player, Position, Status};

use crate::analysis::Record;
use crate::app::use_texts;
use crate::lazy::Analysis;

/// A screen's review: the game under review and the position shown, while open.
#[derive(Clone, Copy, PartialEq)]
pub struct Review {
    open: Signal<Option<(Record, String)>>,
    step: Signal<usize>,
}

/// The screen's review, closed.
pub fn use_review() -> Review {
    Review {
        open: use_signal(|| None),
        step: use_signal(|| 0),
    }
}

impl Review {
    /// Opens the review of the game that went through `positions` (what its match kept),
    /// at its last position.
    pub fn open<P: Position>(mut self, positions: &[P], record: fn(Game<P>) -> Record) {
        let Some(game) = Game::from_positions(positions) else {
            return;
        };
        let id = review_id(&game);
        self.step.set(game.positions.len() - 1);
        self.open.set(Some((record(game), id)));
    }

    /// Closes the review (a new game, say).
    pub fn close(mut self) {
        self.open.set(None);
    }

    /// Whether the review is open.
    pub fn is_open(&self) -> bool {
        self.open.read().is_some()
    }

    /// The position the review shows, as the screen's game has it.
    pub fn shown<P: Position>(&self, pick: fn(&Record) -> Option<&Game<P>>) -> Option<P> {
        let open = self.open.read();
        let (record, _) = open.as_ref()?;
        pick(record)?.positions.get(*self.step.read()).copied()
    }
}

/// Whether `status` is a game the person (`person`) lost to the computer.
pub fn lost(status: Status, person: Player) -> bool {
    matches!(status, Status::Win(w) if w != person)
}

/// The key the device keeps a local game's analysis under: the game's start and moves,
/// hashed (FNV-1a), so the same game opened again is not judged again.
fn review_id<P: Position>(game: &Game<P>) -> String {
    let mut fnv = Fnv(0xcbf2_9ce4_8422_2325);
    game.positions[0].hash(&mut fnv);
    game.played.hash(&mut fnv);
    format!("local-{:016x}", fnv.finish())
}

/// FNV-1a: the same from run to run on a device, unlike the standard library's hasher (the
/// key only has to find this device's own cache).
struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }
}

/// "Onde eu errei?", under the result's buttons, while the review is closed.
#[component]
pub fn WhereWrong(review: Review, can_open: bool, onopen: EventHandler<()>) -> Element {
    let a = use_texts().analysis;
    if review.is_open() || !can_open {
        return rsx! {};
    }
    rsx! {
        button { class: "wide", "data-action": "where-wrong", onclick: move |_| onopen.call(()),
            "{a.where_wrong}"
        }
    }
}

/// The open review, above the result's buttons: where it is, the analysis, the steps, and
/// the way back to the game.
#[component]
pub fn ReviewPanel(review: Review) -> Element {
    let t = use_texts();
    let a = t.analysis;
    let r = t.replays;
    let Review { mut open, mut step } = review;
    let Some((record, id)) = open() else {
        return rsx! {};
    };
    let last = record.moves();
    let at = step().min(last);
    let where_now = if at == 0 {
        r.start.to_owned()
    } else {
        format!("{} {at} {} {last}", r.move_word, r.of)
    };
    rsx! {
        div { class: "review", "data-review": "open",
            p { class: "status", "data-step": "{at}", "data-steps": "{last}", "{where_now}" }
            Analysis { record, id, step: at, at_once: true, on_pick: move |to| step.set(to) }
            div { class: "review-steps", role: "group",
                button { "data-action": "step-back", disabled: at == 0, onclick: move |_| step.set(at.saturating_sub(1)),
                    "{a.previous}" }
                button { "data-action": "step-forward", disabled: at == last, onclick: move |_| step.set((at + 1).min(last)),
                    "{a.next}" }
            }
            button { class: "wide", "data-action": "close-review", onclick: move |_| open.set(None), "{a.back_to_game}" }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_rules::Classic;

    fn game(cells: &[&str], starter: Player) -> Game<Classic> {
        let mut board = Classic::new(starter);
        let mut all = vec![board];
        for c in cells {
            board.play(c.parse().unwrap()).unwrap();
            all.push(board);
        }
        Game::from_positions(&all).unwrap()
    }

    #[test]
    fn ana_11_a_local_game_is_kept_under_its_moves() {
        let a = review_id(&game(&["a1", "b2", "c3"], Player::X));
        assert_eq!(a, review_id(&game(&["a1", "b2", "c3"], Player::X)));
        assert!(a.starts_with("local-") && a.len() == 22, "{a}");
        assert_ne!(a, review_id(&game(&["a1", "b2", "c2"], Player::X)));
        assert_ne!(
            a,
            review_id(&game(&["a1", "b2", "c3"], Player::O)),
            "another starter"
        );
    }

    #[test]
    fn ana_11_only_a_game_lost_to_the_computer_asks_where_it_went_wrong() {
        assert!(lost(Status::Win(Player::O), Player::X));
        assert!(!lost(Status::Win(Player::X), Player::X));
        assert!(!lost(Status::Draw, Player::X));
        assert!(!lost(Status::Ongoing(Player::O), Player::X));
    }
}
