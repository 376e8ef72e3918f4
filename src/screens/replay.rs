//! The replay of a finished online game (ON-P01) at `/partida/<id>`: anyone with the link, no
//! account. The server sends the moves only; every position is rebuilt here by the rules, and
//! the cube's turns are animated going forward. First, back, forward, last, and play at a
//! chosen speed.

use dioxus::prelude::*;
use velha_ai::analysis::Game;
use velha_api::{Replay, ReplayGame, Seat};
use velha_rules::room::{
    ABSENT_ACTION, Board, RESIGN_ACTION, RoomGame, TIMEOUT_ACTION, replay_game,
};
use velha_rules::{Classic, Cube, CubeAction, Level, Player, Position, Turn, Ultimate};

use super::TopBar;
use super::classic::ClassicGrid;
use crate::analysis::Record;
use crate::app::{Screen, use_texts};
use crate::components::cube_stage::TurnQueue;
use crate::components::cube_table::CubeTable;
use crate::components::ultimate_grid::{PointsBar, UltimateGrid};
use crate::components::warning::warning;
use crate::lazy::Analysis;
use crate::online::client;
use crate::online::my_data_texts::shown_name;
use crate::online::replay_texts::{ReplayTexts, how_text, replay_sentence};
use crate::platform;

/// After a tap of "share": whether it went to the share sheet or the clipboard, and the link
/// itself, which a player can copy by hand where neither was there (or to see what was sent).
fn shared_link(shared: Option<bool>, url: &str, r: &ReplayTexts) -> Element {
    let Some(sent) = shared else {
        return rsx! {};
    };
    rsx! {
        if sent {
            p { class: "ok", role: "status", "{r.shared}" }
        }
        p { class: "shared-link", "data-shared-url": "{url}", "{url}" }
    }
}

/// The replay the screen shows: a match's id, or `<room>/<game>`.
#[derive(Clone, Copy)]
pub struct ReplayTarget(pub Signal<String>);

/// On a result screen: watch the game again, and share its replay's link (the system's share
/// sheet, else the clipboard).
#[component]
pub fn ReplayButtons(id: String, go: EventHandler<Screen>) -> Element {
    let r = use_texts().replays;
    let mut target = use_context::<ReplayTarget>().0;
    // Whether the link went to the share sheet or the clipboard, once tapped.
    let shared = use_signal(|| None::<bool>);
    let url = platform::link_to(&format!("/partida/{id}"));
    let shown_url = url.clone();
    rsx! {
        div { class: "replay-links",
            button { "data-action": "watch-replay", "data-replay": "{id}",
                onclick: move |_| {
                    target.set(id.clone());
                    go.call(Screen::Replay);
                },
                "{r.watch}"
            }
            button { "data-action": "share-replay", "data-replay-url": "{url}",
                onclick: {
                    let url = url.clone();
                    move |_| platform::share_link(&url, r.title, shared)
                },
                "{r.share}"
            }
        }
        {shared_link(shared(), &shown_url, r)}
    }
}

/// Milliseconds between moves at each speed the player can pick.
const SPEEDS: [(u32, &str); 3] = [(2000, "0.5×"), (1000, "1×"), (500, "2×")];

/// One position of the game.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Frame {
    Classic(Classic),
    Ultimate(Ultimate),
    Cube(Cube),
}

impl Frame {
    fn classic(&self) -> Option<Classic> {
        match self {
            Frame::Classic(c) => Some(*c),
            _ => None,
        }
    }

    fn ultimate(&self) -> Option<Ultimate> {
        match self {
            Frame::Ultimate(u) => Some(*u),
            _ => None,
        }
    }

    fn cube(&self) -> Option<Cube> {
        match self {
            Frame::Cube(c) => Some(*c),
            _ => None,
        }
    }
}

/// The whole game as positions: the start, then after each move; for the cube, the turns each
/// move made (to animate), with the position each began from.
#[derive(Clone, Debug, PartialEq)]
struct Film {
    frames: Vec<Frame>,
    turns: Vec<Vec<(Cube, Turn)>>,
}

/// Rebuilds every position by the rules; none when a move does not follow them.
fn film(replay: &Replay) -> Option<Film> {
    let room = |game: RoomGame, starter: Seat| {
        let cells: Vec<(Player, &str)> = replay
            .moves
            .iter()
            .map(|m| Some((Player::from(m.by), m.actions.first()?.as_str())))
            .collect::<Option<_>>()?;
        let boards = replay_game(game, Player::from(starter), &cells)
            .ok()?
            .boards;
        let frames = boards
            .into_iter()
            .map(|b| match b {
                Board::Classic(c) => Frame::Classic(c),
                Board::Ultimate(u) => Frame::Ultimate(u),
            })
            .collect();
        Some(Film {
            frames,
            turns: Vec::new(),
        })
    };
    match replay.game {
        ReplayGame::Classic { starter } => room(RoomGame::Classic, starter),
        ReplayGame::Super { starter } => room(RoomGame::Super, starter),
        ReplayGame::V2 { starter } => room(RoomGame::V2, starter),
        ReplayGame::Cube { level } => {
            let mut cube = Cube::new(Level::from_number(level)?);
            let mut frames = vec![Frame::Cube(cube)];
            let mut turns = vec![Vec::new()];
            for m in &replay.moves {
                if cube.side_to_move() != Player::from(m.by) {
                    return None;
                }
                let mut made = Vec::new();
                for action in &m.actions {
                    let action: CubeAction = action.parse().ok()?;
                    let before = cube;
                    cube.play(action).ok()?;
                    if let CubeAction::Turn(turn) = action {
                        made.push((before, turn));
                    }
                }
                frames.push(Frame::Cube(cube));
                turns.push(made);
            }
            Some(Film { frames, turns })
        }
    }
}

/// The game as its analysis takes it (ANA-01): the film's positions and the moves between
/// them (a resignation or a claimed absence moves nothing; a turn lost on the clock is no
/// move); none when they do not match.
fn record(replay: &Replay, film: &Film) -> Option<Record> {
    let played: Vec<Option<Vec<String>>> = replay
        .moves
        .iter()
        .filter_map(|m| match m.actions.first().map(String::as_str) {
            Some(RESIGN_ACTION | ABSENT_ACTION) => None,
            Some(TIMEOUT_ACTION) => Some(None),
            _ => Some(Some(m.actions.clone())),
        })
        .collect();
    if played.len() + 1 != film.frames.len() {
        return None;
    }
    let winner = replay.winner.map(Player::from);
    let frames = film.frames.iter();
    Some(match film.frames.first()? {
        Frame::Classic(_) => Record::Classic(Game {
            positions: frames.map(Frame::classic).collect::<Option<_>>()?,
            played,
            winner,
        }),
        Frame::Ultimate(_) => Record::Ultimate(Game {
            positions: frames.map(Frame::ultimate).collect::<Option<_>>()?,
            played,
            winner,
        }),
        Frame::Cube(_) => Record::Cube(Game {
            positions: frames.map(Frame::cube).collect::<Option<_>>()?,
            played,
            winner,
        }),
    })
}

/// The replay screen.
#[component]
pub fn ReplayScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    let id = use_context::<ReplayTarget>().0();
    // Why it cannot be shown, and whether asking again may show it.
    let mut loaded = use_signal(|| None::<Result<(Replay, Film), (String, bool)>>);
    let load = use_callback({
        let id = id.clone();
        move |()| {
            let id = id.clone();
            loaded.set(None);
            spawn(async move {
                let answer = match client::replay(&id).await {
                    Ok(replay) => match film(&replay) {
                        Some(film) => Ok((replay, film)),
                        None => Err((t.replays.damaged.to_owned(), false)),
                    },
                    Err(p) => Err((replay_sentence(t.replays, t.online(), &p), p.passing())),
                };
                loaded.set(Some(answer));
            });
        }
    });
    use_hook(move || load.call(()));
    match loaded() {
        None => rsx! {
            TopBar { title: t.replays.title, go }
            p { class: "muted", role: "status", "{t.online().working}" }
        },
        Some(Err((says, again))) => rsx! {
            TopBar { title: t.replays.title, go }
            {warning(&says, "true",
                // A second tap before the screen redraws asks no second time.
                again.then(|| EventHandler::new(move |()| if loaded.peek().is_some() { load.call(()) })))}
        },
        Some(Ok((replay, film))) => {
            let record = record(&replay, &film);
            rsx! { Projector { key: "{id}", go, replay, film, record } }
        }
    }
}

#[component]
fn Projector(
    go: EventHandler<Screen>,
    replay: Replay,
    film: Film,
    record: Option<Record>,
) -> Element {
    let t = use_texts();
    let r = t.replays;
    let last = film.frames.len() - 1;
    let mut step = use_signal(|| 0usize);
    let mut running = use_signal(|| false);
    let mut speed = use_signal(|| SPEEDS[1].0);
    let shared = use_signal(|| None::<bool>);
    let queue = use_signal(TurnQueue::default);
    let turns = film.turns.clone();
    // Forward one move: the cube's turns are queued so the canvas animates them.
    let forward = use_callback(move |_: ()| {
        let now = step();
        if now < last {
            if let Some(made) = turns.get(now + 1) {
                for (before, turn) in made {
                    queue.read().push(*before, *turn);
                }
            }
            step.set(now + 1);
        }
    });
    let mut jump = move |to: usize| {
        queue.read().clear();
        running.set(false);
        step.set(to.min(last));
    };
    use_future(move || async move {
        loop {
            platform::sleep_ms(speed()).await;
            if running() {
                if step() < last {
                    forward.call(());
                } else {
                    running.set(false);
                }
            }
        }
    });

    let at = step();
    let frame = film.frames[at];
    let cube = matches!(replay.game, ReplayGame::Cube { .. });
    let title = match replay.game {
        ReplayGame::Cube { .. } => t.game_cube,
        ReplayGame::Classic { .. } => t.game_classic,
        ReplayGame::Super { .. } => t.game_super,
        ReplayGame::V2 { .. } => t.game_v2,
    };
    let pt = t.pt;
    let name = |s: Seat| match s {
        Seat::X => shown_name(&replay.x.name, pt).to_owned(),
        Seat::O => shown_name(&replay.o.name, pt).to_owned(),
    };
    let where_now = if at == 0 {
        r.start.to_owned()
    } else {
        format!("{} {at} {} {last}", r.move_word, r.of)
    };
    let result = match replay.winner {
        Some(w) => {
            let loser = name(if w == Seat::X { Seat::O } else { Seat::X });
            format!(
                "{} ({}) {} {}",
                name(w),
                Player::from(w),
                r.won,
                how_text(r, replay.how, cube, &loser)
            )
        }
        None => how_text(r, replay.how, cube, ""),
    };
    let url = platform::link_to(&format!("/partida/{}", replay.id));
    let shown_url = url.clone();
    let header = rsx! {
        TopBar { title, go }
        p { class: "hint", "{r.title}" }
        p { class: "players",
            span { "data-player": "X", "X · {name(Seat::X)}" }
            " × "
            span { "data-player": "O", "O · {name(Seat::O)}" }
        }
        p { class: "status", role: "status", "aria-live": "polite", "data-step": "{at}", "data-steps": "{last}", "{where_now}" }
        if at == last {
            p { class: "result", "data-result": "{replay.how:?}", "{result}" }
        }
    };
    let controls = rsx! {
        if let Some(record) = record {
            Analysis { record, id: replay.id.clone(), step: at, on_pick: jump }
        }
        div { class: "replay-controls", role: "group",
            button { "data-action": "to-first", "aria-label": r.first, disabled: at == 0, onclick: move |_| jump(0),
                Glyph { shape: Shape::First } }
            button { "data-action": "step-back", "aria-label": r.back, disabled: at == 0,
                onclick: move |_| jump(at.saturating_sub(1)), Glyph { shape: Shape::Back } }
            if running() {
                button { class: "primary", "data-action": "pause", "aria-label": r.pause, onclick: move |_| running.set(false),
                    Glyph { shape: Shape::Pause } }
            } else {
                // From the end, playing starts the game over.
                button { class: "primary", "data-action": "play", "aria-label": r.play,
                    onclick: move |_| {
                        if at == last {
                            jump(0);
                        }
                        running.set(true);
                    },
                    Glyph { shape: Shape::Play } }
            }
            button { "data-action": "step-forward", "aria-label": r.forward, disabled: at == last,
                onclick: move |_| { running.set(false); forward.call(()) }, Glyph { shape: Shape::Forward } }
            button { "data-action": "to-last", "aria-label": r.last, disabled: at == last, onclick: move |_| jump(last),
                Glyph { shape: Shape::Last } }
        }
        div { class: "replay-speed", role: "group", "aria-label": r.speed,
            span { class: "muted", "{r.speed}" }
            for (ms, label) in SPEEDS {
                button { key: "{ms}", class: if speed() == ms { "small selected" } else { "small" },
                    "data-speed": label, "aria-pressed": if speed() == ms { "true" } else { "false" },
                    onclick: move |_| speed.set(ms), "{label}" }
            }
        }
        button { class: "wide", "data-action": "share-replay",
            onclick: {
                let url = url.clone();
                move |_| platform::share_link(&url, r.title, shared)
            },
            "{r.share}"
        }
        {shared_link(shared(), &shown_url, r)}
    };
    match frame {
        Frame::Cube(c) => rsx! {
            CubeTable { cube: c, turns: queue(), playing: false, message: None,
                on_act: move |_| {}, on_refuse: move |_| {}, header, {controls} }
        },
        Frame::Classic(b) => rsx! {
            {header}
            ClassicGrid { board: b, enabled: false, onpress: move |_| {} }
            {controls}
        },
        Frame::Ultimate(u) => rsx! {
            {header}
            PointsBar { board: u }
            UltimateGrid { board: u, enabled: false, onpress: move |_| {} }
            {controls}
        },
    }
}

/// The controls' pictures, drawn (fonts on phones lack the media symbols).
#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    First,
    Back,
    Play,
    Pause,
    Forward,
    Last,
}

#[component]
fn Glyph(shape: Shape) -> Element {
    let (triangles, bars): (&[&str], &[(u8, u8)]) = match shape {
        Shape::First => (&["18,4 18,20 7,12"], &[(4, 3)]),
        Shape::Back => (&["17,4 17,20 6,12"], &[]),
        Shape::Play => (&["7,4 7,20 19,12"], &[]),
        Shape::Pause => (&[], &[(6, 4), (14, 4)]),
        Shape::Forward => (&["7,4 7,20 18,12"], &[]),
        Shape::Last => (&["6,4 6,20 17,12"], &[(17, 3)]),
    };
    rsx! {
        svg { class: "glyph", view_box: "0 0 24 24", width: "22", height: "22", "aria-hidden": "true",
            for points in triangles {
                polygon { key: "{points}", points: "{points}", fill: "currentColor" }
            }
            for (x, w) in bars {
                rect { key: "{x}", x: "{x}", y: "4", width: "{w}", height: "16", fill: "currentColor" }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use velha_api::{EndHow, ReplayMove, RoomPlayer};

    fn replay(game: ReplayGame, moves: &[(Seat, &[&str])]) -> Replay {
        let someone = |name: &str| RoomPlayer {
            name: name.into(),
            avatar: None,
        };
        Replay {
            id: "abc".into(),
            game,
            x: someone("Ana"),
            o: someone("Bia"),
            moves: moves
                .iter()
                .map(|(by, actions)| ReplayMove {
                    by: *by,
                    actions: actions.iter().map(|a| a.to_string()).collect(),
                })
                .collect(),
            winner: Some(Seat::X),
            how: EndHow::Line,
        }
    }

    #[test]
    fn on_p01_a_cube_film_has_every_position_and_the_turns_to_animate() {
        let moves: [(Seat, &[&str]); 3] = [
            (Seat::X, &["a1"]),
            (Seat::O, &["S+", "c3"]),
            (Seat::X, &["a2"]),
        ];
        let f = film(&replay(ReplayGame::Cube { level: 2 }, &moves)).unwrap();
        assert_eq!(f.frames.len(), 4);
        assert_eq!(
            f.turns.iter().map(Vec::len).collect::<Vec<_>>(),
            [0, 0, 1, 0]
        );
        let Frame::Cube(end) = f.frames[3] else {
            panic!("a cube")
        };
        let mut by_hand = Cube::new(Level::Two);
        for a in ["a1", "S+", "c3", "a2"] {
            by_hand.play(a.parse().unwrap()).unwrap();
        }
        assert_eq!(end, by_hand);
        // The turn animates from the position after O's tap-free start: ply 1's cube.
        assert_eq!(
            f.turns[2][0].0,
            match f.frames[1] {
                Frame::Cube(c) => c,
                _ => unreachable!(),
            }
        );
    }

    #[test]
    fn on_p01_a_move_against_the_rules_makes_no_film() {
        let out_of_turn: [(Seat, &[&str]); 1] = [(Seat::O, &["a1"])];
        assert_eq!(
            film(&replay(ReplayGame::Cube { level: 1 }, &out_of_turn)),
            None
        );
        let taken: [(Seat, &[&str]); 2] = [(Seat::X, &["b2"]), (Seat::O, &["b2"])];
        let classic = ReplayGame::Classic { starter: Seat::X };
        assert_eq!(film(&replay(classic, &taken)), None);
        let fine: [(Seat, &[&str]); 2] = [(Seat::X, &["b2"]), (Seat::O, &["a1"])];
        assert_eq!(film(&replay(classic, &fine)).unwrap().frames.len(), 3);
        let no_cell: [(Seat, &[&str]); 1] = [(Seat::X, &[])];
        assert_eq!(film(&replay(classic, &no_cell)), None);
    }

    #[test]
    fn ana_01_a_replay_is_analysed_by_its_moves_not_its_resignation_nor_its_lost_turns() {
        let resigned: [(Seat, &[&str]); 3] = [
            (Seat::X, &["b2"]),
            (Seat::O, &["a1"]),
            (Seat::O, &[RESIGN_ACTION]),
        ];
        let r = replay(ReplayGame::Classic { starter: Seat::X }, &resigned);
        let Some(Record::Classic(game)) = record(&r, &film(&r).unwrap()) else {
            panic!("a classic record")
        };
        assert_eq!(game.positions.len(), 3);
        assert_eq!(
            game.played,
            [Some(vec!["b2".to_string()]), Some(vec!["a1".to_string()])]
        );
        assert_eq!(game.winner, Some(Player::X));

        let timed_out: [(Seat, &[&str]); 3] = [
            (Seat::X, &["e5"]),
            (Seat::O, &[TIMEOUT_ACTION]),
            (Seat::X, &["d4"]),
        ];
        let r = replay(ReplayGame::V2 { starter: Seat::X }, &timed_out);
        let Some(Record::Ultimate(game)) = record(&r, &film(&r).unwrap()) else {
            panic!("an ultimate record")
        };
        assert_eq!(game.positions.len(), 4);
        assert_eq!(game.played[1], None, "a lost turn is no move");

        // A film of another game does not fit.
        let other = film(&replay(
            ReplayGame::Classic { starter: Seat::X },
            &resigned[..1],
        ))
        .unwrap();
        assert_eq!(record(&r, &other), None);
    }
}
