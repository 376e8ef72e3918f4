//! The app's shell: which screen is showing, the language, the styles.

use dioxus::prelude::*;
use velha_api::{MatchGame, MatchState, RoomBoard};

use futures_util::StreamExt;

use crate::i18n::{Texts, texts_for_locale};
use crate::lazy::{LocalGame, Online, Part};
use crate::online::client;
use crate::online::membership::{Membership, use_membership_provider};
use crate::online::room_live::RoomShared;
use crate::platform;
use crate::route::{GroupPart, Route};
use crate::screens::{
    home::Home,
    online::OnlineScreen,
    replay::ReplayTarget,
    room::{RoomGoal, RoomTarget},
};

/// The four games.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Game {
    /// Cubo da Velha.
    Cube,
    /// Jogo da Velha.
    Classic,
    /// Super Jogo da Velha.
    Super,
    /// Jogo da Velha 2.0.
    V2,
}

/// What fills the screen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Screen {
    /// The home screen.
    Home,
    /// A game.
    Play(Game),
    /// A game's rules.
    HowTo(Game),
    /// Signing in, or the player's account.
    Account,
    /// Online play: the lobby and live matches.
    Online,
    /// The world and national rankings.
    Ranking,
    /// The mini ranking: the player's groups.
    Groups,
    /// An invitation room (`RoomTarget` says which), or making one.
    Room,
    /// A finished game's replay (`ReplayTarget` says which).
    Replay,
    /// Jogo da Velha 2.0's competitive mode: the queue, the match, the leaderboard.
    Competitive,
    /// The subscription: what it opens, its price, subscribing and managing it (ON-A03).
    Subscription,
    /// Back from the payment provider's checkout: waiting for the payment's confirmation.
    ConfirmingPayment,
    /// A confirmation link from the e-mail, opened.
    ConfirmEmail,
    /// A new-password link from the e-mail, opened.
    NewPassword,
    /// The account's password and the devices signed in to it.
    Security,
    /// The player's data: downloading it, and deleting the account.
    MyData,
}

thread_local! {
    /// The screen whose "Assinar" opened the subscription, where its "Voltar" leads, as the
    /// back button does; home when online play's gate sent the player on (the subscription
    /// took the gate's place in the history) or its address was opened. Set by "Assinar",
    /// reset whenever another screen shows.
    pub static SUBSCRIPTION_FROM: std::cell::Cell<Screen> = const { std::cell::Cell::new(Screen::Home) };
}

impl Screen {
    /// Where the screen's "Voltar" leads: the account for its own pages opened from it, the
    /// subscription to where it was opened from, home for the rest.
    pub fn up(self) -> Screen {
        match self {
            Screen::Security | Screen::MyData => Screen::Account,
            Screen::Subscription => SUBSCRIPTION_FROM.get(),
            _ => Screen::Home,
        }
    }
}

/// Whether leaving the screen now loses something (a live match: ON-M04's abandonment), and
/// whether the back button just asked to leave it: the screen asks the player first.
#[derive(Clone, Copy)]
pub struct LeaveGuard {
    /// Set by the screen while leaving it would lose.
    pub armed: Signal<bool>,
    /// Set when the back button was pressed meanwhile: the screen shows its question.
    pub asked: Signal<bool>,
}

/// The dialog open over the screen, by the id its component took ([`next_dialog_id`]): the
/// back button closes it rather than leaving the screen.
#[derive(Clone, Copy)]
pub struct OpenDialog(pub Signal<Option<u64>>);

/// An id for a component that opens a dialog, unique in the app's life.
pub fn next_dialog_id() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

/// Where signing in leads back to: the screen that sent a guest to sign in first.
#[derive(Clone, Copy)]
pub struct AfterSignIn(pub Signal<Option<Screen>>);

/// The mini ranking's part, shared with the address.
#[derive(Clone, Copy)]
pub struct GroupTarget(pub Signal<GroupPart>);

/// A module fetched ahead of need, once the painter of a cube the player opened has come.
async fn ahead<T>(load: impl std::future::Future<Output = T>) -> T {
    platform::after_the_asked_painter().await;
    load.await
}

/// The root component.
#[component]
pub fn App() -> Element {
    let texts: &'static Texts = use_hook(|| texts_for_locale(&platform::locale()));
    use_context_provider(|| texts);
    let membership = use_membership_provider();
    // The online screens' and how to play's modules come right after the first screen, so that
    // any of them opens at once later (src/lazy.rs), and the cube's painter after them
    // (assets/boot.js). A guest's first online screen is the account's module's, so it comes
    // first, then the small how-to one, the lobby's and the match's; a kept session needs the
    // lobby's first (it reads the session's answer and holds the lobby), then the match's (a
    // match to resume, or one the lobby opens). The big online module comes last, then the
    // account's own pages beside the cube's painter, which waits for nothing after it: only a
    // player who opens those pages needs them. The small
    // module that reads a kept local game comes first when the device keeps one (a reload on
    // that game's screen waits for it); otherwise only a return to a game begun now needs it,
    // and it would share the network with the account's.
    // Each waits while a cube the player opened waits for its painter (assets/boot.js).
    use_hook(|| {
        let kept = *membership.peek() == Membership::Checking;
        let kept_game = crate::lazy::keeps_a_game();
        spawn(async move {
            if kept_game {
                crate::lazy::load_kept().await;
            }
            if kept {
                ahead(crate::lazy::load_lobby()).await;
                ahead(crate::lazy::load_match()).await;
                ahead(crate::lazy::load_account()).await;
                ahead(crate::lazy::load_howto(texts)).await;
            } else {
                ahead(crate::lazy::load_account()).await;
                ahead(crate::lazy::load_howto(texts)).await;
                ahead(crate::lazy::load_lobby()).await;
                ahead(crate::lazy::load_match()).await;
            }
            if !kept_game {
                ahead(crate::lazy::load_kept()).await;
            }
            ahead(crate::lazy::load()).await;
            platform::online_module_settled();
            ahead(crate::lazy::load_settings()).await;
        })
    });
    // The address opened names the screen: a shared link (a room, CLASSIC-R08; a replay,
    // ON-P01) or a reload. One the app does not know opens the home screen.
    let opened = use_hook(|| {
        let path = platform::opened_path();
        Route::from_path(&path).unwrap_or_else(|| {
            platform::history_replace("/");
            Route::Screen(Screen::Home)
        })
    });
    let mut room = use_signal(|| match &opened {
        Route::Room(goal) => goal.clone(),
        _ => RoomGoal::Make(RoomBoard::Classic),
    });
    use_context_provider(|| RoomTarget(room));
    // The room connection outlives the room screens (src/online/room_live.rs).
    let room_connection = use_context_provider(RoomShared::default);
    let mut replay = use_signal(|| match &opened {
        Route::Replay(id) => id.clone(),
        _ => String::new(),
    });
    use_context_provider(|| ReplayTarget(replay));
    let mut groups = use_signal(|| match &opened {
        Route::Groups(part) => part.clone(),
        _ => GroupPart::List,
    });
    use_context_provider(|| GroupTarget(groups));
    use_context_provider(|| AfterSignIn(Signal::new(None)));
    let mut screen = use_signal(|| screen_of(&opened));
    let guard = use_context_provider(|| LeaveGuard {
        armed: Signal::new(false),
        asked: Signal::new(false),
    });
    let dialog = use_context_provider(|| OpenDialog(Signal::new(None))).0;
    // Every change of place is a new entry in the history; a room made replaces its form.
    let shown = use_hook(|| std::rc::Rc::new(std::cell::RefCell::new(opened.clone())));
    use_effect({
        let shown = shown.clone();
        move || {
            if screen() != Screen::Subscription {
                // The subscription's opener is forgotten once another screen shows, however
                // it was left (its "Voltar", the back button, before its module came).
                SUBSCRIPTION_FROM.set(Screen::Home);
            }
            let here = match screen() {
                Screen::Room => Route::Room(room()),
                Screen::Replay => Route::Replay(replay()),
                Screen::Groups => Route::Groups(groups()),
                other => Route::Screen(other),
            };
            let mut before = shown.borrow_mut();
            if *before == here {
                return;
            }
            match (&*before, &here) {
                (Route::Room(RoomGoal::Make(_)), Route::Room(RoomGoal::Open(_)))
                // The wait for a payment is no place to go back to, and online play sends a
                // non-subscriber on to the subscription in its place.
                | (Route::Screen(Screen::ConfirmingPayment), _)
                // A link's screen holds its token: going back would use it again.
                | (Route::Screen(Screen::ConfirmEmail | Screen::NewPassword), _)
                | (Route::Screen(Screen::Online), Route::Screen(Screen::Subscription)) => {
                    platform::history_replace(&here.path())
                }
                _ => platform::history_push(&here.path()),
            }
            *before = here;
        }
    });
    use_future(move || {
        let shown = shown.clone();
        async move {
            let mut moves = platform::history_moves();
            while let Some(path) = moves.next().await {
                let (mut guard, mut dialog) = (guard, dialog);
                if dialog.peek().is_some() {
                    // Back closes the dialog, as its cancel button does: the screen stays.
                    platform::history_push(&shown.borrow().path());
                    dialog.set(None);
                    continue;
                }
                if (guard.armed)() {
                    // Back in a live match asks first, like its leave button: stay here.
                    platform::history_push(&shown.borrow().path());
                    guard.asked.set(true);
                    continue;
                }
                let route = Route::from_path(&path).unwrap_or(Route::Screen(Screen::Home));
                *shown.borrow_mut() = route.clone();
                match &route {
                    Route::Room(goal) => room.set(goal.clone()),
                    Route::Replay(id) => replay.set(id.clone()),
                    Route::Groups(part) => groups.set(part.clone()),
                    Route::Screen(_) => {}
                }
                screen.set(screen_of(&route));
            }
        }
    });
    // A signed-in app that starts again (a reload, a killed tab) goes straight back to the
    // match it was playing, or the 2.0 queue, within the grace (ON-M04).
    let mut resumed = use_signal(|| false);
    use_effect(move || {
        if resumed() || !matches!(membership(), Membership::Member(_)) {
            return;
        }
        resumed.set(true);
        spawn(async move {
            // Asked by the lobby's module (src/lazy.rs), which reaches the server's client.
            let Some(door) = crate::lazy::load_lobby().await else {
                return;
            };
            let Some(at) = (door.resume)(screen).await else {
                return;
            };
            if let Route::Groups(part) = &at {
                groups.set(part.clone());
            }
            screen.set(screen_of(&at));
        });
    });
    let go = move |s: Screen| {
        if s == Screen::Groups {
            groups.set(GroupPart::List);
        }
        screen.set(s)
    };
    rsx! {
        // The web page links the stylesheet (so the service worker caches it); Blitz takes it
        // inline.
        if cfg!(not(target_arch = "wasm32")) {
            style { {include_str!("../assets/style.css")} }
        }
        main {
            // A canvas that must sit at the window's origin leaves the cube screen no padding.
            class: if platform::CANVAS_AT_ORIGIN && screen() == Screen::Play(Game::Cube) { "app flush" } else { "app" },
            lang: texts.lang,
            // The desktop's back key; a browser has its own button.
            onkeydown: move |e: KeyboardEvent| {
                if cfg!(not(target_arch = "wasm32")) && e.key() == Key::Escape {
                    platform::history_back();
                }
            },
            match screen() {
                Screen::Home => rsx! { Home { go } },
                Screen::Play(game) => rsx! { LocalGame { game, go } },
                Screen::Online => rsx! { OnlineScreen { go } },
                // The other online screens and how to play: modules of their own on the web
                // (src/lazy.rs).
                other => rsx! { Online { part: Part::Screen(other), go } },
            }
            if (room_connection.open)() {
                Online { part: Part::RoomConnection, go }
            }
        }
    }
}

/// Where a signed-in player who starts the app again goes back to: the match they were
/// playing, or the 2.0 queue, within the grace (ON-M04). `screen` is the screen showing when
/// the server answers. Part of the lobby's module (src/lazy.rs).
pub fn resume(screen: Signal<Screen>) -> crate::lazy::Later<Option<Route>> {
    Box::pin(async move {
        let playing = client::playing().await.ok()?;
        Some(match playing.current {
            // A match still waiting for its opponent loses nothing: only a start on the home
            // screen goes back to it.
            Some(m) if m.state == MatchState::Open && *screen.peek() != Screen::Home => {
                return None;
            }
            Some(m) if m.game == MatchGame::V2 => Route::Screen(Screen::Competitive),
            Some(m) => match m.group {
                Some(group) => Route::Groups(GroupPart::Play(group)),
                None => Route::Screen(Screen::Online),
            },
            None if playing.queued => Route::Screen(Screen::Competitive),
            None => return None,
        })
    })
}

/// The screen that shows a place.
fn screen_of(route: &Route) -> Screen {
    match route {
        Route::Screen(s) => *s,
        Route::Room(_) => Screen::Room,
        Route::Replay(_) => Screen::Replay,
        Route::Groups(_) => Screen::Groups,
    }
}

/// The texts of the device's language.
pub fn use_texts() -> &'static Texts {
    use_context::<&'static Texts>()
}
