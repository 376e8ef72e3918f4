//! The online half of the app's screens behind five doors, how to play behind a sixth (one for
//! each language), the post-game analysis behind a seventh and the reading of a kept local game
//! behind an eighth. On the web each is a wasm module of its own (split off the app's by
//! `scripts/build-web.sh` at [`account_part`], [`settings_part`], [`lobby_part`],
//! [`match_part`], [`online_part`], [`howto_part`], [`howto_en_part`], [`analysis_part`] and
//! [`kept_part`]), fetched right after the first screen (the analysis when a panel first shows)
//! and whenever a screen of it opens first, so the first visit downloads only home and the
//! local games. The account screen (what a guest meets from home and behind online play's gate,
//! which is the app's) has a small module, so it opens soon even when tapped before anything
//! else came; the lobby (what a subscriber meets behind the gate) has another, which also reads
//! the server's answer about a kept session, so a kept session does not wait for the rest; the
//! player's match (waiting, live, 2.0's) has the next, fetched right after it; the account's
//! own pages (password and devices, the player's data, the subscription, the e-mail's links)
//! have one; rooms, rankings, groups, replays and 2.0's competitive mode have the big one; how
//! to play (the four games' rules, the app's longest texts) has one of its own in each
//! language, and a device fetches only its language's. Whatever only one module's screens reach
//! goes with it; what several reach (the server's client, the API's serde) goes to shared
//! chunks the loader fetches with whichever comes first; what home and the local games share
//! with them stays in the app's module. On native nothing is split: the doors are always open.

use dioxus::prelude::*;
use velha_api::{MatchState, RoomBoard};

use std::cell::Cell;
use std::future::Future;
use std::pin::Pin;
use std::thread::LocalKey;

use crate::analysis::Record;
use crate::app::{Game, LeaveGuard, Screen, use_texts};
use crate::components::hint::KeptHints;
use crate::i18n::Texts;
use crate::local::classic::ClassicSession;
use crate::local::cube::CubeSession;
use crate::local::ultimate::UltimateSession;
use crate::online::live::Live;
use crate::online::live_state::Game as LiveGame;
use crate::online::membership::Membership;
use crate::route::Route;
use crate::screens::TopBar;

/// What the online modules draw: a screen, or a part of a screen of another module.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Part {
    /// A whole online screen (the account, rooms, rankings…) or how to play.
    Screen(Screen),
    /// The lobby (the lobby's module's), shown by online play's gate (the app's module's) to a
    /// subscriber.
    Lobby,
    /// The player's invitation rooms of a game, on its local screen (ON-R05).
    Rooms(RoomBoard),
    /// The moderation's notice that the signed-in player was renamed, on home.
    RenameNotice,
    /// The app's room connection, which the shell holds across the room screens.
    RoomConnection,
}

/// What the online module does for the app's module: draws a part with the app's navigation.
#[derive(Clone, Copy)]
pub struct Door {
    pub draw: fn(Part, EventHandler<Screen>) -> Element,
}

/// What the lobby's module does for the app's module.
#[derive(Clone, Copy)]
pub struct LobbyDoor {
    /// Draws the lobby (and, through the match's module, the player's match) with the app's
    /// navigation.
    pub draw: fn(EventHandler<Screen>) -> Element,
    /// Where a signed-in player who starts the app again goes back to, if anywhere.
    pub resume: fn(Signal<Screen>) -> Later<Option<Route>>,
    /// What the server's answer to `GET /api/me` says of the kept session.
    pub session: fn(crate::platform::Answer) -> Later<Membership>,
}

/// What the account's module does for the app's module: draws the account screen with the
/// app's navigation.
#[derive(Clone, Copy)]
pub struct AccountDoor {
    pub draw: fn(EventHandler<Screen>) -> Element,
}

/// An answer that comes later.
pub type Later<T> = Pin<Box<dyn Future<Output = T>>>;

/// The split point: everything only reachable from here is the online module.
#[wasm_split_helpers::wasm_split(online, fallible)]
fn online_part() -> Result<Door, wasm_split_helpers::SplitLoaderError> {
    Ok(DOOR)
}

const DOOR: Door = Door { draw };

/// The lobby's split point.
#[wasm_split_helpers::wasm_split(lobby, fallible)]
fn lobby_part() -> Result<LobbyDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(LOBBY_DOOR)
}

const LOBBY_DOOR: LobbyDoor = LobbyDoor {
    draw: draw_lobby,
    resume: crate::app::resume,
    session: crate::online::membership::session,
};

/// Names the lobby for the lobby's module; the groups screen names it too, so it lands in the
/// chunk the two share, never in the app's module.
fn draw_lobby(go: EventHandler<Screen>) -> Element {
    use crate::screens::online::Online;
    rsx! { Online { go, group: None } }
}

/// What the match's module does for the lobby's: draws the player's match.
#[derive(Clone, Copy)]
pub struct MatchDoor {
    pub draw: fn(Live, EventHandler<Screen>, LiveGame) -> Element,
}

/// The match's split point: the lobby's module reaches the match's screens only through it.
#[wasm_split_helpers::wasm_split(live_match, fallible)]
fn match_part() -> Result<MatchDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(MATCH_DOOR)
}

const MATCH_DOOR: MatchDoor = MatchDoor {
    draw: crate::screens::online::draw_match,
};

/// The account's split point.
#[wasm_split_helpers::wasm_split(account, fallible)]
fn account_part() -> Result<AccountDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(ACCOUNT_DOOR)
}

const ACCOUNT_DOOR: AccountDoor = AccountDoor { draw: draw_account };

/// What the settings' module does for the app's module: draws one of the account's own pages
/// (password and devices, the player's data, the subscription, the e-mail's links) with the
/// app's navigation.
#[derive(Clone, Copy)]
pub struct SettingsDoor {
    pub draw: fn(Screen, EventHandler<Screen>) -> Element,
}

/// The settings' split point.
#[wasm_split_helpers::wasm_split(settings, fallible)]
fn settings_part() -> Result<SettingsDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(SETTINGS_DOOR)
}

const SETTINGS_DOOR: SettingsDoor = SettingsDoor {
    draw: draw_settings,
};

thread_local! {
    /// The online module's door once it is here; on native from the start (nothing is split).
    static ONLINE: Cell<Option<Door>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(DOOR) }) };
    /// The account's module's door, the same way.
    static ACCOUNT: Cell<Option<AccountDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(ACCOUNT_DOOR) }) };
    /// The lobby's module's door, the same way.
    static LOBBY: Cell<Option<LobbyDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(LOBBY_DOOR) }) };
    /// The match's module's door, the same way.
    static MATCH: Cell<Option<MatchDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(MATCH_DOOR) }) };
    /// The settings' module's door, the same way.
    static SETTINGS: Cell<Option<SettingsDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(SETTINGS_DOOR) }) };
}

/// Fetches the online module (once; a failure is tried again by the next call).
pub async fn load() -> Option<Door> {
    open(&ONLINE, online_part).await
}

/// Fetches the account's module, the same way.
pub async fn load_account() -> Option<AccountDoor> {
    open(&ACCOUNT, account_part).await
}

/// Fetches the lobby's module, the same way.
pub async fn load_lobby() -> Option<LobbyDoor> {
    open(&LOBBY, lobby_part).await
}

/// Fetches the match's module, the same way.
pub async fn load_match() -> Option<MatchDoor> {
    open(&MATCH, match_part).await
}

/// Fetches the settings' module, the same way.
pub async fn load_settings() -> Option<SettingsDoor> {
    open(&SETTINGS, settings_part).await
}

/// What a how-to module does for the app's module: draws a game's rules with the app's
/// navigation.
#[derive(Clone, Copy)]
pub struct HowToDoor {
    /// Draws the rules of a game.
    pub draw: fn(Game, EventHandler<Screen>) -> Element,
}

/// How to play's split point: the rules in Brazilian Portuguese.
#[wasm_split_helpers::wasm_split(howto, fallible)]
fn howto_part() -> Result<HowToDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(HOWTO_DOOR)
}

/// How to play's split point in English: each language's rules a module of their own, so a
/// device fetches only the rules it reads.
#[wasm_split_helpers::wasm_split(howto_en, fallible)]
fn howto_en_part() -> Result<HowToDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(HOWTO_EN_DOOR)
}

const HOWTO_DOOR: HowToDoor = HowToDoor { draw: draw_howto };
const HOWTO_EN_DOOR: HowToDoor = HowToDoor {
    draw: draw_howto_en,
};

/// The only place that names the Portuguese rules, so only their module holds them.
fn draw_howto(game: Game, go: EventHandler<Screen>) -> Element {
    use crate::screens::howto::{HowTo, portuguese};
    rsx! { HowTo { game, rules: portuguese(game), go } }
}

/// The only place that names the English rules, so only their module holds them.
fn draw_howto_en(game: Game, go: EventHandler<Screen>) -> Element {
    use crate::screens::howto::{HowTo, english};
    rsx! { HowTo { game, rules: english(game), go } }
}

thread_local! {
    /// The Portuguese how-to module's door once it is here; on native from the start.
    static HOWTO: Cell<Option<HowToDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(HOWTO_DOOR) }) };
    /// The English how-to module's door, the same way.
    static HOWTO_EN: Cell<Option<HowToDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(HOWTO_EN_DOOR) }) };
}

/// Fetches a how-to module: a split function's future, boxed so that either language's fits.
type FetchHowTo = fn() -> Later<Result<HowToDoor, wasm_split_helpers::SplitLoaderError>>;

/// Where the how-to module in Portuguese (`pt`) or English is kept, and how it is fetched.
fn howto_in(pt: bool) -> (&'static LocalKey<Cell<Option<HowToDoor>>>, FetchHowTo) {
    if pt {
        (&HOWTO, || Box::pin(howto_part()))
    } else {
        (&HOWTO_EN, || Box::pin(howto_en_part()))
    }
}

/// Fetches the how-to module of the texts' language, the same way.
pub async fn load_howto(t: &Texts) -> Option<HowToDoor> {
    load_howto_in(t.pt).await
}

/// Fetches the how-to module in Portuguese (`pt`) or English, the same way.
async fn load_howto_in(pt: bool) -> Option<HowToDoor> {
    let (kept, fetch) = howto_in(pt);
    open(kept, fetch).await
}

/// A game's rules, from the how-to module of the texts' language.
#[component]
fn HowToPart(game: Game, go: EventHandler<Screen>) -> Element {
    let pt = use_texts().pt;
    let fetch: Fetch = if pt {
        || Box::pin(async { load_howto_in(true).await.is_some() })
    } else {
        || Box::pin(async { load_howto_in(false).await.is_some() })
    };
    let fetching = use_fetching(howto_in(pt).0, fetch);
    if let Some(open) = fetching.door() {
        return (open.draw)(game, go);
    }
    rsx! { Loading { failed: fetching.failed, tries: fetching.tries, go } }
}

/// A part of the online screens, or how to play: drawn once its module is here. A screen says
/// it is loading meanwhile, and offers to try again when the module could not be fetched.
#[component]
pub fn Online(part: Part, go: EventHandler<Screen>) -> Element {
    match part {
        Part::Screen(Screen::Account) => rsx! { AccountPart { go } },
        Part::Screen(Screen::HowTo(game)) => rsx! { HowToPart { game, go } },
        Part::Lobby => rsx! { LobbyPart { go } },
        Part::Screen(
            screen @ (Screen::Security
            | Screen::MyData
            | Screen::Subscription
            | Screen::ConfirmingPayment
            | Screen::ConfirmEmail
            | Screen::NewPassword),
        ) => rsx! { SettingsPart { screen, go } },
        part => rsx! { OnlinePart { part, go } },
    }
}

/// The account screen, from the account's module.
#[component]
fn AccountPart(go: EventHandler<Screen>) -> Element {
    let fetching = use_fetching(&ACCOUNT, || {
        Box::pin(async { load_account().await.is_some() })
    });
    if let Some(open) = fetching.door() {
        return (open.draw)(go);
    }
    rsx! { Loading { failed: fetching.failed, tries: fetching.tries, go } }
}

/// One of the account's own pages, from the settings' module.
#[component]
fn SettingsPart(screen: Screen, go: EventHandler<Screen>) -> Element {
    let fetching = use_fetching(&SETTINGS, || {
        Box::pin(async { load_settings().await.is_some() })
    });
    if let Some(open) = fetching.door() {
        return (open.draw)(screen, go);
    }
    rsx! { Loading { failed: fetching.failed, tries: fetching.tries, go, up: screen.up() } }
}

/// The lobby, from the lobby's module, in online play's gate.
#[component]
fn LobbyPart(go: EventHandler<Screen>) -> Element {
    let fetching = use_fetching(&LOBBY, || Box::pin(async { load_lobby().await.is_some() }));
    if let Some(open) = fetching.door() {
        return (open.draw)(go);
    }
    rsx! { Loading { failed: fetching.failed, tries: fetching.tries, go } }
}

/// The player's match, from the match's module, in the lobby's (or the mini ranking's)
/// place.
#[component]
pub fn MatchPart(live: Live, go: EventHandler<Screen>, game: LiveGame) -> Element {
    let fetching = use_fetching(&MATCH, || Box::pin(async { load_match().await.is_some() }));
    // Until the match's screens come (a reload mid-match resumes into it), leaving a live
    // match asks first all the same: back is held, and the match's screen asks as soon as it
    // shows. A module that could not be fetched lets the player go.
    let LeaveGuard { mut armed, asked } = use_context::<LeaveGuard>();
    let here = fetching.door().is_some();
    let failed = (fetching.failed)();
    let holding = !here && !failed && game.view.state == MatchState::Live;
    use_effect(use_reactive(
        (&holding, &failed),
        move |(holding, failed)| {
            if holding {
                armed.set(true);
            } else if failed {
                armed.set(false);
            }
        },
    ));
    use_drop(move || {
        let (mut armed, mut asked) = (armed, asked);
        armed.set(false);
        asked.set(false);
    });
    if let Some(open) = fetching.door() {
        return (open.draw)(live, go, game);
    }
    let leave = move |to: Screen| {
        if holding {
            let mut asked = asked;
            asked.set(true);
        } else {
            go.call(to);
        }
    };
    rsx! { Loading { failed: fetching.failed, tries: fetching.tries, go: leave } }
}

/// A part from the online module.
#[component]
fn OnlinePart(part: Part, go: EventHandler<Screen>) -> Element {
    let fetching = use_fetching(&ONLINE, || Box::pin(async { load().await.is_some() }));
    if let Some(open) = fetching.door() {
        return (open.draw)(part, go);
    }
    // Parts of another module's screen wait unseen; a whole screen says it is loading.
    if !matches!(part, Part::Screen(_)) {
        return rsx! {};
    }
    rsx! { Loading { failed: fetching.failed, tries: fetching.tries, go } }
}

/// A screen whose module is on its way, or could not be fetched (then it offers to try again);
/// its "Voltar" leads `up`, as the screen's own would.
#[component]
fn Loading(
    mut failed: Signal<bool>,
    mut tries: Signal<u32>,
    go: EventHandler<Screen>,
    #[props(default = Screen::Home)] up: Screen,
) -> Element {
    let t = use_texts();
    #[cfg(target_arch = "wasm32")]
    let (loading, not_loaded) = (t.screen_loading, t.screen_not_loaded);
    #[cfg(not(target_arch = "wasm32"))]
    let (loading, not_loaded) = ("", "");
    rsx! {
        TopBar { title: String::new(), go, up }
        if failed() {
            p { class: "warning", role: "alert", "data-problem": "screen-not-loaded", "{not_loaded}" }
            button { class: "primary wide", "data-action": "retry-screen",
                onclick: move |_| {
                    failed.set(false);
                    tries += 1;
                },
                "{t.try_again}"
            }
        } else {
            p { class: "muted", role: "status", "data-loading": "screen", "{loading}" }
        }
    }
}

/// Draws the account screen: the only place that names it, so only the account's module holds
/// it.
fn draw_account(go: EventHandler<Screen>) -> Element {
    use crate::screens::account::AccountScreen;
    rsx! { AccountScreen { go } }
}

/// Draws one of the account's own pages: the only place that names them, so only the
/// settings' module holds them.
fn draw_settings(screen: Screen, go: EventHandler<Screen>) -> Element {
    use crate::screens::{
        email_links::{ConfirmEmailScreen, NewPasswordScreen},
        my_data::MyDataScreen,
        security::SecurityScreen,
        subscription::{ConfirmingPaymentScreen, SubscriptionScreen},
    };
    match screen {
        Screen::Subscription => rsx! { SubscriptionScreen { go } },
        Screen::ConfirmingPayment => rsx! { ConfirmingPaymentScreen { go } },
        Screen::ConfirmEmail => rsx! { ConfirmEmailScreen { go } },
        Screen::NewPassword => rsx! { NewPasswordScreen { go } },
        Screen::Security => rsx! { SecurityScreen { go } },
        Screen::MyData => rsx! { MyDataScreen { go } },
        // Never asked of this module: [`Online`] sends it only the pages above.
        Screen::Home
        | Screen::Play(_)
        | Screen::HowTo(_)
        | Screen::Account
        | Screen::Online
        | Screen::Ranking
        | Screen::Groups
        | Screen::Room
        | Screen::Replay
        | Screen::Competitive => rsx! {},
    }
}

/// Draws a part: the only place that names the other online screens, so only the online
/// module holds them.
fn draw(part: Part, go: EventHandler<Screen>) -> Element {
    use crate::components::{rename_notice::RenameNotice, room_list::RoomList};
    use crate::online::room_live::RoomConnection;
    use crate::screens::{
        competitive::CompetitiveScreen, groups::GroupsScreen, ranking::RankingScreen,
        replay::ReplayScreen, room::RoomScreen,
    };
    match part {
        Part::Screen(screen) => match screen {
            Screen::Ranking => rsx! { RankingScreen { go } },
            Screen::Groups => rsx! { GroupsScreen { go } },
            Screen::Room => rsx! { RoomScreen { go } },
            Screen::Replay => rsx! { ReplayScreen { go } },
            Screen::Competitive => rsx! { CompetitiveScreen { go } },
            // Never asked of this module: home, the local games and online play's gate are the
            // app's module's; the account the account's module's; how to play its own module's;
            // the account's own pages the settings' module's.
            Screen::Home
            | Screen::Play(_)
            | Screen::HowTo(_)
            | Screen::Account
            | Screen::Online
            | Screen::Security
            | Screen::MyData
            | Screen::Subscription
            | Screen::ConfirmingPayment
            | Screen::ConfirmEmail
            | Screen::NewPassword => rsx! {},
        },
        // Never asked of this module either: the lobby is the lobby's module's.
        Part::Lobby => rsx! {},
        Part::Rooms(board) => rsx! { RoomList { go, board } },
        Part::RenameNotice => rsx! { RenameNotice {} },
        Part::RoomConnection => rsx! { RoomConnection {} },
    }
}

/// What the analysis module draws (ANA-08): a finished game's analysis panel. On the web it is
/// a wasm module of its own, fetched when a panel first shows, so neither the first visit nor
/// the online screens carry the analysis; on native nothing is split.
#[derive(Clone, Copy)]
pub struct AnalysisDoor {
    /// Draws the panel of `record`, kept as `id`'s, at position `step`, going to the position
    /// picked on its graph; `at_once` starts the analysis without asking.
    pub draw: fn(Record, String, usize, bool, EventHandler<usize>) -> Element,
}

/// The analysis's split point.
#[wasm_split_helpers::wasm_split(analysis, fallible)]
fn analysis_part() -> Result<AnalysisDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(ANALYSIS_DOOR)
}

const ANALYSIS_DOOR: AnalysisDoor = AnalysisDoor {
    draw: draw_analysis,
};

fn draw_analysis(
    record: Record,
    id: String,
    step: usize,
    at_once: bool,
    on_pick: EventHandler<usize>,
) -> Element {
    use crate::components::analysis_panel::AnalysisPanel;
    rsx! { AnalysisPanel { record, id, step, at_once, on_pick } }
}

thread_local! {
    /// The analysis module's door once it is here; on native from the start.
    static ANALYSIS: Cell<Option<AnalysisDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(ANALYSIS_DOOR) }) };
}

/// Fetches a split module with `fetch` unless `kept` has its door already, and keeps it
/// there (a failure is tried again by the next call).
async fn open<D: Copy + 'static, E, F: Future<Output = Result<D, E>>>(
    kept: &'static LocalKey<Cell<Option<D>>>,
    fetch: fn() -> F,
) -> Option<D> {
    if let Some(door) = kept.get() {
        return Some(door);
    }
    let door = fetch().await.ok()?;
    kept.set(Some(door));
    Some(door)
}

/// What the kept games' module does for the app's module: reads a local game the device kept
/// (`local/kept.rs`) and its hints. Only a reload, or a return to a game, needs it, so it is
/// not in the first download; it comes first after the first screen when the device keeps a
/// game (app.rs), and a game's screen waits for it only when the device keeps a game of its
/// own and it has not come yet ([`LocalGame`]).
#[derive(Clone, Copy)]
pub struct KeptDoor {
    pub classic: fn(&str) -> Option<ClassicSession>,
    /// A Super (`false`) or 2.0 session, its turns this long, read at this time.
    pub ultimate: fn(&str, bool, u64, u64) -> Option<UltimateSession>,
    pub cube: fn(&str) -> Option<CubeSession>,
    /// The hints a kept game used, and the one shown.
    pub hints: fn(&str) -> Option<KeptHints>,
}

/// The kept games' split point.
#[wasm_split_helpers::wasm_split(kept, fallible)]
fn kept_part() -> Result<KeptDoor, wasm_split_helpers::SplitLoaderError> {
    Ok(KEPT_DOOR)
}

const KEPT_DOOR: KeptDoor = KeptDoor {
    classic: ClassicSession::from_kept,
    ultimate: UltimateSession::from_kept,
    cube: CubeSession::from_kept,
    hints: crate::components::hint::read_kept,
};

thread_local! {
    /// The kept games' module's door once it is here; on native from the start.
    static KEPT_READER: Cell<Option<KeptDoor>> = const { Cell::new(if cfg!(target_arch = "wasm32") { None } else { Some(KEPT_DOOR) }) };
}

/// Fetches the kept games' module, the same way.
pub async fn load_kept() -> Option<KeptDoor> {
    open(&KEPT_READER, kept_part).await
}

/// The kept games' module's door, if it is here.
pub fn kept_door() -> Option<KeptDoor> {
    KEPT_READER.get()
}

/// Whether the device keeps a local game of this kind.
fn keeps(game: Game) -> bool {
    let name = match game {
        Game::Cube => crate::local::cube::KEPT,
        Game::Classic => crate::local::classic::KEPT,
        Game::Super => UltimateSession::kept_name(false),
        Game::V2 => UltimateSession::kept_name(true),
    };
    crate::platform::load(&crate::local::kept::key(name)).is_some()
}

/// Whether the device keeps any local game: only then may a reload land on a screen that
/// waits for the kept games' module.
pub fn keeps_a_game() -> bool {
    [Game::Cube, Game::Classic, Game::Super, Game::V2]
        .into_iter()
        .any(keeps)
}

/// A local game's screen: at once, unless the device keeps a game of it and the module that
/// reads it has not come (a reload on a game's screen on a slow network); then it says it is
/// loading, as an online screen does, rather than show a new game and lose the kept one.
#[component]
pub fn LocalGame(game: Game, go: EventHandler<Screen>) -> Element {
    use crate::screens::{classic::ClassicScreen, cube::CubeScreen, ultimate::UltimateScreen};
    let kept = use_hook(|| keeps(game));
    // Nothing kept, nothing to wait for: the reader then comes after the other screens'
    // modules (app.rs), not beside them.
    let (ready, failed, tries) = use_fetched(!kept || KEPT_READER.get().is_some(), || {
        Box::pin(async { load_kept().await.is_some() })
    });
    if !ready() {
        return rsx! { Loading { failed, tries, go } };
    }
    match game {
        Game::Cube => rsx! { CubeScreen { go } },
        Game::Classic => rsx! { ClassicScreen { go } },
        Game::Super => rsx! { UltimateScreen { v2: false, go } },
        Game::V2 => rsx! { UltimateScreen { v2: true, go } },
    }
}

/// A split module being fetched for a part of a screen: its door once here, whether the
/// last fetch failed, and a count the part raises to fetch again.
struct Fetching<D: 'static> {
    kept: &'static LocalKey<Cell<Option<D>>>,
    here: Signal<bool>,
    failed: Signal<bool>,
    tries: Signal<u32>,
}

impl<D: Copy> Fetching<D> {
    /// The door, once its module is here (read as a signal: the part is drawn again then).
    fn door(&self) -> Option<D> {
        (self.here)().then(|| self.kept.get()).flatten()
    }
}

/// Fetches a split module, saying whether it is here now (its door kept by [`open`]).
type Fetch = fn() -> Later<bool>;

/// Fetches the module whose door `kept` keeps with `fetch`, unless it is here already, and
/// again whenever `tries` is raised.
fn use_fetching<D: Copy + 'static>(
    kept: &'static LocalKey<Cell<Option<D>>>,
    fetch: Fetch,
) -> Fetching<D> {
    let (here, failed, tries) = use_fetched(kept.get().is_some(), fetch);
    Fetching {
        kept,
        here,
        failed,
        tries,
    }
}

/// [`use_fetching`]'s hooks. Not generic: each door's own copy of them (its signals, its
/// effect, its task) cost the app's first download about 8 KB.
fn use_fetched(here_now: bool, fetch: Fetch) -> (Signal<bool>, Signal<bool>, Signal<u32>) {
    let mut here = use_signal(|| here_now);
    let mut failed = use_signal(|| false);
    let tries = use_signal(|| 0_u32);
    use_effect(move || {
        let _ = tries();
        if *here.peek() {
            return;
        }
        spawn(async move {
            if fetch().await {
                here.set(true);
            } else {
                failed.set(true);
            }
        });
    });
    (here, failed, tries)
}

/// A game's analysis panel, drawn once the analysis module is here: until then "Analisar"
/// waits, and offers to try again when the module could not be fetched.
#[component]
pub fn Analysis(
    record: Record,
    id: String,
    step: usize,
    #[props(default)] at_once: bool,
    on_pick: EventHandler<usize>,
) -> Element {
    let t = use_texts();
    let fetching = use_fetching(&ANALYSIS, || {
        Box::pin(async { open(&ANALYSIS, analysis_part).await.is_some() })
    });
    let (mut failed, mut tries) = (fetching.failed, fetching.tries);
    if let Some(open) = fetching.door() {
        return (open.draw)(record, id, step, at_once, on_pick);
    }
    if failed() {
        return rsx! {
            p { class: "warning", role: "alert", "data-problem": "analysis-not-loaded", "{t.analysis.not_loaded}" }
            button { class: "wide", "data-action": "retry-analysis",
                onclick: move |_| {
                    failed.set(false);
                    tries += 1;
                },
                "{t.analysis.analyse} · {t.try_again}"
            }
        };
    }
    rsx! {
        button { class: "wide", "data-action": "analyse", "data-loading": "analysis", disabled: true,
            "{t.analysis.analyse}"
        }
    }
}
