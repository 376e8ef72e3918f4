//! The world and national rankings per level (online.md ON-K01 … ON-K04): pages in ranking
//! order, and the player's own place in each ranking. For signed-in players.

use std::sync::Arc;

use axum::extract::State;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use velha_api::{ErrorCode, MyPosition, RankingPage, RankingQuery, RankingRow, Scope};

use crate::app::App;
use crate::auth::Player;
use crate::error::{AppError, AppResult, Json, Query};
use crate::store::{After, Standing};

const DEFAULT_LIMIT: u32 = 50;
const MOST_LIMIT: u32 = 100;

fn row(rank: u64, s: &Standing) -> RankingRow {
    RankingRow {
        rank,
        name: s.name.clone(),
        country: s.country.clone(),
        points: s.points,
        wins: s.wins,
        losses: s.losses,
    }
}

/// The cursor after a row: its place and its order columns, opaque to clients.
fn cursor(rank: u64, s: &Standing) -> String {
    URL_SAFE_NO_PAD.encode(format!(
        "{rank}:{}:{}:{}:{}:{}",
        s.points, s.wins, s.losses, s.reached_at, s.account_id
    ))
}

fn bad_cursor() -> AppError {
    AppError::new(
        ErrorCode::BadRequest,
        "the cursor is not one this server gave: start again without it",
    )
}

/// The place and order columns a cursor holds.
fn parse_cursor(text: &str) -> Result<(u64, After), AppError> {
    if text.len() > 256 {
        return Err(bad_cursor());
    }
    let bytes = URL_SAFE_NO_PAD.decode(text).map_err(|_| bad_cursor())?;
    let text = String::from_utf8(bytes).map_err(|_| bad_cursor())?;
    let parts: Vec<&str> = text.splitn(6, ':').collect();
    let [rank, points, wins, losses, reached_at, account_id] = parts[..] else {
        return Err(bad_cursor());
    };
    let number = |s: &str| s.parse::<i64>().map_err(|_| bad_cursor());
    Ok((
        rank.parse().map_err(|_| bad_cursor())?,
        After {
            points: number(points)?,
            wins: number(wins)?,
            losses: number(losses)?,
            reached_at: number(reached_at)?,
            account_id: account_id.to_owned(),
        },
    ))
}

/// A page of a ranking, best first; `next` continues it.
#[utoipa::path(
    get,
    path = "/api/rankings",
    tag = "rankings",
    params(RankingQuery),
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "The page", body = RankingPage),
        (status = 400, description = "A level, country, cursor or limit out of range", body = velha_api::ApiError),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn page(
    State(app): State<Arc<App>>,
    player: Player,
    Query(q): Query<RankingQuery>,
) -> AppResult<Json<RankingPage>> {
    super::level(q.level)?;
    let limit = q.limit.unwrap_or(DEFAULT_LIMIT);
    if !(1..=MOST_LIMIT).contains(&limit) {
        return Err(AppError::new(
            ErrorCode::BadRequest,
            format!("a page has 1 to {MOST_LIMIT} rows, not {limit}"),
        ));
    }
    let country = match q.scope {
        Scope::Mundial => None,
        Scope::Nacional => Some(match q.country.as_deref() {
            None => player.account.country.clone(),
            Some(c) if c.len() == 2 && c.bytes().all(|b| b.is_ascii_alphabetic()) => {
                c.to_ascii_uppercase()
            }
            Some(c) => {
                return Err(AppError::new(
                    ErrorCode::BadRequest,
                    format!("{c:?} is not a two-letter country code"),
                ));
            }
        }),
    };
    let (rank_before, after) = match q.cursor.as_deref() {
        Some(c) => {
            let (rank, after) = parse_cursor(c)?;
            (rank, Some(after))
        }
        None => (0, None),
    };
    // One more than asked tells whether a next page exists.
    let mut standings = app
        .store
        .ranking_page(q.level, country.as_deref(), after.as_ref(), limit + 1)
        .await?;
    let more = standings.len() > limit as usize;
    standings.truncate(limit as usize);
    let rows: Vec<RankingRow> = standings
        .iter()
        .zip(rank_before + 1..)
        .map(|(s, rank)| row(rank, s))
        .collect();
    let next = more
        .then(|| {
            standings
                .last()
                .map(|s| cursor(rank_before + standings.len() as u64, s))
        })
        .flatten();
    Ok(Json(RankingPage { rows, next }))
}

/// The signed-in player's place in the four rankings: Mundial and Nacional (their country),
/// levels 1 and 2.
#[utoipa::path(
    get,
    path = "/api/rankings/me",
    tag = "rankings",
    security(("session" = []), ("session_cookie" = [])),
    responses(
        (status = 200, description = "Mundial 1, Mundial 2, Nacional 1, Nacional 2", body = [MyPosition]),
        (status = 401, body = velha_api::ApiError),
    )
)]
pub async fn mine(State(app): State<Arc<App>>, player: Player) -> AppResult<Json<Vec<MyPosition>>> {
    let id = &player.account.id;
    let wanted = [
        (Scope::Mundial, 1, false),
        (Scope::Mundial, 2, false),
        (Scope::Nacional, 1, true),
        (Scope::Nacional, 2, true),
    ];
    // All four at once: each is one count over the players ahead.
    let found = futures_util::future::join_all(
        wanted
            .iter()
            .map(|&(_, level, national)| app.store.ranking_position(id, level, national)),
    )
    .await;
    let mut positions = Vec::with_capacity(4);
    for ((scope, level, _), found) in wanted.into_iter().zip(found) {
        positions.push(MyPosition {
            scope,
            level,
            row: found?.map(|(rank, s)| row(rank, &s)),
        });
    }
    Ok(Json(positions))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_k04_a_cursor_reads_back_and_a_forged_one_is_refused() {
        let s = Standing {
            account_id: "abc:def".into(),
            name: "Ana".into(),
            country: "BR".into(),
            points: 7,
            wins: 2,
            losses: 1,
            reached_at: 1_700_000_000_000,
        };
        let (rank, after) = parse_cursor(&cursor(42, &s)).unwrap();
        assert_eq!((rank, after), (42, After::from(&s)));
        for forged in [
            "",
            "!!",
            "MTox",
            &"A".repeat(300),
            &URL_SAFE_NO_PAD.encode("1:x:2:3:4:id"),
        ] {
            assert!(parse_cursor(forged).is_err(), "{forged}");
        }
    }
}
