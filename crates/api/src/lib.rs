//! The messages the app and the server exchange.
//!
//! HTTP bodies are JSON; the live channel is a WebSocket carrying one JSON [`live::ClientMsg`]
//! or [`live::ServerMsg`] per text frame. Times the server sends are durations in
//! milliseconds (never the server's clock), so a phone with a wrong clock still counts right.

pub mod account;
pub mod competitive;
pub mod ending;
pub mod error;
mod from_rules;
pub mod group;
pub mod live;
pub mod lobby;
pub mod moderation;
pub mod push;
pub mod ranking;
pub mod replay;
pub mod room;
pub mod subscription;

pub use account::{
    Account, COUNTRIES, ChangePassword, CountryChange, DeleteAccount, EmailVerified,
    ForgotPassword, GoogleDesktop, GoogleLink, GoogleOptions, GoogleSignIn, LogIn, REMOVED_PLAYER,
    Region, RegionChange, ResendVerification, ResetPassword, Session, SignInOptions, SignUp,
    SignedIn, VerifyEmail, country_code, country_of, is_country,
};
pub use competitive::{
    Leaderboard, LeaderboardQuery, QueueStatus, RatingChange, RatingChanges, RatingRow,
    accepted_difference,
};
pub use ending::{EndHow, Ending};
pub use error::{ApiError, ErrorCode, PasswordProblem};
pub use group::{CreateGroup, Group, GroupStanding, Invitation, Invite, MyGroups, PlayVelha};
pub use live::{
    Away, ClientMsg, Illegal, MatchGame, MatchState, MatchView, Playing, Refusal, Seat, ServerMsg,
};
pub use lobby::{CreateMatch, LobbyQuery, OpenMatch, Scope};
pub use moderation::{MAX_REPORT_NOTE, Report, ReportAbout, ReportReason};
pub use push::{PushKey, PushKeys, PushSubscribe, PushSubscribed};
pub use ranking::{MyPosition, RankingPage, RankingQuery, RankingRow};
pub use replay::{Replay, ReplayGame, ReplayMove, is_link_id, is_replay_id};
pub use room::{
    Avatar, CreateRoom, JoinRoom, RoomAct, RoomAction, RoomBoard, RoomClientMsg, RoomLookup,
    RoomPlayer, RoomSeat, RoomServerMsg, RoomStarter, RoomView,
};
pub use subscription::{PageRequest, PaidState, Period, Plan, ProviderPage, SubscriptionView};

/// The path of the WebSocket on the server.
pub const LIVE_PATH: &str = "/api/live";

/// The largest frame a client may send on the WebSocket, in bytes; a larger one closes the
/// connection with code 1009 (message too big).
pub const MAX_LIVE_FRAME: usize = 16 * 1024;
