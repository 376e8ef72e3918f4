//! What the live connection has told the app so far: the lobby list being watched and the
//! player's match. Pure: each server message changes it one way, so it is tested without a
//! server.

use velha_api::{
    Away, MatchGame, MatchState, MatchView, OpenMatch, Refusal, Scope, Seat, ServerMsg,
};

/// The most open matches a list keeps (the server's snapshot sends at most 200): a busy lobby
/// cannot grow the app's memory without end.
const MAX_LISTED: usize = 500;

/// A lobby list, kept current.
#[derive(Clone, Debug, PartialEq)]
pub struct LobbyList {
    /// Mundial or Nacional.
    pub scope: Scope,
    /// 1 or 2.
    pub level: u8,
    /// The group whose list it is, if any.
    pub group: Option<String>,
    /// Open matches, oldest first.
    pub matches: Vec<OpenMatch>,
}

impl LobbyList {
    /// Whether the list is the one of `scope` (outside groups), `level` and `group`.
    pub fn is(&self, scope: Scope, level: u8, group: Option<&str>) -> bool {
        self.level == level
            && self.group.as_deref() == group
            && (group.is_some() || self.scope == scope)
    }
}

/// The last move of a match, to animate.
#[derive(Clone, Debug, PartialEq)]
pub struct LastMove {
    /// The ply it made.
    pub ply: u32,
    /// Who moved.
    pub by: Seat,
    /// Its actions, as the engine protocol writes them.
    pub actions: Vec<String>,
    /// The position before it.
    pub before: String,
}

/// The player's match.
#[derive(Clone, Debug, PartialEq)]
pub struct Game {
    /// As the server last described it.
    pub view: MatchView,
    /// When (this device's milliseconds) the clock was read.
    pub read_at: f64,
    /// When the absences' times to come back were read.
    pub away_read_at: f64,
    /// The last move, to animate.
    pub last_move: Option<LastMove>,
    /// The server's refusal of this device's last move.
    pub refusal: Option<Refusal>,
}

/// The last change of a group the player takes part in, or was invited to.
#[derive(Clone, Debug, PartialEq)]
pub struct GroupNews {
    /// The group.
    pub group: String,
    /// Whether the player takes part in it now.
    pub member: bool,
    /// Whether its creator finalized it.
    pub finalized: bool,
    /// Counts the changes heard, so that two alike are two.
    pub heard: u64,
}

/// Everything the live connection said that the screens show.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LiveState {
    /// The lobby list being watched.
    pub lobby: Option<LobbyList>,
    /// The player's open, live or just finished match.
    pub game: Option<Game>,
    /// The last group change heard.
    pub group_news: Option<GroupNews>,
}

impl LiveState {
    /// Takes in one message, read at `now` (this device's milliseconds).
    pub fn apply(&mut self, msg: ServerMsg, now: f64) {
        match msg {
            ServerMsg::Welcome { matches, .. } => {
                // At most one open or live match per player (ON-M02); a finished one stays
                // on screen until the player leaves it.
                let current = matches
                    .into_iter()
                    .find(|m| matches!(m.state, MatchState::Live | MatchState::Open));
                match current {
                    Some(view) => self.start(view, now),
                    None => {
                        if self
                            .game
                            .as_ref()
                            .is_some_and(|g| g.view.state != MatchState::Over)
                        {
                            self.game = None;
                        }
                    }
                }
            }
            ServerMsg::Started { view } => self.start(view, now),
            ServerMsg::Moved {
                match_id,
                ply,
                by,
                actions,
                position,
                to_move,
                clock_ms,
            } => {
                if let Some(game) = self.game_mut(&match_id)
                    && ply > game.view.ply
                {
                    let before = std::mem::replace(&mut game.view.position, position);
                    game.last_move = Some(LastMove {
                        ply,
                        by,
                        actions,
                        before,
                    });
                    game.view.ply = ply;
                    game.view.to_move = to_move;
                    game.view.clock_ms = clock_ms;
                    game.read_at = now;
                    game.refusal = None;
                }
            }
            ServerMsg::Refused { match_id, refusal } => {
                if let Some(game) = self.game_mut(&match_id) {
                    game.refusal = Some(refusal);
                }
            }
            ServerMsg::Away {
                match_id,
                seat,
                grace_ms,
            } => {
                if let Some(game) = self.game_mut(&match_id) {
                    game.view.away.retain(|a| a.seat != seat);
                    game.view.away.push(Away { seat, grace_ms });
                    // The clock keeps running from its own reading.
                    game.away_read_at = now;
                }
            }
            ServerMsg::Back { match_id, seat } => {
                if let Some(game) = self.game_mut(&match_id) {
                    game.view.away.retain(|a| a.seat != seat);
                }
            }
            ServerMsg::Ended {
                match_id,
                ending,
                position,
                scored,
                ratings,
            } => {
                if let Some(game) = self.game_mut(&match_id) {
                    game.view.state = MatchState::Over;
                    game.view.ending = Some(ending);
                    game.view.scored = scored;
                    game.view.ratings = ratings;
                    game.view.position = position;
                    game.view.to_move = None;
                    game.view.clock_ms = None;
                    game.view.away.clear();
                }
            }
            ServerMsg::Lobby {
                scope,
                level,
                group,
                matches,
            } => {
                self.lobby = Some(LobbyList {
                    scope,
                    level,
                    group,
                    matches,
                })
            }
            ServerMsg::LobbyOpened { open } => {
                if let Some(list) = &mut self.lobby
                    && list.is(open.scope, open.level, open.group.as_deref())
                    && list.matches.len() < MAX_LISTED
                    && !list.matches.iter().any(|m| m.id == open.id)
                {
                    list.matches.push(open);
                }
            }
            ServerMsg::LobbyClosed { id } => {
                if let Some(list) = &mut self.lobby {
                    list.matches.retain(|m| m.id != id);
                }
            }
            ServerMsg::GroupChanged {
                group,
                member,
                finalized,
            } => {
                let heard = self.group_news.as_ref().map_or(0, |n| n.heard) + 1;
                self.group_news = Some(GroupNews {
                    group,
                    member,
                    finalized,
                    heard,
                });
            }
            ServerMsg::Error { .. } | ServerMsg::Pong => {}
        }
    }

    /// The player opened `open` in the lobby: it is their match, waiting (ON-M02).
    pub fn created(&mut self, open: &OpenMatch, position: String, now: f64) {
        let view = MatchView {
            id: open.id.clone(),
            game: MatchGame::Cube,
            scope: open.scope,
            level: open.level,
            x: open.creator.clone(),
            o: None,
            seat: Seat::X,
            state: MatchState::Open,
            position,
            ply: 0,
            to_move: None,
            clock_ms: None,
            away: vec![],
            ending: None,
            scored: None,
            group: open.group.clone(),
            velha: false,
            ratings: None,
        };
        self.start(view, now);
    }

    fn start(&mut self, view: MatchView, now: f64) {
        let same = self.game.as_ref().is_some_and(|g| g.view.id == view.id);
        let last_move = if same {
            self.game.take().and_then(|g| g.last_move)
        } else {
            None
        };
        self.game = Some(Game {
            view,
            read_at: now,
            away_read_at: now,
            last_move,
            refusal: None,
        });
    }

    fn game_mut(&mut self, id: &str) -> Option<&mut Game> {
        self.game.as_mut().filter(|g| g.view.id == id)
    }
}

#[cfg(test)]
mod tests {
    use velha_api::{EndHow, Ending};

    use super::*;

    fn open(id: &str) -> OpenMatch {
        OpenMatch {
            id: id.into(),
            creator: "ana".into(),
            country: "BR".into(),
            scope: Scope::Mundial,
            level: 2,
            waiting_ms: 0,
            group: None,
        }
    }

    fn view(state: MatchState) -> MatchView {
        MatchView {
            id: "m".into(),
            game: MatchGame::Cube,
            scope: Scope::Mundial,
            level: 2,
            x: "ana".into(),
            o: Some("bia".into()),
            seat: Seat::O,
            state,
            position: "p0".into(),
            ply: 0,
            to_move: Some(Seat::X),
            clock_ms: Some(60_000),
            away: vec![],
            ending: None,
            scored: None,
            group: None,
            velha: false,
            ratings: None,
        }
    }

    #[test]
    fn on_m01_the_lobby_list_takes_changes_once_and_only_its_own() {
        let mut s = LiveState::default();
        s.apply(
            ServerMsg::LobbyOpened {
                open: open("early"),
            },
            0.0,
        );
        assert_eq!(s.lobby, None, "no list watched yet");
        s.apply(
            ServerMsg::Lobby {
                scope: Scope::Mundial,
                level: 2,
                group: None,
                matches: vec![open("a")],
            },
            0.0,
        );
        // Changes held while the list was read may repeat what it holds.
        s.apply(ServerMsg::LobbyOpened { open: open("a") }, 0.0);
        s.apply(ServerMsg::LobbyOpened { open: open("b") }, 0.0);
        let mut other = open("c");
        other.level = 1;
        s.apply(ServerMsg::LobbyOpened { open: other }, 0.0);
        let mut in_group = open("g");
        in_group.group = Some("grupo".into());
        s.apply(ServerMsg::LobbyOpened { open: in_group }, 0.0);
        s.apply(ServerMsg::LobbyClosed { id: "a".into() }, 0.0);
        s.apply(ServerMsg::LobbyClosed { id: "zzz".into() }, 0.0);
        let ids: Vec<_> = s.lobby.unwrap().matches.into_iter().map(|m| m.id).collect();
        assert_eq!(ids, ["b"]);
    }

    #[test]
    fn on_g09_every_group_change_is_news_even_the_same_twice() {
        let mut s = LiveState::default();
        let changed = |member, finalized| ServerMsg::GroupChanged {
            group: "g".into(),
            member,
            finalized,
        };
        s.apply(changed(true, false), 0.0);
        s.apply(changed(true, false), 0.0);
        assert_eq!(s.group_news.as_ref().map(|n| n.heard), Some(2));
        s.apply(changed(false, true), 0.0);
        let news = s.group_news.unwrap();
        assert_eq!(
            (news.group.as_str(), news.member, news.finalized, news.heard),
            ("g", false, true, 3)
        );
    }

    #[test]
    fn on_g03_a_group_list_takes_its_group_matches_of_any_scope_and_nothing_else() {
        let mut s = LiveState::default();
        s.apply(
            ServerMsg::Lobby {
                scope: Scope::Mundial,
                level: 2,
                group: Some("g".into()),
                matches: vec![],
            },
            0.0,
        );
        let of = |id: &str, group: Option<&str>, scope: Scope| OpenMatch {
            group: group.map(Into::into),
            scope,
            ..open(id)
        };
        s.apply(
            ServerMsg::LobbyOpened {
                open: of("a", Some("g"), Scope::Nacional),
            },
            0.0,
        );
        s.apply(
            ServerMsg::LobbyOpened {
                open: of("b", Some("h"), Scope::Mundial),
            },
            0.0,
        );
        s.apply(
            ServerMsg::LobbyOpened {
                open: of("c", None, Scope::Mundial),
            },
            0.0,
        );
        let list = s.lobby.unwrap();
        assert!(list.is(Scope::Nacional, 2, Some("g")) && !list.is(Scope::Mundial, 2, None));
        let ids: Vec<_> = list.matches.into_iter().map(|m| m.id).collect();
        assert_eq!(ids, ["a"]);
    }

    #[test]
    fn on_m04_a_match_resumes_from_the_welcome_and_moves_in_order() {
        let mut s = LiveState::default();
        s.apply(
            ServerMsg::Welcome {
                name: "bia".into(),
                matches: vec![view(MatchState::Live)],
            },
            1000.0,
        );
        assert_eq!(s.game.as_ref().unwrap().read_at, 1000.0);
        let moved = |ply: u32| ServerMsg::Moved {
            match_id: "m".into(),
            ply,
            by: Seat::X,
            actions: vec!["a1".into()],
            position: format!("p{ply}"),
            to_move: Some(Seat::O),
            clock_ms: Some(59_000),
        };
        s.apply(moved(1), 2000.0);
        s.apply(moved(1), 2500.0);
        let game = s.game.clone().unwrap();
        assert_eq!((game.view.ply, game.view.position.as_str()), (1, "p1"));
        assert_eq!(
            game.last_move.unwrap().before,
            "p0",
            "a repeated move is taken once"
        );
        assert_eq!(game.read_at, 2000.0);
        s.apply(
            ServerMsg::Away {
                match_id: "m".into(),
                seat: Seat::X,
                grace_ms: 20_000,
            },
            3000.0,
        );
        let game = s.game.as_ref().unwrap();
        assert_eq!(game.view.away.len(), 1);
        assert_eq!(
            (game.read_at, game.away_read_at),
            (2000.0, 3000.0),
            "the clock runs on"
        );
        s.apply(
            ServerMsg::Back {
                match_id: "m".into(),
                seat: Seat::X,
            },
            3100.0,
        );
        assert!(s.game.as_ref().unwrap().view.away.is_empty());
        let ending = Ending {
            winner: Some(Seat::X),
            how: EndHow::Time,
        };
        s.apply(
            ServerMsg::Ended {
                match_id: "m".into(),
                ending,
                position: "end".into(),
                scored: Some(false),
                ratings: None,
            },
            4000.0,
        );
        let game = s.game.clone().unwrap();
        assert_eq!(game.view.state, MatchState::Over);
        assert_eq!((game.view.ending, game.view.clock_ms), (Some(ending), None));
        assert_eq!(
            game.view.scored,
            Some(false),
            "the result says it scored nothing"
        );
        // After a reconnection the finished match stays on screen until the player leaves it.
        s.apply(
            ServerMsg::Welcome {
                name: "bia".into(),
                matches: vec![],
            },
            5000.0,
        );
        assert!(s.game.is_some());
        // Messages about another match change nothing.
        let before = s.clone();
        s.apply(
            ServerMsg::Back {
                match_id: "other".into(),
                seat: Seat::O,
            },
            6000.0,
        );
        assert_eq!(s, before);
    }
}
