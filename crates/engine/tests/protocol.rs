//! The engine binary, driven line by line over its standard input and output.

#[path = "../../rules/tests/reference/mod.rs"]
mod reference;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use reference::{RefClassic, RefCube, RefGame, RefUltimate, TestRng};

/// A running engine process.
struct Engine {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
}

impl Engine {
    fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_velha-engine"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the engine starts");
        let input = child.stdin.take().unwrap();
        let output = BufReader::new(child.stdout.take().unwrap());
        Engine {
            child,
            input,
            output,
        }
    }

    /// Sends raw bytes as one line and returns the single answer line.
    fn send_bytes(&mut self, line: &[u8]) -> String {
        self.input.write_all(line).unwrap();
        self.input.write_all(b"\n").unwrap();
        self.input.flush().unwrap();
        let mut answer = String::new();
        let n = self.output.read_line(&mut answer).expect("an answer");
        assert!(
            n > 0,
            "the engine closed its output after {:?}",
            String::from_utf8_lossy(line)
        );
        assert!(answer.ends_with('\n'));
        answer.trim_end_matches('\n').to_string()
    }

    fn send(&mut self, line: &str) -> String {
        self.send_bytes(line.as_bytes())
    }

    fn quit(mut self) {
        self.input.write_all(b"quit\n").unwrap();
        self.input.flush().unwrap();
        let status = self.child.wait().unwrap();
        assert!(status.success(), "quit exits with status 0");
    }
}

/// What an answer must be.
enum Expect {
    Exactly(String),
    /// A refusal: `illegal 0 …` for a well-formed action, `error …` for a malformed one.
    Refusal,
}

impl Engine {
    /// Sends a whole script at once (a writer thread keeps both pipes flowing) and checks
    /// every answer in order.
    fn run_script(&mut self, script: &[(String, Expect)], context: &str) {
        let input = &mut self.input;
        let output = &mut self.output;
        std::thread::scope(|scope| {
            scope.spawn(move || {
                let mut text = String::new();
                for (command, _) in script {
                    text.push_str(command);
                    text.push('\n');
                }
                input.write_all(text.as_bytes()).unwrap();
                input.flush().unwrap();
            });
            for (n, (command, expect)) in script.iter().enumerate() {
                let mut answer = String::new();
                output.read_line(&mut answer).unwrap();
                let answer = answer.trim_end_matches('\n');
                match expect {
                    Expect::Exactly(want) => {
                        assert_eq!(answer, want, "{context}, line {n}: {command}")
                    }
                    Expect::Refusal => assert!(
                        answer.starts_with("illegal 0 ") || answer.starts_with("error "),
                        "{context}, line {n}: {command} → {answer}"
                    ),
                }
            }
        });
    }
}

/// Plays `games` random games through the engine and the reference side by side, comparing
/// `legal`, `state` and `status` after every step, trying illegal actions, multi-action
/// `play`, `undo` and timeouts.
fn drive<R: RefGame>(
    engine: &mut Engine,
    new_command: &str,
    new_ref: impl Fn() -> R,
    games: usize,
    max_steps: usize,
    timeout_rate: usize,
    seed: u64,
) {
    let mut rng = TestRng(seed);
    let vocabulary: Vec<String> = ('a'..='i')
        .flat_map(|c| (1..=9).map(move |r| format!("{c}{r}")))
        .chain(
            "LMRUEDFSB"
                .chars()
                .flat_map(|l| [format!("{l}+"), format!("{l}-")]),
        )
        .collect();
    let exactly = |s: &str| Expect::Exactly(s.to_string());
    for game in 0..games {
        let mut script = vec![(new_command.to_string(), exactly("ok"))];
        let mut reference = new_ref();
        for _ in 0..max_steps {
            let legal = reference.legal();
            script.push(("legal".into(), exactly(&legal.join(" "))));
            script.push(("state".into(), exactly(&reference.state())));
            script.push(("status".into(), exactly(&reference.status())));
            let wrong = &vocabulary[rng.below(vocabulary.len())];
            if !legal.contains(wrong) {
                script.push((format!("play {wrong}"), Expect::Refusal));
                script.push(("state".into(), exactly(&reference.state())));
            }
            if legal.is_empty() {
                break;
            }
            let choice = &legal[rng.below(legal.len())];
            if timeout_rate > 0 && rng.below(timeout_rate) == 0 {
                assert!(reference.timeout());
                script.push(("play timeout".into(), exactly("ok")));
            } else if rng.below(10) == 0 {
                // Two actions in one command, then undo takes back only the second.
                let mut after = reference.clone();
                assert!(after.play(choice));
                let second = after.legal().first().cloned();
                match second {
                    Some(second) => {
                        script.push((format!("play {choice} {second}"), exactly("ok")));
                        script.push(("undo".into(), exactly("ok")));
                        script.push(("state".into(), exactly(&after.state())));
                        script.push((format!("play {second}"), exactly("ok")));
                        assert!(after.play(&second));
                    }
                    None => script.push((format!("play {choice}"), exactly("ok"))),
                }
                reference = after;
            } else {
                assert!(reference.play(choice));
                script.push((format!("play {choice}"), exactly("ok")));
            }
        }
        engine.run_script(&script, &format!("{new_command}, game {game}"));
    }
}

#[test]
fn the_engine_agrees_with_the_rules_over_thousands_of_random_games() {
    let mut engine = Engine::start();
    drive(&mut engine, "new classic", RefClassic::new, 2000, 12, 0, 1);
    drive(
        &mut engine,
        "new super",
        || RefUltimate::new(false),
        1000,
        90,
        0,
        2,
    );
    drive(
        &mut engine,
        "new v2",
        || RefUltimate::new(true),
        1000,
        90,
        6,
        3,
    );
    drive(
        &mut engine,
        "new cube level=1",
        || RefCube::new(1),
        600,
        120,
        300,
        4,
    );
    drive(
        &mut engine,
        "new cube level=2",
        || RefCube::new(2),
        600,
        120,
        300,
        5,
    );
    engine.quit();
}

#[test]
fn illegal_actions_are_refused_with_their_index_and_earlier_ones_stay() {
    let mut e = Engine::start();
    assert_eq!(e.send("new classic"), "ok");
    assert_eq!(e.send("play a1 b2 a1 c3"), "illegal 2 cell occupied");
    assert_eq!(e.send("state"), "X...O.... X");
    assert_eq!(e.send("play timeout"), "illegal 0 no clock in this game");
    assert_eq!(e.send("new super"), "ok");
    assert_eq!(e.send("play timeout"), "illegal 0 no clock in this game");
    assert_eq!(e.send("play e5 a1"), "illegal 1 must play in board 5");
    assert_eq!(e.send("new cube level=1"), "ok");
    assert_eq!(
        e.send("play L-"),
        "illegal 0 wrong direction: level 1 turns only go the canonical way"
    );
    assert_eq!(
        e.send("play S+ B+"),
        "illegal 1 second free turn in the same turn"
    );
    assert_eq!(
        e.send("legal")
            .split(' ')
            .filter(|a| a.starts_with(['S', 'B']))
            .count(),
        0
    );
    assert_eq!(
        e.send("state"),
        "...................................................... X L1 free x=0 o=0"
    );
    assert_eq!(e.send("undo"), "ok");
    assert_eq!(e.send("undo"), "error nothing to undo");
    assert_eq!(e.send("play timeout"), "ok");
    assert_eq!(e.send("status"), "win O");
    assert_eq!(e.send("ai velha ms=50"), "error game over");
    assert_eq!(e.send("new classic"), "ok");
    assert_eq!(
        e.send("ai velha ms=5"),
        "error unknown opponent \"velha\" for this game: expected rabisco, nino, quelonia"
    );
    assert_eq!(e.send("ai nino ms=60001"), "error ms must be at most 60000");
    e.quit();
}

#[test]
fn perft_answers_the_known_counts() {
    let mut e = Engine::start();
    assert_eq!(e.send("new classic"), "ok");
    assert_eq!(e.send("perft 9"), "127872");
    assert_eq!(e.send("new super"), "ok");
    assert_eq!(e.send("perft 3"), "6336");
    assert_eq!(e.send("new cube level=1"), "ok");
    assert_eq!(e.send("perft 1"), "18", "9 taps and the 9 canonical turns");
    assert_eq!(e.send("perft 0"), "1");
    e.quit();
}

#[test]
fn garbage_gets_an_error_line_and_changes_nothing() {
    let mut e = Engine::start();
    let fixed: Vec<Vec<u8>> = [
        "",
        " ",
        "\t",
        "new",
        "new cube",
        "new cube level=3",
        "new chess",
        "play",
        "play zz",
        "play a1 zz",
        "legal now",
        "status 1",
        "perft",
        "perft -1",
        "perft x",
        "perft 65",
        "perft 1000000",
        "perft 99999999999",
        "undo 2",
        "ai",
        "ai velha",
        "ai velha ms=",
        "ai velha ms=-5",
        "ai nobody ms=5",
        "quit now",
        "STATE",
        "state\u{0}",
        "\u{feff}state",
        "pláy a1",
        "new classic classic",
    ]
    .iter()
    .map(|s| s.as_bytes().to_vec())
    .chain([
        vec![0xff, 0xfe, b'a'],
        vec![b'x'; 100_000],
        b"play \x80".to_vec(),
    ])
    .collect();
    // Before any game, every game command explains that there is none.
    for cmd in [
        "legal",
        "state",
        "status",
        "undo",
        "play a1",
        "perft 1",
        "ai velha ms=5",
    ] {
        assert!(e.send(cmd).starts_with("error no game"), "{cmd}");
    }
    assert_eq!(e.send("new cube level=2"), "ok");
    assert_eq!(e.send("play a1 S+ L-"), "ok");
    let state = e.send("state");
    let mut rng = TestRng(99);
    let pieces = [
        "new",
        "play",
        "legal",
        "ai",
        "perft",
        "undo",
        "a1",
        "L+",
        "ms=5",
        "level=2",
        "velha",
        "zz",
        "+",
        "-",
        "é",
        "\u{0}",
        " ",
        "  ",
        "🙂",
        "cube",
        "99999999999999999999",
    ];
    for line in fixed {
        assert!(
            e.send_bytes(&line).starts_with("error "),
            "{:?}",
            String::from_utf8_lossy(&line[..line.len().min(30)])
        );
        assert_eq!(e.send("state"), state);
    }
    for _ in 0..5000 {
        let n = 1 + rng.below(5);
        let mut line: Vec<u8> = vec![];
        for _ in 0..n {
            if rng.below(4) == 0 {
                line.push((rng.next() % 256) as u8);
            } else {
                line.extend_from_slice(pieces[rng.below(pieces.len())].as_bytes());
            }
            line.push(b' ');
        }
        // Keep the session's game: skip lines that would legitimately change it.
        let text = String::from_utf8_lossy(&line).to_string();
        let first = text.split_ascii_whitespace().next().unwrap_or("");
        if matches!(first, "new" | "play" | "undo" | "quit")
            || line.contains(&b'\n')
            || line.contains(&b'\r')
        {
            continue;
        }
        let answer = e.send_bytes(&line);
        assert!(!answer.is_empty() || text.trim() == "legal", "{text:?}");
        assert_eq!(e.send("state"), state, "after {text:?}");
    }
    e.quit();
}

#[test]
fn the_engine_ends_quietly_when_its_input_closes() {
    let mut e = Engine::start();
    assert_eq!(e.send("new v2"), "ok");
    drop(e.input);
    assert!(e.child.wait().unwrap().success());
}

#[test]
fn every_ai_answer_is_legal_and_on_time() {
    let mut e = Engine::start();
    let mut rng = TestRng(31);
    let games: [(&str, &[&str]); 5] = [
        ("new classic", &["rabisco", "nino", "quelonia"]),
        ("new super", &["easy", "medium", "hard"]),
        ("new v2", &["easy", "medium", "hard"]),
        ("new cube level=1", &["velha"]),
        ("new cube level=2", &["velha"]),
    ];
    for (new, names) in games {
        for game in 0..6 {
            assert_eq!(e.send(new), "ok");
            for _ in 0..(game * 7) {
                let legal = e.send("legal");
                let legal: Vec<&str> = legal.split_whitespace().collect();
                if legal.is_empty() {
                    break;
                }
                assert_eq!(
                    e.send(&format!("play {}", legal[rng.below(legal.len())])),
                    "ok"
                );
            }
            let legal = e.send("legal");
            let state = e.send("state");
            for name in names {
                let started = std::time::Instant::now();
                let answer = e.send(&format!("ai {name} ms=20"));
                let elapsed = started.elapsed();
                if legal.is_empty() {
                    assert_eq!(answer, "error game over");
                    continue;
                }
                let action = answer
                    .strip_prefix("bestmove ")
                    .unwrap_or_else(|| panic!("{new} {name}: {answer}"));
                assert!(
                    legal.split(' ').any(|a| a == action),
                    "{new} {name} from {state}: {action}"
                );
                assert_eq!(e.send("state"), state, "ai does not play its move");
                // Generous: catches a search that ignores its budget, not scheduling noise.
                assert!(elapsed.as_millis() < 20 + 250, "{new} {name}: {elapsed:?}");
            }
        }
    }
    e.quit();
}

/// Who answers `ai` for each side in [`budget_match`].
#[derive(Clone, Copy, Debug)]
enum Engines {
    /// Each side its own process.
    Two,
    /// One process for both sides, its table shared, as a front end asking for hints would.
    One,
}

/// Games of the Velha at `long` ms against the Velha at `short` ms, through the protocol,
/// colours alternating; returns (wins of the longer budget, its losses, unfinished games).
fn budget_match(engines: Engines, level: u8, games: u32, long: u64, short: u64) -> (u32, u32, u32) {
    let mut processes: Vec<Engine> = match engines {
        Engines::Two => vec![Engine::start(), Engine::start()],
        Engines::One => vec![Engine::start()],
    };
    let (mut wins, mut losses, mut unfinished) = (0, 0, 0);
    for game in 0..games {
        let long_side = if game % 2 == 0 { "X" } else { "O" };
        for e in &mut processes {
            assert_eq!(e.send(&format!("new cube level={level}")), "ok");
        }
        let mut status = processes[0].send("status");
        for _ in 0..400 {
            let Some(side) = status.strip_prefix("ongoing ") else {
                break;
            };
            let (who, ms) = if side == long_side {
                (0, long)
            } else {
                (1, short)
            };
            let count = processes.len();
            let asked = &mut processes[who % count];
            let answer = asked.send(&format!("ai velha ms={ms}"));
            let action = answer
                .strip_prefix("bestmove ")
                .unwrap_or_else(|| panic!("{answer}"))
                .to_string();
            for e in &mut processes {
                assert_eq!(e.send(&format!("play {action}")), "ok");
            }
            status = processes[0].send("status");
        }
        match status.strip_prefix("win ") {
            Some(w) if w == long_side => wins += 1,
            Some(_) => losses += 1,
            None => unfinished += 1,
        }
    }
    for e in processes {
        e.quit();
    }
    (wins, losses, unfinished)
}

/// CUBE-V05: thinking longer never loses the match, whether each side has its own engine or
/// one engine (one table) answers for both — the setting where a longer search used to lose
/// to a shorter one. Time budgets make single games vary, so each match only must not be
/// lost, and all of them together must be won.
#[test]
fn cube_v05_a_longer_budget_never_loses_the_match_through_the_protocol() {
    let (mut all_wins, mut all_losses) = (0, 0);
    for engines in [Engines::Two, Engines::One] {
        for level in [1, 2] {
            let (wins, losses, unfinished) = budget_match(engines, level, 4, 60, 3);
            let line = format!(
                "{engines:?} engine(s), level {level}: 60 ms against 3 ms won {wins}, lost {losses}, {unfinished} unfinished"
            );
            eprintln!("{line}");
            assert!(wins >= losses, "{line}");
            (all_wins, all_losses) = (all_wins + wins, all_losses + losses);
        }
    }
    assert!(all_wins > all_losses, "won {all_wins}, lost {all_losses}");
}
