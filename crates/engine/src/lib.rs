//! The engine protocol of `docs/rules/engine-protocol.md`: one command per line in, exactly
//! one line out. [`Session`] holds the game and answers lines; the binary wraps it around
//! standard input and output.

use velha_ai::{Character, Difficulty, Limits, Opponent, Rng, UltimateAi, Velha};
use velha_rules::{Classic, Cube, Level, Player, Position, Ultimate, Variant};

/// The game being played, with every earlier position for `undo`.
#[derive(Debug)]
struct Line<P: Position> {
    current: P,
    history: Vec<P>,
}

impl<P: Position> Line<P> {
    fn new(start: P) -> Self {
        Line {
            current: start,
            history: Vec::new(),
        }
    }
}

/// One game of any of the four kinds.
#[derive(Debug)]
enum Game {
    Classic(Line<Classic>),
    Ultimate(Line<Ultimate>),
    Cube(Line<Cube>),
}

/// An action of the protocol: a game action, or the clock running out.
enum Step<A> {
    Action(A),
    Timeout,
}

/// Reads every token of a `play` command before anything is played, so a malformed command
/// changes nothing.
fn parse_steps<P: Position>(tokens: &[&str]) -> Result<Vec<Step<P::Action>>, String> {
    tokens
        .iter()
        .map(|&t| match t {
            "timeout" => Ok(Step::Timeout),
            _ => t
                .parse::<P::Action>()
                .map(Step::Action)
                .map_err(|e| e.to_string()),
        })
        .collect()
}

impl<P: Position> Line<P> {
    fn play(&mut self, tokens: &[&str]) -> String {
        let steps = match parse_steps::<P>(tokens) {
            Ok(steps) => steps,
            Err(e) => return format!("error {e}"),
        };
        for (i, step) in steps.into_iter().enumerate() {
            let mut next = self.current;
            let result = match step {
                Step::Action(a) => next.play(a),
                Step::Timeout => next.timeout(),
            };
            match result {
                Ok(_) => {
                    self.history.push(self.current);
                    self.current = next;
                }
                Err(reason) => return format!("illegal {i} {reason}"),
            }
        }
        "ok".into()
    }

    fn legal(&self) -> String {
        let mut actions: Vec<String> = self
            .current
            .legal_actions()
            .into_iter()
            .map(|a| a.to_string())
            .collect();
        actions.sort_unstable();
        actions.join(" ")
    }

    fn undo(&mut self) -> String {
        match self.history.pop() {
            Some(previous) => {
                self.current = previous;
                "ok".into()
            }
            None => "error nothing to undo".into(),
        }
    }
}

macro_rules! with_line {
    ($game:expr, $line:ident => $body:expr) => {
        match $game {
            Game::Classic($line) => $body,
            Game::Ultimate($line) => $body,
            Game::Cube($line) => $body,
        }
    };
}

/// The opponents each game knows, by protocol name.
fn opponent_names(game: &Game) -> &'static [&'static str] {
    match game {
        Game::Classic(_) => &["rabisco", "nino", "quelonia"],
        Game::Ultimate(_) => &["easy", "medium", "hard"],
        Game::Cube(_) => &["velha"],
    }
}

/// What the engine answers after a command; `Quit` ends the session.
#[derive(Debug, PartialEq, Eq)]
pub enum Reply {
    /// One line to print.
    Line(String),
    /// `quit`: exit with status 0.
    Quit,
}

/// A protocol session: the current game, if any.
#[derive(Debug, Default)]
pub struct Session {
    game: Option<Game>,
    opponents: Opponents,
}

const NO_GAME: &str =
    "error no game: start one with `new cube level=1|2`, `new classic`, `new super` or `new v2`";

impl Session {
    /// A session with no game yet.
    pub fn new() -> Session {
        Session::default()
    }

    /// Answers one command line (without its line ending).
    pub fn handle(&mut self, line: &str) -> Reply {
        let tokens: Vec<&str> = line.split_ascii_whitespace().collect();
        let Some((&command, args)) = tokens.split_first() else {
            return Reply::Line("error empty command".into());
        };
        Reply::Line(match command {
            "quit" if args.is_empty() => return Reply::Quit,
            "new" => self.new_game(args),
            "play" if args.is_empty() => "error play needs at least one action".into(),
            "play" => self.with_game(|g| with_line!(g, l => l.play(args))),
            "legal" if args.is_empty() => self.with_game(|g| with_line!(g, l => l.legal())),
            "status" if args.is_empty() => {
                self.with_game(|g| with_line!(g, l => l.current.status().to_string()))
            }
            "state" if args.is_empty() => {
                self.with_game(|g| with_line!(g, l => l.current.to_string()))
            }
            "undo" if args.is_empty() => self.with_game(|g| with_line!(g, l => l.undo())),
            "perft" => self.perft(args),
            "ai" => self.ai(args),
            "quit" | "legal" | "status" | "state" | "undo" => {
                format!("error {command} takes no arguments")
            }
            _ => format!(
                "error unknown command {:?}: expected new, play, legal, status, state, undo, ai, perft or quit",
                short(command)
            ),
        })
    }

    fn with_game(&mut self, f: impl FnOnce(&mut Game) -> String) -> String {
        match &mut self.game {
            Some(game) => f(game),
            None => NO_GAME.into(),
        }
    }

    fn new_game(&mut self, args: &[&str]) -> String {
        let game = match args {
            ["classic"] => Game::Classic(Line::new(Classic::new(Player::X))),
            ["super"] => Game::Ultimate(Line::new(Ultimate::new(Variant::Super, Player::X))),
            ["v2"] => Game::Ultimate(Line::new(Ultimate::new(Variant::V2, Player::X))),
            ["cube", "level=1"] => Game::Cube(Line::new(Cube::new(Level::One))),
            ["cube", "level=2"] => Game::Cube(Line::new(Cube::new(Level::Two))),
            ["cube", ..] => {
                return "error expected `new cube level=1` or `new cube level=2`".into();
            }
            _ => {
                return "error expected `new cube level=1|2`, `new classic`, `new super` or `new v2`"
                    .into();
            }
        };
        self.game = Some(game);
        "ok".into()
    }

    fn perft(&mut self, args: &[&str]) -> String {
        let depth = match args {
            [n] => match n.parse::<u32>() {
                Ok(depth) if depth <= MAX_PERFT_DEPTH => depth,
                Ok(_) => return format!("error perft depth must be at most {MAX_PERFT_DEPTH}"),
                Err(_) => {
                    return format!(
                        "error perft depth must be a whole number, found {:?}",
                        short(n)
                    );
                }
            },
            _ => return "error expected `perft N`".into(),
        };
        self.with_game(|g| with_line!(g, l => velha_rules::perft(&l.current, depth).to_string()))
    }

    fn ai(&mut self, args: &[&str]) -> String {
        let Some(game) = &self.game else {
            return NO_GAME.into();
        };
        let [name, budget] = args else {
            return "error expected `ai NAME ms=N`".into();
        };
        let names = opponent_names(game);
        if !names.contains(name) {
            return format!(
                "error unknown opponent {:?} for this game: expected {}",
                short(name),
                names.join(", ")
            );
        }
        let ms = match budget.strip_prefix("ms=").map(str::parse::<u64>) {
            Some(Ok(ms)) if ms <= MAX_THINKING_MS => ms,
            Some(Ok(_)) => return format!("error ms must be at most {MAX_THINKING_MS}"),
            _ => {
                return format!(
                    "error expected ms=N (a whole number of milliseconds), found {:?}",
                    short(budget)
                );
            }
        };
        let limits = Limits::millis(ms);
        let rng = &mut self.opponents.rng;
        let choice = match game {
            Game::Classic(l) => {
                let mut character = Character::ALL
                    .into_iter()
                    .find(|c| c.protocol_name() == *name);
                character
                    .as_mut()
                    .and_then(|c| c.choose(&l.current, limits, rng))
                    .map(|a| a.to_string())
            }
            Game::Ultimate(l) => {
                let ai = self
                    .opponents
                    .ultimate
                    .iter_mut()
                    .find(|ai| ai.difficulty.protocol_name() == *name);
                ai.and_then(|ai| ai.choose(&l.current, limits, rng))
                    .map(|a| a.to_string())
            }
            Game::Cube(l) => {
                let velha = self.opponents.velha.get_or_insert_with(Velha::new);
                // The game so far, so she steers away from positions already seen.
                velha
                    .choose_in_game(&l.history, &l.current, limits, rng)
                    .map(|a| a.to_string())
            }
        };
        match choice {
            Some(action) => format!("bestmove {action}"),
            None => "error game over".into(),
        }
    }
}

/// Deepest `perft`: cube games never end by themselves, and each ply is a level of recursion.
const MAX_PERFT_DEPTH: u32 = 64;

/// The longest an `ai` command may think: a minute.
const MAX_THINKING_MS: u64 = 60_000;

/// The computer opponents, kept across commands so their tables and trees are reused.
#[derive(Debug)]
struct Opponents {
    velha: Option<Velha>,
    ultimate: Vec<UltimateAi>,
    rng: Rng,
}

impl Default for Opponents {
    fn default() -> Self {
        Opponents {
            velha: None,
            ultimate: Difficulty::ALL.into_iter().map(UltimateAi::new).collect(),
            // A fixed seed: the same commands give the same answers, as far as time allows.
            rng: Rng::new(0x0E1A),
        }
    }
}

/// At most 20 characters of untrusted input, for an error message.
fn short(text: &str) -> String {
    text.chars().take(20).collect()
}
