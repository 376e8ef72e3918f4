//! The app's shell: which screen is showing, the language, the styles.

use dioxus::prelude::*;
use velha_api::RoomBoard;

use crate::i18n::{Texts, texts_for_locale};
use crate::online::membership::use_membership_provider;
use crate::platform::{self, Linked};
use crate::screens::{
    account::AccountScreen,
    classic::ClassicScreen,
    competitive::CompetitiveScreen,
    cube::CubeScreen,
    groups::GroupsScreen,
    home::Home,
    howto::HowTo,
    online::OnlineScreen,
    ranking::RankingScreen,
    replay::{ReplayScreen, ReplayTarget},
    room::{RoomGoal, RoomScreen, RoomTarget},
    ultimate::UltimateScreen,
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
}

/// The root component.
#[component]
pub fn App() -> Element {
    let texts: &'static Texts = use_hook(|| texts_for_locale(&platform::locale()));
    use_context_provider(|| texts);
    use_membership_provider();
    // A shared link opens its room (CLASSIC-R08) or its replay (ON-P01).
    let linked = use_hook(platform::opened_link);
    let target = use_signal(|| match linked.clone() {
        Some(Linked::Room(id)) => RoomGoal::Open(id),
        _ => RoomGoal::Make(RoomBoard::Classic),
    });
    use_context_provider(|| RoomTarget(target));
    let replay = use_signal(|| match linked.clone() {
        Some(Linked::Replay(id)) => id,
        _ => String::new(),
    });
    use_context_provider(|| ReplayTarget(replay));
    let mut screen = use_signal(|| match linked {
        Some(Linked::Room(_)) => Screen::Room,
        Some(Linked::Replay(_)) => Screen::Replay,
        None => Screen::Home,
    });
    let go = move |s: Screen| screen.set(s);
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
            match screen() {
                Screen::Home => rsx! { Home { go } },
                Screen::HowTo(game) => rsx! { HowTo { game, go } },
                Screen::Account => rsx! { AccountScreen { go } },
                Screen::Online => rsx! { OnlineScreen { go } },
                Screen::Ranking => rsx! { RankingScreen { go } },
                Screen::Groups => rsx! { GroupsScreen { go } },
                Screen::Room => rsx! { RoomScreen { go } },
                Screen::Replay => rsx! { ReplayScreen { go } },
                Screen::Competitive => rsx! { CompetitiveScreen { go } },
                Screen::Play(Game::Cube) => rsx! { CubeScreen { go } },
                Screen::Play(Game::Classic) => rsx! { ClassicScreen { go } },
                Screen::Play(Game::Super) => rsx! { UltimateScreen { v2: false, go } },
                Screen::Play(Game::V2) => rsx! { UltimateScreen { v2: true, go } },
            }
        }
    }
}

/// The texts of the device's language.
pub fn use_texts() -> &'static Texts {
    use_context::<&'static Texts>()
}
