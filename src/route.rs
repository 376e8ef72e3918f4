//! Where the app is, as an address: every screen has its own path, so the phone's back button
//! goes to the previous screen inside the app, and a link or a reload opens the same screen.

use velha_api::RoomBoard;

use crate::app::{Game, Screen};
use crate::screens::room::RoomGoal;

/// Which part of the mini ranking shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GroupPart {
    /// The groups and invitations.
    List,
    /// One group.
    Group(String),
    /// Playing in a group: its lobby and its matches.
    Play(String),
}

/// A screen with what it shows.
#[derive(Clone, Debug, PartialEq)]
pub enum Route {
    /// A screen that needs nothing more.
    Screen(Screen),
    /// A room, or the form that makes one.
    Room(RoomGoal),
    /// A finished game's replay: a match's id, or `<room>/<game>`.
    Replay(String),
    /// The mini ranking.
    Groups(GroupPart),
}

fn game_path(game: Game) -> &'static str {
    match game {
        Game::Cube => "/cubo",
        Game::Classic => "/jogo-da-velha",
        Game::Super => "/super-jogo-da-velha",
        Game::V2 => "/jogo-da-velha-2.0",
    }
}

const GAMES: [Game; 4] = [Game::Cube, Game::Classic, Game::Super, Game::V2];
const HOW_TO: &str = "/como-jogar";

fn board_path(board: RoomBoard) -> &'static str {
    match board {
        RoomBoard::Classic => "/sala/nova",
        RoomBoard::Super => "/sala/nova/super",
        RoomBoard::V2 => "/sala/nova/2.0",
    }
}

impl Route {
    /// The address of this place.
    pub fn path(&self) -> String {
        match self {
            Route::Screen(screen) => match screen {
                Screen::Home => "/".into(),
                Screen::Play(game) => game_path(*game).into(),
                Screen::HowTo(game) => format!("{}{HOW_TO}", game_path(*game)),
                Screen::Account => "/conta".into(),
                Screen::Online => "/cubo/online".into(),
                Screen::Ranking => "/ranking".into(),
                Screen::Competitive => "/jogo-da-velha-2.0/competitivo".into(),
                Screen::Subscription => "/assinatura".into(),
                Screen::ConfirmingPayment => "/assinatura/confirmando".into(),
                Screen::ConfirmEmail => "/conta/confirmar".into(),
                Screen::NewPassword => "/conta/nova-senha".into(),
                Screen::Security => "/conta/seguranca".into(),
                Screen::MyData => "/conta/dados".into(),
                // These carry what they show: see the other routes.
                Screen::Groups => "/grupos".into(),
                Screen::Room => board_path(RoomBoard::Classic).into(),
                Screen::Replay => "/".into(),
            },
            Route::Room(RoomGoal::Make(board)) => board_path(*board).into(),
            Route::Room(RoomGoal::Open(id)) => format!("/sala/{id}"),
            Route::Replay(id) => format!("/partida/{id}"),
            Route::Groups(GroupPart::List) => "/grupos".into(),
            Route::Groups(GroupPart::Group(id)) => format!("/grupos/{id}"),
            Route::Groups(GroupPart::Play(id)) => format!("/grupos/{id}/jogar"),
        }
    }

    /// The place an address names; an address the app does not know names none.
    pub fn from_path(path: &str) -> Option<Route> {
        let path = match path.trim_end_matches('/') {
            "" => "/",
            p => p,
        };
        let screen = |s| Some(Route::Screen(s));
        match path {
            "/" => return screen(Screen::Home),
            "/conta" => return screen(Screen::Account),
            "/cubo/online" => return screen(Screen::Online),
            "/ranking" => return screen(Screen::Ranking),
            "/jogo-da-velha-2.0/competitivo" => return screen(Screen::Competitive),
            "/assinatura" => return screen(Screen::Subscription),
            // Where the payment provider sends the player back after paying.
            "/assinatura/confirmando" => return screen(Screen::ConfirmingPayment),
            // The e-mail's links (their tokens are in the fragment).
            "/conta/confirmar" => return screen(Screen::ConfirmEmail),
            "/conta/nova-senha" => return screen(Screen::NewPassword),
            "/conta/seguranca" => return screen(Screen::Security),
            "/conta/dados" => return screen(Screen::MyData),
            "/grupos" => return Some(Route::Groups(GroupPart::List)),
            _ => {}
        }
        for game in GAMES {
            let at = game_path(game);
            if path == at {
                return screen(Screen::Play(game));
            }
            if path.strip_prefix(at) == Some(HOW_TO) {
                return screen(Screen::HowTo(game));
            }
        }
        for board in [RoomBoard::Classic, RoomBoard::Super, RoomBoard::V2] {
            if path == board_path(board) {
                return Some(Route::Room(RoomGoal::Make(board)));
            }
        }
        if let Some(id) = path.strip_prefix("/sala/") {
            return velha_api::is_link_id(id).then(|| Route::Room(RoomGoal::Open(id.into())));
        }
        if let Some(id) = path.strip_prefix("/partida/") {
            return velha_api::is_replay_id(id).then(|| Route::Replay(id.into()));
        }
        let rest = path.strip_prefix("/grupos/")?;
        let (id, play) = match rest.strip_suffix("/jogar") {
            Some(id) => (id, true),
            None => (rest, false),
        };
        velha_api::is_link_id(id).then(|| {
            Route::Groups(if play {
                GroupPart::Play(id.into())
            } else {
                GroupPart::Group(id.into())
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_place_reads_back_from_its_address() {
        let id = "AbC-d_e12345678x";
        let mut places: Vec<Route> = [
            Screen::Home,
            Screen::Account,
            Screen::Online,
            Screen::Ranking,
            Screen::Competitive,
            Screen::Subscription,
            Screen::ConfirmingPayment,
            Screen::ConfirmEmail,
            Screen::NewPassword,
            Screen::Security,
            Screen::MyData,
        ]
        .into_iter()
        .chain(GAMES.map(Screen::Play))
        .chain(GAMES.map(Screen::HowTo))
        .map(Route::Screen)
        .collect();
        places.extend([
            Route::Room(RoomGoal::Make(RoomBoard::Classic)),
            Route::Room(RoomGoal::Make(RoomBoard::Super)),
            Route::Room(RoomGoal::Make(RoomBoard::V2)),
            Route::Room(RoomGoal::Open(id.into())),
            Route::Replay(id.into()),
            Route::Replay(format!("{id}/3")),
            Route::Groups(GroupPart::List),
            Route::Groups(GroupPart::Group(id.into())),
            Route::Groups(GroupPart::Play(id.into())),
        ]);
        let mut paths: Vec<String> = places.iter().map(Route::path).collect();
        for (place, path) in places.iter().zip(&paths) {
            assert_eq!(Route::from_path(path).as_ref(), Some(place), "{path}");
            assert_eq!(
                Route::from_path(&format!("{path}/")).as_ref(),
                Some(place),
                "{path}/"
            );
        }
        paths.sort();
        paths.dedup();
        assert_eq!(paths.len(), places.len(), "one address per place");
    }

    /// ON-A03: the payment provider's returns open the subscription's screens.
    #[test]
    fn on_a03_the_providers_returns_name_the_subscription_screens() {
        assert_eq!(
            Route::from_path("/assinatura"),
            Some(Route::Screen(Screen::Subscription))
        );
        assert_eq!(
            Route::from_path("/assinatura/confirmando"),
            Some(Route::Screen(Screen::ConfirmingPayment))
        );
        assert_eq!(
            Route::from_path("/conta"),
            Some(Route::Screen(Screen::Account)),
            "the customer portal's return"
        );
    }

    #[test]
    fn on_p01_links_name_a_room_or_a_replay_and_nothing_else_names_a_place() {
        let id = "AbC-d_e12345678x";
        assert_eq!(
            Route::from_path(&format!("/sala/{id}")),
            Some(Route::Room(RoomGoal::Open(id.into())))
        );
        assert_eq!(
            Route::from_path(&format!("/partida/{id}/3")),
            Some(Route::Replay(format!("{id}/3")))
        );
        for other in [
            "/sala/",
            "/sala/a/b",
            "/partida/",
            "/partida/a/b",
            "/x/abc",
            "/grupos/a/b",
            "/cubo/x",
            "/sala/nova/x",
            "/assinatura/x",
        ] {
            assert_eq!(Route::from_path(other), None, "{other}");
        }
    }
}
