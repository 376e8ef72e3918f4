//! What the Velha sees in a position she does not search further: lines of side 1, ready
//! lines, the symbol limit, and symbols waiting on the other faces.

use velha_rules::{Cube, LINES, Level};

use super::MATE;

/// The weights of the evaluation, in hundredths of a symbol or so: only their ratios matter.
/// Tuned by self-play ([`Weights::TUNED`]); [`Weights::HAND`] are the first, hand-set values.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    /// A line of side 1 holding one symbol of one player and none of the other's.
    pub single: i32,
    /// Two symbols of one player whose third cell is spent (it needs a reset to become ready).
    pub pair: i32,
    /// A ready line (two symbols, third blank) of the side to move while its four symbols keep
    /// it from tapping.
    pub own_ready_blocked: i32,
    /// Each ready line of the opponent, who can tap it next turn.
    pub opp_ready: i32,
    /// Each ready line of the opponent while its four symbols keep it from tapping.
    pub opp_ready_blocked: i32,
    /// The opponent holds two ready lines or more: one block cannot stop both.
    pub opp_double: i32,
    /// Each symbol on side 1 more than the opponent.
    pub symbol: i32,
    /// Each symbol on the other faces more than the opponent: a counted turn can bring it in.
    pub off_side: i32,
    /// Level 2: the side to move's next counted turn may go either way, the opponent's not.
    pub either_way: i32,
}

impl Weights {
    /// The values set by hand before any tuning: the reference the tuned ones are measured
    /// against.
    pub const HAND: Weights = Weights {
        single: 6,
        pair: 12,
        own_ready_blocked: 20,
        opp_ready: 60,
        opp_ready_blocked: 25,
        opp_double: 120,
        symbol: 3,
        off_side: 0,
        either_way: 0,
    };

    /// The weights the Velha plays with. `single`, `pair`, `symbol`, `off_side` and
    /// `either_way` come from 800 SPSA steps of 16 games at 4 000 nodes per decision, from
    /// [`Weights::HAND`] (`cargo run --release -p velha-ai --bin velha-ai-arena -- tune
    /// --iterations 800`); the four ready-line weights stay hand-set. The same run also moved
    /// those (a single ready line of the opponent worth 27 instead of 60, two worth 201 more):
    /// that won at equal budgets, but made her deeper searches lose to her shallower ones
    /// (256 000 nodes against 64 000 scored 41.5%, `velha-ai-arena ladder --weights …`), a
    /// horizon effect of under-valued threats that 4 000-node games cannot see.
    pub const TUNED: Weights = Weights {
        single: 14,
        pair: 16,
        own_ready_blocked: 20,
        opp_ready: 60,
        opp_ready_blocked: 25,
        opp_double: 120,
        symbol: 8,
        off_side: 23,
        either_way: 3,
    };

    /// The weights in a fixed order, for tuning.
    pub fn to_array(self) -> [i32; 9] {
        [
            self.single,
            self.pair,
            self.own_ready_blocked,
            self.opp_ready,
            self.opp_ready_blocked,
            self.opp_double,
            self.symbol,
            self.off_side,
            self.either_way,
        ]
    }

    /// The inverse of [`Weights::to_array`].
    pub fn from_array(w: [i32; 9]) -> Weights {
        Weights {
            single: w[0],
            pair: w[1],
            own_ready_blocked: w[2],
            opp_ready: w[3],
            opp_ready_blocked: w[4],
            opp_double: w[5],
            symbol: w[6],
            off_side: w[7],
            either_way: w[8],
        }
    }

    /// The worth of `position`, reached after `ply` actions of the search, for its side to
    /// move. A ready line the side to move can tap is a win on the next action, scored as
    /// the search would score it (`MATE - ply - 1`); anything else stays far below mate
    /// scores.
    pub fn evaluate(&self, position: &Cube, ply: i32) -> i32 {
        let side = position.side_to_move();
        let own = position.side1_marks(side);
        let opp = position.side1_marks(!side);
        let blank = position.side1_blank();
        let own_free = own.count_ones() < 4;
        let opp_free = opp.count_ones() < 4;
        let mut score = 0;
        let mut own_ready = 0;
        let mut opp_ready = 0;
        for line in LINES {
            let (a, b) = ((own & line).count_ones(), (opp & line).count_ones());
            let open = (blank & line).count_ones();
            match (a, b) {
                (2, 0) if open == 1 => own_ready += 1,
                (0, 2) if open == 1 => opp_ready += 1,
                (1, 0) => score += self.single,
                (0, 1) => score -= self.single,
                (2, 0) => score += self.pair,
                (0, 2) => score -= self.pair,
                _ => {}
            }
        }
        if own_ready > 0 && own_free {
            return MATE - ply - 1;
        }
        score += own_ready * self.own_ready_blocked;
        score -= opp_ready
            * if opp_free {
                self.opp_ready
            } else {
                self.opp_ready_blocked
            };
        if opp_ready >= 2 {
            score -= self.opp_double;
        }
        score += self.symbol * (own.count_ones() as i32 - opp.count_ones() as i32);
        let all_own = position.marks(side).count_ones() as i32;
        let all_opp = position.marks(!side).count_ones() as i32;
        score += self.off_side
            * ((all_own - own.count_ones() as i32) - (all_opp - opp.count_ones() as i32));
        if position.level() == Level::Two {
            let either = |p| position.counted_turns(p).is_multiple_of(2);
            score += self.either_way * (i32::from(either(side)) - i32::from(either(!side)));
        }
        // Far from mate scores whatever the weights: tuning cannot fake a win.
        score.clamp(-super::MATE_BOUND / 2, super::MATE_BOUND / 2)
    }
}

impl Default for Weights {
    fn default() -> Self {
        Weights::TUNED
    }
}
