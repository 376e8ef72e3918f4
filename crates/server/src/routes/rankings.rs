//! The world and national rankings per level (online.md ON-K01 … ON-K04): pages in ranking
//! order, and the player's own place in each ranking. For signed-in players.

use std::sync::Arc;

use axum::extract::State;
use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use ring::aead::{Aad, CHACHA20_POLY1305, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use ring::hmac;
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

/// Seals and opens the cursors of ranking pages.
///
/// A cursor carries the last row's place and its whole position in the order, which ends with
/// when the points were reached and the account id, no other player's business: so it is
/// encrypted as well as authenticated, and a place made up (which would label every row after
/// it) or another ranking's cursor is refused. Its key comes from a secret stored once in the
/// database, not made per process: the next page may be asked of any process behind the load
/// balancer (docs/deploy.md), or of the same one after a restart.
pub struct Cursors {
    key: LessSafeKey,
    nonces: hmac::Key,
}

/// Bytes of the numbers a cursor seals before the account id: the place, points, wins,
/// losses and when the points were reached.
const NUMBERS: usize = 5 * 8;

impl Cursors {
    /// Keys derived from the database's secret, one for each use.
    pub fn new(secret: &[u8]) -> Cursors {
        let secret = hmac::Key::new(hmac::HMAC_SHA256, secret);
        let derive = |label: &[u8]| hmac::sign(&secret, label);
        let key = UnboundKey::new(&CHACHA20_POLY1305, derive(b"ranking cursor key").as_ref())
            .expect("HMAC-SHA256 gives 32 bytes, a ChaCha20-Poly1305 key");
        Cursors {
            key: LessSafeKey::new(key),
            nonces: hmac::Key::new(hmac::HMAC_SHA256, derive(b"ranking cursor nonce").as_ref()),
        }
    }

    /// The cursor after a row of `ranking`: its place and its position in the order, sealed.
    fn seal(&self, ranking: &[u8], rank: u64, s: &Standing) -> String {
        let mut text =
            Vec::with_capacity(NUMBERS + s.account_id.len() + CHACHA20_POLY1305.tag_len());
        text.extend_from_slice(&rank.to_be_bytes());
        for n in [s.points, s.wins, s.losses, s.reached_at] {
            text.extend_from_slice(&n.to_be_bytes());
        }
        text.extend_from_slice(s.account_id.as_bytes());
        // The nonce is drawn from what it seals (as SIV does): under one key for the
        // database's whole life, random 96-bit nonces would in time repeat, and a repeat
        // gives ChaCha20-Poly1305 away; two equal cursors only say the same page follows.
        let mut nonce = [0; NONCE_LEN];
        let mut mac = hmac::Context::with_key(&self.nonces);
        mac.update(ranking);
        mac.update(&text);
        nonce.copy_from_slice(&mac.sign().as_ref()[..NONCE_LEN]);
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(ranking),
                &mut text,
            )
            .expect("a cursor is far below ChaCha20-Poly1305's length limit");
        URL_SAFE_NO_PAD.encode([&nonce[..], &text].concat())
    }

    /// The place and position a cursor of `ranking` holds; a cursor this database's servers did
    /// not give for that ranking, or one changed since, is refused.
    fn open(&self, ranking: &[u8], cursor: &str) -> Result<(u64, After), AppError> {
        if cursor.len() > 256 {
            return Err(bad_cursor());
        }
        let mut sealed = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| bad_cursor())?;
        if sealed.len() < NONCE_LEN {
            return Err(bad_cursor());
        }
        let mut text = sealed.split_off(NONCE_LEN);
        let nonce = Nonce::try_assume_unique_for_key(&sealed).map_err(|_| bad_cursor())?;
        let text = self
            .key
            .open_in_place(nonce, Aad::from(ranking), &mut text)
            .map_err(|_| bad_cursor())?;
        if text.len() < NUMBERS {
            return Err(bad_cursor());
        }
        let word = |i: usize| {
            let mut word = [0; 8];
            word.copy_from_slice(&text[8 * i..8 * (i + 1)]);
            word
        };
        let number = |i| i64::from_be_bytes(word(i));
        Ok((
            u64::from_be_bytes(word(0)),
            After {
                points: number(1),
                wins: number(2),
                losses: number(3),
                reached_at: number(4),
                account_id: String::from_utf8(text[NUMBERS..].to_vec())
                    .map_err(|_| bad_cursor())?,
            },
        ))
    }
}

/// What tells one ranking's cursors from another's: the level, and the country when national.
fn ranking_of(level: u8, country: Option<&str>) -> Vec<u8> {
    let mut ranking = vec![level];
    ranking.extend_from_slice(country.unwrap_or_default().as_bytes());
    ranking
}

fn bad_cursor() -> AppError {
    AppError::new(
        ErrorCode::BadRequest,
        "the cursor is not one this server gave for this ranking: start again without it",
    )
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
    let ranking = ranking_of(q.level, country.as_deref());
    let (rank_before, after) = match q.cursor.as_deref() {
        Some(c) => {
            let (rank, after) = app.cursors.open(&ranking, c)?;
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
            standings.last().map(|s| {
                app.cursors
                    .seal(&ranking, rank_before + standings.len() as u64, s)
            })
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
        let cursors = Cursors::new(b"this database's secret");
        let world = ranking_of(1, None);
        let cursor = cursors.seal(&world, 42, &s);
        assert_eq!(
            cursors.open(&world, &cursor).unwrap(),
            (42, After::from(&s))
        );
        let sealed = URL_SAFE_NO_PAD.decode(&cursor).unwrap();
        assert!(
            !String::from_utf8_lossy(&sealed).contains("abc:def"),
            "the account id is not to be read in the cursor"
        );
        for i in 0..sealed.len() {
            let mut changed = sealed.clone();
            changed[i] ^= 1;
            let changed = URL_SAFE_NO_PAD.encode(changed);
            assert!(cursors.open(&world, &changed).is_err(), "byte {i} changed");
        }
        let elsewhere = Cursors::new(b"another database's secret");
        for (cursors, ranking) in [
            (&cursors, ranking_of(2, None)),
            (&cursors, ranking_of(1, Some("BR"))),
            (&elsewhere, world.clone()),
        ] {
            assert!(cursors.open(&ranking, &cursor).is_err(), "{ranking:?}");
        }
        for forged in [
            "",
            "!!",
            "MTox",
            &"A".repeat(300),
            &URL_SAFE_NO_PAD.encode("42:7:2:1:1700000000000:abc:def"),
            &cursor[..cursor.len() - 1],
        ] {
            assert!(cursors.open(&world, forged).is_err(), "{forged}");
        }
    }
}
