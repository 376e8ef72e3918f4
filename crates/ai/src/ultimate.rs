//! Super Jogo da Velha and 2.0 against the computer: easy, medium and hard.
//!
//! Hard and medium are Monte Carlo tree search (UCT) with uniformly random playouts, each
//! playout scored by the game's own rules (a drawn board scores for both in 2.0). Medium is
//! held to a small fixed number of playouts, so it stays weaker on any device; easy is a
//! quick player with a beginner's habits.

use velha_rules::ultimate::BoardState;
use velha_rules::{Player, Position, Status, UltCell, Ultimate};

use web_time::Duration;

use crate::budget::{Budget, Spend};
use crate::{Deliberate, Limits, Opponent, Rng, Thought};

/// How strong the computer plays.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Difficulty {
    /// Grabs small boards when it sees them, otherwise plays almost anywhere.
    Easy,
    /// A short search: sound most of the time, blind to long plans.
    Medium,
    /// A search that uses all the time it is given.
    Hard,
}

impl Difficulty {
    /// All three, easiest first.
    pub const ALL: [Difficulty; 3] = [Difficulty::Easy, Difficulty::Medium, Difficulty::Hard];

    /// The engine protocol's name.
    pub const fn protocol_name(self) -> &'static str {
        match self {
            Difficulty::Easy => "easy",
            Difficulty::Medium => "medium",
            Difficulty::Hard => "hard",
        }
    }
}

/// Playouts medium may run per move, whatever the time allows.
pub const MEDIUM_PLAYOUTS: u64 = 400;

/// Nodes kept at most in one search tree (about 20 MB); past it the search only plays out.
const MAX_NODES: usize = 1 << 20;

/// Exploration constant of UCB1.
const EXPLORATION: f32 = 1.0;

/// The computer opponent of the ultimate games. It keeps its search tree's memory between
/// moves, so thinking allocates once.
#[derive(Debug)]
pub struct UltimateAi {
    /// How strong it plays.
    pub difficulty: Difficulty,
    nodes: Vec<Node>,
    /// The nodes from the root to the one being played out.
    path: Vec<u32>,
    job: Option<Job>,
    /// Playouts run by the last search (for benchmarks).
    pub last_playouts: u64,
    /// The chosen move's expected result for the side that chose it (a win 1, a draw ½), as
    /// the last search found it; `None` when the move was chosen without searching.
    pub last_chance: Option<f32>,
}

/// A decision in progress.
#[derive(Debug)]
enum Job {
    /// Known without searching.
    Decided(Option<UltCell>),
    /// Tree search from `root`, the tree in `UltimateAi::nodes`.
    Searching { root: Ultimate, budget: Budget },
}

impl UltimateAi {
    /// An opponent at `difficulty`.
    pub fn new(difficulty: Difficulty) -> UltimateAi {
        UltimateAi {
            difficulty,
            nodes: Vec::new(),
            path: Vec::with_capacity(96),
            job: None,
            last_playouts: 0,
            last_chance: None,
        }
    }

    /// Starts searching `position` within `limits` whatever the difficulty and however few
    /// moves it has, so that [`UltimateAi::last_chance`] says what it is worth (an analysis).
    pub fn start_judging(&mut self, position: &Ultimate, limits: Limits) {
        self.last_playouts = 0;
        self.last_chance = None;
        if position.legal_cells().is_empty() {
            self.job = Some(Job::Decided(None));
        } else {
            self.start_search(position, limits);
        }
    }
}

impl Opponent<Ultimate> for UltimateAi {
    fn choose(&mut self, position: &Ultimate, limits: Limits, rng: &mut Rng) -> Option<UltCell> {
        crate::decide_at_once(self, &[], position, limits, rng)
    }
}

impl Deliberate<Ultimate> for UltimateAi {
    fn start(&mut self, _earlier: &[Ultimate], position: &Ultimate, limits: Limits, rng: &mut Rng) {
        self.last_playouts = 0;
        self.last_chance = None;
        let legal = position.legal_cells();
        let decided = match (legal.len(), self.difficulty) {
            (0, _) => None,
            (1, _) => legal.nth_cell(0),
            (_, Difficulty::Easy) => easy_move(position, rng),
            (_, Difficulty::Medium) => {
                let capped = Limits {
                    time: limits.time,
                    work: Some(limits.work.unwrap_or(MEDIUM_PLAYOUTS).min(MEDIUM_PLAYOUTS)),
                };
                return self.start_search(position, capped);
            }
            (_, Difficulty::Hard) => return self.start_search(position, limits),
        };
        self.job = Some(Job::Decided(decided));
    }

    fn think(&mut self, slice: Duration, rng: &mut Rng) -> Thought<UltCell> {
        let (root, mut budget) = match self.job.take() {
            None => return Thought::Decided(None),
            Some(Job::Decided(cell)) => return Thought::Decided(cell),
            Some(Job::Searching { root, budget }) => (root, budget),
        };
        budget.start_slice(slice);
        loop {
            match budget.spend() {
                Spend::Go => self.playout_once(&root, rng),
                Spend::Pause => {
                    budget.end_slice();
                    self.last_playouts = budget.spent();
                    self.job = Some(Job::Searching { root, budget });
                    return Thought::Thinking;
                }
                Spend::Exhausted => break,
            }
        }
        budget.end_slice();
        self.last_playouts = budget.spent();
        Thought::Decided(self.most_visited(&root, rng))
    }
}

/// A beginner: wins the game when it sees it (usually), grabs a small board when it can
/// (often), and otherwise plays anywhere, paying little attention to where it sends you.
fn easy_move(position: &Ultimate, rng: &mut Rng) -> Option<UltCell> {
    let me = position.side_to_move();
    let legal: Vec<UltCell> = position.legal_cells().collect();
    let outcome = |cell: UltCell| {
        let mut next = *position;
        let status = next.play(cell).ok()?;
        Some((status, next.board(cell.board())))
    };
    let winning: Vec<UltCell> = legal
        .iter()
        .copied()
        .filter(|&c| matches!(outcome(c), Some((Status::Win(p), _)) if p == me))
        .collect();
    if !winning.is_empty() && rng.chance(3, 4) {
        return rng.pick(&winning);
    }
    let grabbing: Vec<UltCell> = legal
        .iter()
        .copied()
        .filter(|&c| matches!(outcome(c), Some((_, BoardState::Won(p))) if p == me))
        .collect();
    if !grabbing.is_empty() && rng.chance(2, 3) {
        return rng.pick(&grabbing);
    }
    rng.pick(&legal)
}

#[derive(Clone, Copy, Debug)]
struct Node {
    cell: UltCell,
    /// Who played `cell` to reach this node.
    mover: Player,
    first_child: u32,
    child_count: u8,
    expanded: bool,
    visits: u32,
    /// Sum of playout results for `mover`: 1 a win, 0.5 a draw.
    score: f32,
}

impl Node {
    fn new(cell: UltCell, mover: Player) -> Node {
        Node {
            cell,
            mover,
            first_child: 0,
            child_count: 0,
            expanded: false,
            visits: 0,
            score: 0.0,
        }
    }
}

fn result_for(status: Status, player: Player) -> f32 {
    match status {
        Status::Win(p) if p == player => 1.0,
        Status::Draw => 0.5,
        _ => 0.0,
    }
}

/// Plays uniformly random legal moves to the end.
fn playout(mut position: Ultimate, rng: &mut Rng) -> Status {
    loop {
        let legal = position.legal_cells();
        if legal.is_empty() {
            return position.status();
        }
        let cell = legal.nth_cell(rng.below(legal.len())).expect("k < len");
        position.play(cell).expect("a legal cell");
    }
}

impl UltimateAi {
    fn start_search(&mut self, root: &Ultimate, limits: Limits) {
        let me = root.side_to_move();
        // A move that wins the game is never worth searching.
        let legal = root.legal_cells();
        for cell in legal {
            let mut next = *root;
            if next.play(cell) == Ok(Status::Win(me)) {
                self.job = Some(Job::Decided(Some(cell)));
                self.last_chance = Some(1.0);
                return;
            }
        }
        // A move after which the opponent wins at once is never worth searching either,
        // unless every move is one.
        let safe: Vec<UltCell> = legal
            .filter(|&cell| {
                let mut next = *root;
                next.play(cell).is_ok() && !crate::baseline::has_immediate_win(&next)
            })
            .collect();
        self.nodes.clear();
        self.nodes.push(Node::new(UltCell::default(), !me));
        if !safe.is_empty() && safe.len() < legal.len() {
            self.expand_with(0, me, safe);
        }
        self.job = Some(Job::Searching {
            root: *root,
            budget: Budget::new(limits),
        });
    }

    /// One descent of the tree from `root`, a random playout, and its result backed up.
    fn playout_once(&mut self, root: &Ultimate, rng: &mut Rng) {
        self.path.clear();
        let mut node = 0u32;
        let mut position = *root;
        self.path.push(node);
        loop {
            if position.status().is_over() {
                break;
            }
            if !self.nodes[node as usize].expanded {
                if self.nodes.len() + 81 > MAX_NODES {
                    break;
                }
                self.expand(node, &position);
            }
            let child = self.select(node, rng);
            position
                .play(self.nodes[child as usize].cell)
                .expect("children are legal");
            node = child;
            self.path.push(node);
            if self.nodes[node as usize].visits == 0 {
                break;
            }
        }
        let status = playout(position, rng);
        for &n in &self.path {
            let n = &mut self.nodes[n as usize];
            n.visits += 1;
            n.score += result_for(status, n.mover);
        }
    }

    /// The root's most visited action once the search is over; its mean result becomes
    /// [`UltimateAi::last_chance`].
    fn most_visited(&mut self, root: &Ultimate, rng: &mut Rng) -> Option<UltCell> {
        if !self.nodes[0].expanded {
            self.expand(0, root);
        }
        let legal = root.legal_cells();
        let chosen = self
            .children(0)
            .iter()
            .max_by_key(|n| (n.visits, (n.score * 2.0) as u32))
            .copied();
        self.last_chance = chosen
            .filter(|n| n.visits > 0)
            .map(|n| n.score / n.visits as f32);
        chosen
            .map(|n| n.cell)
            .or_else(|| legal.nth_cell(rng.below(legal.len())))
    }

    fn expand(&mut self, node: u32, position: &Ultimate) {
        self.expand_with(node, position.side_to_move(), position.legal_cells());
    }

    /// Gives `node` one child per cell of `cells`, played by `mover`.
    fn expand_with(&mut self, node: u32, mover: Player, cells: impl IntoIterator<Item = UltCell>) {
        let first = self.nodes.len();
        self.nodes
            .extend(cells.into_iter().map(|cell| Node::new(cell, mover)));
        let count = self.nodes.len() - first;
        let n = &mut self.nodes[node as usize];
        n.first_child = first as u32;
        n.child_count = count as u8;
        n.expanded = true;
    }

    fn children(&self, node: u32) -> &[Node] {
        let n = self.nodes[node as usize];
        &self.nodes[n.first_child as usize..(n.first_child + u32::from(n.child_count)) as usize]
    }

    /// UCB1, visiting every child once first (from a random start, so no cell is favoured).
    fn select(&self, node: u32, rng: &mut Rng) -> u32 {
        let n = self.nodes[node as usize];
        let children = self.children(node);
        let count = children.len();
        let offset = rng.below(count);
        for k in 0..count {
            let i = (offset + k) % count;
            if children[i].visits == 0 {
                return n.first_child + i as u32;
            }
        }
        let log_n = (n.visits.max(1) as f32).ln();
        let mut best = 0;
        let mut best_value = f32::MIN;
        for (i, c) in children.iter().enumerate() {
            let visits = c.visits as f32;
            let value = c.score / visits + EXPLORATION * (log_n / visits).sqrt();
            if value > best_value {
                best_value = value;
                best = i;
            }
        }
        n.first_child + best as u32
    }
}
