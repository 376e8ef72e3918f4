//! "JOGAR COM ALGUÉM" (CLASSIC-R08 … R13, ON-R01 … R05): make a room (on the classic board with
//! a character) and send its link; whoever opens it takes the free seat and plays O, or watches
//! once both seats are taken. Each plays when they can; the room shows every move live. Super
//! and 2.0 rooms run no clock (ON-R04); Super's first game is begun by the coin the server
//! tosses or by the creator's choice (SUPER-R05), and 2.0's players swap symbols every game
//! (V2-R08), so the names beside X and O change.

use dioxus::prelude::*;
use velha_ai::Character;
use velha_api::{Avatar as Pick, ReportAbout, RoomAct, RoomBoard, RoomStarter, RoomView, Seat};
use velha_rules::{Cell, Classic, Player, Ultimate, Variant};

use super::TopBar;
use super::classic::{ClassicGrid, ScoreLine};
use crate::app::{Screen, use_texts};
use crate::components::character::{self, Avatar};
use crate::components::push_row::TurnNotices;
use crate::components::report::ReportButton;
use crate::components::ultimate_grid::{PointsBar, UltimateGrid, sent_text};
use crate::components::warning::warning;
use crate::online::client;
use crate::online::connection::Link;
use crate::online::membership::{Membership, use_membership};
use crate::online::my_data_texts::shown_name;
use crate::online::room_live::{self, use_room_live};
use crate::online::room_texts::{ending_sentence, room_sentence};
use crate::platform;
use crate::request::{Request, use_request};
use crate::screens::replay::ReplayButtons;

/// What the room screen shows.
#[derive(Clone, Debug, PartialEq)]
pub enum RoomGoal {
    /// The form that makes a room of this board.
    Make(RoomBoard),
    /// The room with this id.
    Open(String),
}

/// The room screen's goal, shared by the screens that lead to it.
#[derive(Clone, Copy)]
pub struct RoomTarget(pub Signal<RoomGoal>);

/// The game's name, the room screens' title.
pub fn board_title(t: &'static crate::i18n::Texts, board: RoomBoard) -> &'static str {
    match board {
        RoomBoard::Classic => t.game_classic,
        RoomBoard::Super => t.game_super,
        RoomBoard::V2 => t.game_v2,
    }
}

fn character(p: Pick) -> Character {
    match p {
        Pick::Rabisco => Character::Rabisco,
        Pick::Nino => Character::Nino,
        Pick::Quelonia => Character::Quelonia,
    }
}

const PICKS: [Pick; 3] = [Pick::Rabisco, Pick::Nino, Pick::Quelonia];

fn pick_name(p: Pick) -> &'static str {
    match p {
        Pick::Rabisco => "rabisco",
        Pick::Nino => "nino",
        Pick::Quelonia => "quelonia",
    }
}

/// The game on a room's table, read from the view's state line.
#[derive(Clone, Copy)]
enum Table {
    Classic(Classic),
    Ultimate(Ultimate),
}

impl Table {
    fn of(room: &RoomView) -> Option<Table> {
        match room.board {
            RoomBoard::Classic => room.position.parse().ok().map(Table::Classic),
            RoomBoard::Super => Ultimate::from_state_line(Variant::Super, &room.position)
                .ok()
                .map(Table::Ultimate),
            RoomBoard::V2 => Ultimate::from_state_line(Variant::V2, &room.position)
                .ok()
                .map(Table::Ultimate),
        }
    }
}

/// `2 h 5 min`, or `5 min`.
fn span_of(ms: u64, hours: &str, minutes: &str) -> String {
    // Up to the minute, but the server's "more than 48 h" (its extra millisecond) reads as
    // 48 h, not 48 h 1 min.
    let m = ms.saturating_sub(1).div_ceil(60_000).max(1);
    match m / 60 {
        0 => format!("{m} {minutes}"),
        h => format!("{h} {hours} {} {minutes}", m % 60),
    }
}

/// How long until the player whose turn it is not may end the game for the other's absence
/// (CLASSIC-R12), counted down on the device from the server's count `left` (ms) as it came,
/// so a room left open shows the claim when its time comes, not only on the next news.
#[component]
fn ClaimAbsence(left: u64, other: String, busy: bool, act: Callback<RoomAct>) -> Element {
    let r = use_texts().rooms();
    let came = use_hook(platform::now_ms);
    let mut now = use_signal(platform::now_ms);
    use_future(move || async move {
        loop {
            platform::sleep_ms(15_000).await;
            now.set(platform::now_ms());
        }
    });
    let left = left.saturating_sub((now() - came).max(0.0) as u64);
    if left == 0 {
        rsx! {
            button { class: "wide", "data-action": "claim", disabled: busy,
                onclick: move |_| act.call(RoomAct::ClaimAbsence), "{r.claim}" }
        }
    } else {
        rsx! { p { class: "muted", "data-claim-in": "{left}", "{(r.claim_in)(&other, &span_of(left, r.hours, r.minutes))}" } }
    }
}

/// An invitation room: the form that makes one, or the room a link names.
#[component]
pub fn RoomScreen(go: EventHandler<Screen>) -> Element {
    let target = use_context::<RoomTarget>().0;
    match target() {
        RoomGoal::Make(board) => rsx! { NewRoom { go, board } },
        RoomGoal::Open(id) => {
            let credential = room_live::credential(&id);
            rsx! { RoomPage { key: "{id}", go, id, credential } }
        }
    }
}

/// The classic board's three characters to pick from (less the one taken), and a name.
#[component]
fn PickAndName(
    board: RoomBoard,
    taken: Option<Pick>,
    picked: Signal<Option<Pick>>,
    name: Signal<String>,
    title: &'static str,
) -> Element {
    let t = use_texts();
    if board != RoomBoard::Classic {
        return rsx! { NameField { name } };
    }
    rsx! {
        h2 { "{title}" }
        div { class: "room-picks", role: "group",
            for p in PICKS.into_iter().filter(|p| Some(*p) != taken) {
                // A button in a form submits it unless told otherwise: a pick only picks.
                button { r#type: "button", key: "{pick_name(p)}", class: if picked() == Some(p) { "character-pick selected" } else { "character-pick" },
                    "data-pick": pick_name(p), "aria-pressed": if picked() == Some(p) { "true" } else { "false" },
                    onclick: move |_| picked.set(Some(p)),
                    Avatar { who: character(p), size: 48 }
                    span { class: "pick-text", strong { "{character::name(t, character(p))}" } }
                }
            }
        }
        NameField { name }
    }
}

#[component]
fn NameField(name: Signal<String>) -> Element {
    let r = use_texts().rooms();
    rsx! {
        label { r#for: "room-name", "{r.your_name}" }
        input { id: "room-name", name: "room-name", maxlength: "24", value: "{name}",
            autocomplete: "nickname", oninput: move |e| name.set(e.value()) }
        p { class: "muted hint", "{r.name_hint}" }
    }
}

/// The end of a room's form: why it was refused, and its button.
#[component]
fn FormEnd(
    problem: Option<String>,
    busy: bool,
    action: &'static str,
    label: &'static str,
) -> Element {
    let working = use_texts().online().working;
    rsx! {
        if let Some(says) = problem {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        button { class: "primary wide", r#type: "submit", "data-action": action, disabled: busy,
            if busy { "{working}" } else { "{label}" }
        }
    }
}

#[component]
fn NewRoom(go: EventHandler<Screen>, board: RoomBoard) -> Element {
    let t = use_texts();
    let r = t.rooms();
    let picked = use_signal(|| None::<Pick>);
    let name = use_signal(String::new);
    // SUPER-R05: the coin by default, as on one device; the other boards begin with X.
    let starter = use_signal(|| {
        if board == RoomBoard::Super {
            RoomStarter::CoinToss
        } else {
            RoomStarter::X
        }
    });
    let request: Request = use_request();
    let mut target = use_context::<RoomTarget>().0;
    let create = move |e: Event<FormData>| {
        e.prevent_default();
        if board == RoomBoard::Classic && picked().is_none() {
            request.say(r.choose_yours.into());
            return;
        }
        request.run(async move {
            let made = client::create_room(board, &name(), picked(), starter()).await;
            match made {
                Ok(seat) => {
                    room_live::keep(&seat.room.id, &seat.credential);
                    target.set(RoomGoal::Open(seat.room.id));
                    None
                }
                Err(refused) => Some(room_sentence(r, t.online(), &refused)),
            }
        });
    };
    rsx! {
        TopBar { title: board_title(t, board), go }
        form { class: "room-form", onsubmit: create,
            h2 { "{r.invitation}" }
            PickAndName { board, taken: None, picked, name, title: r.choose_yours }
            if board == RoomBoard::Super {
                StarterPick { starter }
            }
            FormEnd { problem: request.said(), busy: request.busy(), action: "create-room", label: r.create }
        }
    }
}

/// Who begins a Super room's first game: the coin (tossed by the server, so neither player
/// draws it) or the X or O the players agreed on (SUPER-R05).
#[component]
fn StarterPick(starter: Signal<RoomStarter>) -> Element {
    let t = use_texts();
    let choices = [
        (RoomStarter::CoinToss, "coin", t.coin_toss.to_owned()),
        (RoomStarter::X, "X", (t.starts)(Player::X)),
        (RoomStarter::O, "O", (t.starts)(Player::O)),
    ];
    rsx! {
        h2 { "{t.rooms().who_starts}" }
        div { class: "starter", role: "group",
            for (choice, id, label) in choices {
                button { r#type: "button", key: "{id}", "data-starter": id,
                    class: if starter() == choice { "small selected" } else { "small" },
                    "aria-pressed": if starter() == choice { "true" } else { "false" },
                    onclick: move |_| starter.set(choice), "{label}" }
            }
        }
        if starter() == RoomStarter::CoinToss {
            p { class: "muted hint", "{t.rooms().coin_by_server}" }
        }
    }
}

/// A room by its link: join it when its O seat is free and this device has no seat in it,
/// else play or watch it live.
#[component]
fn RoomPage(go: EventHandler<Screen>, id: String, credential: Option<String>) -> Element {
    let t = use_texts();
    let r = t.rooms();
    // The room as first read; or why not, and whether reading it again may show it.
    let mut first = use_signal(|| None::<Result<RoomView, (String, bool)>>);
    // Watching without a seat: both seats were taken, or someone got the free one first.
    let mut watch = use_signal(|| false);
    let read = use_callback({
        let id = id.clone();
        move |()| {
            let id = id.clone();
            first.set(None);
            spawn(async move {
                let answer = client::room(&id).await;
                first.set(Some(
                    answer.map_err(|p| (room_sentence(r, t.online(), &p), p.passing())),
                ));
            });
        }
    });
    use_hook(move || read.call(()));
    let joinable = match first() {
        Some(Ok(room)) => room.o.is_none() && !room.closed,
        _ => false,
    };
    if credential.is_none() && !watch() {
        return match first() {
            None => {
                rsx! { TopBar { title: r.invitation, go } p { class: "muted", role: "status", "{t.online().working}" } }
            }
            Some(Err((says, again))) => rsx! {
                TopBar { title: r.invitation, go }
                {warning(&says, "true",
                    // A second tap before the screen redraws reads no second time.
                    again.then(|| EventHandler::new(move |()| if first.peek().is_some() { read.call(()) })))}
            },
            Some(Ok(room)) if joinable => {
                rsx! { JoinRoom { go, room, lost_seat: move |_| watch.set(true) } }
            }
            // Both seats taken (or the room closed): the link watches.
            Some(Ok(_)) => rsx! { LiveRoom { go, id, credential } },
        };
    }
    rsx! { LiveRoom { key: "{credential.is_some()}", go, id, credential } }
}

#[component]
fn JoinRoom(go: EventHandler<Screen>, room: RoomView, lost_seat: EventHandler<()>) -> Element {
    let t = use_texts();
    let r = t.rooms();
    let picked = use_signal(|| None::<Pick>);
    let name = use_signal(String::new);
    let request: Request = use_request();
    let mut target = use_context::<RoomTarget>().0;
    let id = room.id.clone();
    let taken = room.x.avatar;
    let board = room.board;
    let join = move |e: Event<FormData>| {
        e.prevent_default();
        if board == RoomBoard::Classic && picked().is_none() {
            request.say(r.choose_left.into());
            return;
        }
        let id = id.clone();
        request.run(async move {
            let joined = client::join_room(&id, &name(), picked()).await;
            match joined {
                Ok(seat) => {
                    room_live::keep(&id, &seat.credential);
                    // The screen reads the credential again and shows the room live.
                    target.set(RoomGoal::Open(id));
                    None
                }
                // Someone got in first: the room shows live, to watch.
                Err(client::Problem::Refused(e)) if e.code == velha_api::ErrorCode::Conflict => {
                    lost_seat.call(());
                    None
                }
                Err(refused) => Some(room_sentence(r, t.online(), &refused)),
            }
        });
    };
    rsx! {
        TopBar { title: board_title(t, board), go }
        form { class: "room-form", onsubmit: join,
            h2 { "{r.join_title}" }
            p { class: "room-host", "data-host": "{room.x.name}",
                if let Some(a) = room.x.avatar { Avatar { who: character(a), size: 40 } }
                " {room.x.name} · X"
            }
            PickAndName { board, taken, picked, name, title: r.choose_left }
            FormEnd { problem: request.said(), busy: request.busy(), action: "join-room", label: r.enter }
        }
    }
}

#[component]
fn LiveRoom(go: EventHandler<Screen>, id: String, credential: Option<String>) -> Element {
    let t = use_texts();
    let r = t.rooms();
    let link = use_room_live(id.clone(), credential.clone());
    let membership = use_membership();
    let request: Request = use_request();
    let mut resigning = use_signal(|| false);
    // Whether the link went to the share sheet or the clipboard, once tapped.
    let shared = use_signal(|| None::<bool>);
    let act = {
        let id = id.clone();
        let credential = credential.clone().unwrap_or_default();
        use_callback(move |what: RoomAct| {
            let (id, credential) = (id.clone(), credential.clone());
            request.run(async move {
                let done = client::room_act(&id, &credential, what).await;
                done.err()
                    .map(|refused| room_sentence(r, t.online(), &refused))
            });
        })
    };
    // CLASSIC-R09: the other's move that gives this seat the turn is told by the system when
    // the page is in the background (never the state found on opening the room).
    let mut had_turn = use_hook(|| CopyValue::new(None::<bool>));
    let heard = link.room;
    use_effect(move || {
        let Some(room) = heard() else {
            return;
        };
        let mine = room.you.is_some() && room.to_move == room.you && room.ending.is_none();
        if had_turn.replace(Some(mine)) == Some(false) && mine {
            let o = room.o.as_ref().map(|o| o.name.as_str()).unwrap_or_default();
            let body = format!("{}: {} × {o}", board_title(t, room.board), room.x.name);
            // The service worker's notices of this room have the same tag: one replaces the other.
            platform::alert_turn(r.alert_title, &body, &format!("room-{}", room.id));
        }
    });
    if let Some(code) = (link.refused)()
        && (link.room)().is_none()
    {
        let says = room_sentence(
            r,
            t.online(),
            &client::Problem::Refused(velha_api::ApiError::new(code, "")),
        );
        return rsx! {
            TopBar { title: r.invitation, go }
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        };
    }
    let Some(room) = (link.room)() else {
        return rsx! { TopBar { title: r.invitation, go } p { class: "muted", role: "status", "{t.online().connecting}" } };
    };
    let table = Table::of(&room);
    let you = room.you;
    let mine = |s: Seat| you == Some(s);
    let name_of = |s: Seat| match s {
        Seat::X => room.x.name.clone(),
        Seat::O => room.o.as_ref().map(|o| o.name.clone()).unwrap_or_default(),
    };
    // The rematch and the absence claim name the player in the other seat.
    let (other_name, asked, other_asked) = match you {
        Some(Seat::O) => (name_of(Seat::X), room.rematch[1], room.rematch[0]),
        _ => (name_of(Seat::O), room.rematch[0], room.rematch[1]),
    };
    let (status_key, status_text) = match (room.ending, room.to_move) {
        (Some(end), _) => {
            let key = match end.winner {
                None => "draw",
                Some(w) if mine(w) => "won",
                Some(_) if you.is_some() => "lost",
                Some(_) => "over",
            };
            let names = [name_of(Seat::X), name_of(Seat::O)];
            (key, ending_sentence(r, end, you, [&names[0], &names[1]]))
        }
        (None, Some(s)) if mine(s) => ("your-turn", r.your_turn.to_owned()),
        (None, Some(s)) => ("their-turn", (r.turn_of)(&name_of(s))),
        (None, None) => ("waiting", r.waiting.to_owned()),
    };
    let playing = room.ending.is_none() && room.to_move.is_some() && !room.closed;
    let my_turn = playing && room.to_move.is_some_and(mine) && !request.busy();
    let url = platform::link_to(&format!("/sala/{}", room.id));
    let shown_url = url.clone();
    let starter = Player::from(room.starter);
    let series = room.series;
    // A seated player signed in may report the other seat's once it is taken.
    let report = credential
        .clone()
        .filter(|_| you.is_some() && room.o.is_some())
        .filter(|_| matches!(membership(), Membership::Member(_)))
        .map(|credential| ReportAbout::Room {
            id: room.id.clone(),
            credential,
        });
    let (wins, losses) = if you == Some(Seat::O) {
        (series[1], series[0])
    } else {
        (series[0], series[1])
    };
    rsx! {
        TopBar { title: board_title(t, room.board), go }
        if (link.link)() != Link::Up {
            p { class: "banner", role: "status", "data-link": "down", "{r.reconnecting}" }
        }
        p { class: "players",
            span { "data-player": "X",
                if let Some(a) = room.x.avatar { Avatar { who: character(a), size: 32 } }
                " X · {shown_name(&room.x.name, t.pt)}"
            }
            " × "
            span { "data-player": "O", "data-seat": if room.o.is_none() { "free" } else { "taken" },
                if let Some(a) = room.o.as_ref().and_then(|o| o.avatar) { Avatar { who: character(a), size: 32 } }
                " O · {room.o.as_ref().map_or(r.seat_free, |o| shown_name(&o.name, t.pt))}"
            }
        }
        p { class: "status", role: "status", "aria-live": "polite", "data-status": status_key, "{status_text}" }
        // The coin is the server's: the creator learns the toss here, before the guest comes.
        if room.board == RoomBoard::Super && room.o.is_none() {
            p { class: "muted", "data-first-starter": "{starter}", "{r.first_game}: {(t.starts)(starter)}" }
        }
        if you.is_none() {
            p { class: "muted", "data-watching": "true", "{(r.watching)(room.spectators)}" }
        } else if room.spectators > 0 {
            p { class: "muted", "data-spectators": "{room.spectators}", "{(r.spectators)(room.spectators)}" }
        }
        if room.closed {
            p { class: "banner", "data-closed": "true", "{r.closed}" }
        }
        if room.o.is_none() && mine(Seat::X) {
            section { class: "invite-link",
                p { "{r.send_link}" }
                p { class: "link", "data-link-url": "{shown_url}", "{shown_url}" }
                button { class: "primary wide", "data-action": "share",
                    onclick: move |_| platform::share_link(&url, r.invitation, shared),
                    "{r.share}"
                }
                if shared() == Some(true) { p { class: "ok", role: "status", "{r.shared}" } }
            }
        }
        match table {
            Some(Table::Classic(b)) => rsx! {
                ClassicGrid { board: b, enabled: my_turn,
                    onpress: move |cell: Cell| act.call(RoomAct::Play { cell: cell.to_string() }) }
            },
            Some(Table::Ultimate(b)) => rsx! {
                if playing {
                    p { class: "hint", "data-sent": "{b.sent_board().map(|n| n + 1).unwrap_or(0)}", "{sent_text(&b)}" }
                }
                PointsBar { board: b }
                UltimateGrid { board: b, enabled: my_turn,
                    onpress: move |cell: velha_rules::UltCell| act.call(RoomAct::Play { cell: cell.to_string() }) }
            },
            None => rsx! {},
        }
        if you.is_some() {
            ScoreLine { wins, draws: series[2], losses }
        } else {
            p { class: "series", "data-series-of": "seats",
                span { "data-series": "x", "data-count": "{series[0]}", {(r.wins_of)(&room.x.name, series[0])} } " · "
                span { "data-series": "o", "data-count": "{series[1]}",
                    {(r.wins_of)(room.o.as_ref().map_or(r.seat_free, |o| o.name.as_str()), series[1])} }
                " · "
                span { "data-series": "draws", "data-count": "{series[2]}", "{(t.draws)(series[2])}" }
            }
        }
        if let Some(says) = request.said() {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        if room.ending.is_some() && room.games > 0 {
            ReplayButtons { id: format!("{}/{}", room.id, room.games), go }
        }
        if you.is_some() && room.ending.is_some() && !room.closed {
            if asked {
                p { class: "muted", "data-rematch": "asked", "{(r.rematch_asked)(&other_name)}" }
            } else if other_asked {
                p { class: "ok", role: "status", "data-rematch": "offered", "{(r.rematch_offered)(&other_name)}" }
                button { class: "primary wide", "data-action": "rematch", disabled: request.busy(),
                    onclick: move |_| act.call(RoomAct::Rematch), "{r.accept_rematch}" }
            } else {
                button { class: "primary wide", "data-action": "rematch", disabled: request.busy(),
                    onclick: move |_| act.call(RoomAct::Rematch), "{r.rematch}" }
            }
        }
        if you.is_some() {
            TurnNotices { offer: playing && !room.to_move.is_some_and(mine) }
        }
        if you.is_some() && playing {
            if let (Some(left), false) = (room.claim_in_ms, room.to_move.is_some_and(mine)) {
                // A new count from the server is a new clock.
                ClaimAbsence { key: "{left}", left, other: other_name.clone(), busy: request.busy(), act }
            }
            if resigning() {
                div { class: "confirm ask", role: "alertdialog", "data-asking": "resign",
                    p { "{r.resign_confirm}" }
                    // A move or a claim under way first: the resignation is not dropped unseen.
                    button { class: "danger", "data-action": "confirm", disabled: request.busy(), onclick: move |_| {
                        resigning.set(false);
                        act.call(RoomAct::Resign);
                    }, "{r.resign}" }
                    button { onclick: move |_| resigning.set(false), "{t.no}" }
                }
            } else {
                button { class: "wide danger", "data-action": "resign", onclick: move |_| resigning.set(true), "{r.resign}" }
            }
        }
        if let Some(about) = report {
            ReportButton { about, name: other_name.clone() }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classic_r12_the_time_left_to_claim_reads_in_hours_and_minutes() {
        assert_eq!(span_of(90 * 60_000, "h", "min"), "1 h 30 min");
        assert_eq!(span_of(59_001, "h", "min"), "1 min");
        assert_eq!(span_of(2 * 86_400_000, "h", "min"), "48 h 0 min");
        // The server's count right after a move: "more than 2 days".
        assert_eq!(span_of(2 * 86_400_000 + 1, "h", "min"), "48 h 0 min");
        assert_eq!(span_of(1, "h", "min"), "1 min");
    }
}
