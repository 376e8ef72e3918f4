//! ON-K01 … ON-K04: the world and national rankings. Matches are played into the store with
//! chosen end times (an injected clock: the daily cap across midnight UTC), read back through
//! the API, and the incremental bookkeeping is checked against the full recomputation and
//! against a plain ranking computed here from the same history.

use std::collections::HashMap;

use base64::Engine;
use base64::engine::general_purpose::{STANDARD_NO_PAD, URL_SAFE_NO_PAD};
use reqwest::Method;
use sqlx::Executor;
use velha_api::{EndHow, MatchGame, MatchState, MyPosition, RankingPage, RankingRow, Scope, Seat};
use velha_load::Client;
use velha_server::store::{MatchRow, Store};

use crate::common::{Db, Random, Server};

/// 2030-01-01 00:00 UTC.
pub(crate) const DAY0: i64 = 1_893_456_000_000;
pub(crate) const HOUR: i64 = 3_600_000;
const DAY: i64 = 24 * HOUR;

/// Players signed up on a server, and matches between them played straight into its store.
pub(crate) struct League {
    pub(crate) server: Server,
    store: Store,
    /// Signed-in clients by name.
    pub(crate) players: HashMap<String, Client>,
    ids: HashMap<String, String>,
    countries: HashMap<String, String>,
}

impl League {
    /// A server where each (name, region) signed up.
    pub(crate) async fn new(db: Db, players: &[(&str, &str)]) -> League {
        let server = Server::start(db, &["--signups-per-address-per-hour", "1000"]).await;
        let store = Store::open(&server.database_url()).await.expect("store");
        let mut league = League {
            server,
            store,
            players: HashMap::new(),
            ids: HashMap::new(),
            countries: HashMap::new(),
        };
        for (name, region) in players {
            let client = league.server.player(name, region, None).await;
            let account = league.store.account_by_name(name).await.unwrap().unwrap();
            league.ids.insert((*name).into(), account.id);
            league.countries.insert((*name).into(), account.country);
            league.players.insert((*name).into(), client);
        }
        league
    }

    /// A match between x and o at `level` that ended `how` at `at`, won by `winner`; its id.
    pub(crate) async fn play(
        &self,
        x: &str,
        o: &str,
        level: u8,
        winner: Seat,
        how: EndHow,
        at: i64,
    ) -> String {
        let id = velha_server::token::new_id();
        let row = MatchRow {
            game: MatchGame::Cube,
            ratings: None,
            away: [None, None],
            id: id.clone(),
            scope: Scope::Mundial,
            level,
            x_id: self.ids[x].clone(),
            x_name: x.into(),
            x_country: self.countries[x].clone(),
            o_id: None,
            o_name: None,
            state: MatchState::Open,
            position: String::new(),
            ply: 0,
            deadline: None,
            winner: None,
            ending: None,
            created_at: at - 60_000,
            scored: None,
            group: None,
            velha: false,
        };
        self.store.insert_open_match(&row).await.unwrap();
        self.store
            .join_match(&id, &self.ids[o], &self.countries[o], at - 50_000, at)
            .await
            .unwrap();
        assert!(
            self.store
                .end_match(&id, Some(winner), how, at, &[])
                .await
                .unwrap()
        );
        id
    }

    async fn page(&self, viewer: &str, query: &str) -> RankingPage {
        let (status, body) = self.players[viewer]
            .raw(Method::GET, &format!("/api/rankings?{query}"), None)
            .await
            .unwrap();
        assert_eq!(status, 200, "{query}: {body}");
        serde_json::from_value(body).unwrap()
    }

    /// Every row of a ranking, read page by page with `limit`.
    pub(crate) async fn whole(&self, viewer: &str, query: &str, limit: u32) -> Vec<RankingRow> {
        let mut rows = Vec::new();
        let mut cursor = String::new();
        loop {
            let page = self
                .page(viewer, &format!("{query}&limit={limit}{cursor}"))
                .await;
            assert!(page.rows.len() <= limit as usize);
            rows.extend(page.rows);
            match page.next {
                Some(next) => cursor = format!("&cursor={next}"),
                None => return rows,
            }
        }
    }

    async fn mine(&self, viewer: &str) -> Vec<MyPosition> {
        let (status, body) = self.players[viewer]
            .raw(Method::GET, "/api/rankings/me", None)
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
        serde_json::from_value(body).unwrap()
    }

    async fn scored(&self, viewer: &str, id: &str) -> Option<bool> {
        self.players[viewer].get_match(id).await.unwrap().scored
    }
}

fn table(rows: &[RankingRow]) -> Vec<(u64, &str, i64, i64, i64)> {
    rows.iter()
        .map(|r| (r.rank, r.name.as_str(), r.points, r.wins, r.losses))
        .collect()
}

async fn on_k02_a_win_is_3_a_loss_1_and_a_loss_on_time_or_by_abandonment_0(db: Db) {
    let l = League::new(db, &[("ana", "pt-BR"), ("bia", "pt-BR"), ("caio", "pt-BR")]).await;
    l.play("ana", "bia", 1, Seat::X, EndHow::Line, DAY0 + HOUR)
        .await;
    l.play("bia", "caio", 1, Seat::X, EndHow::Time, DAY0 + 2 * HOUR)
        .await;
    l.play(
        "caio",
        "ana",
        1,
        Seat::X,
        EndHow::Abandonment,
        DAY0 + 3 * HOUR,
    )
    .await;
    l.play(
        "caio",
        "bia",
        1,
        Seat::O,
        EndHow::BothLines,
        DAY0 + 4 * HOUR,
    )
    .await;
    let rows = l.whole("ana", "scope=mundial&level=1", 50).await;
    assert_eq!(
        table(&rows),
        [
            (1, "bia", 7, 2, 1),
            (2, "caio", 4, 1, 2),
            (3, "ana", 3, 1, 1),
        ]
    );
    assert!(
        l.page("ana", "scope=mundial&level=2").await.rows.is_empty(),
        "each level its own"
    );
}
on_both!(on_k02_a_win_is_3_a_loss_1_and_a_loss_on_time_or_by_abandonment_0);

async fn on_k03_two_matches_a_day_against_the_same_opponent_score_per_level_across_midnight_utc(
    db: Db,
) {
    let l = League::new(db, &[("ana", "pt-BR"), ("bia", "pt-BR"), ("caio", "pt-BR")]).await;
    let late = DAY0 + DAY - 2 * HOUR;
    let first = l.play("ana", "bia", 1, Seat::X, EndHow::Line, late).await;
    let second = l
        .play("bia", "ana", 1, Seat::O, EndHow::Line, late + HOUR)
        .await;
    let third = l
        .play("ana", "bia", 1, Seat::X, EndHow::Line, DAY0 + DAY - 1)
        .await;
    // Another opponent, and another level, the same day: they score.
    let other = l
        .play("ana", "caio", 1, Seat::X, EndHow::Line, DAY0 + DAY - 2)
        .await;
    let level2 = l
        .play("ana", "bia", 2, Seat::X, EndHow::Line, DAY0 + DAY - 3)
        .await;
    // The next UTC day, from its first millisecond.
    let next_day = l
        .play("bia", "ana", 1, Seat::X, EndHow::Line, DAY0 + DAY)
        .await;
    for (id, scored) in [
        (&first, true),
        (&second, true),
        (&third, false),
        (&other, true),
        (&level2, true),
        (&next_day, true),
    ] {
        assert_eq!(l.scored("ana", id).await, Some(scored), "{id}");
    }
    let rows = l.whole("caio", "scope=mundial&level=1", 50).await;
    assert_eq!(
        table(&rows),
        [
            (1, "ana", 10, 3, 1),
            (2, "bia", 5, 1, 2),
            (3, "caio", 1, 0, 1)
        ],
        "the third match of the day scored nothing"
    );
}
on_both!(on_k03_two_matches_a_day_against_the_same_opponent_score_per_level_across_midnight_utc);

async fn on_k04_order_points_wins_fewer_losses_then_who_got_there_first(db: Db) {
    let names = ["ana", "bia", "caio", "davi", "eva", "fio", "gil", "hal"];
    let players: Vec<(&str, &str)> = names.iter().map(|n| (*n, "pt-BR")).collect();
    let l = League::new(db, &players).await;
    let mut t = DAY0;
    let mut at = || {
        t += DAY;
        t
    };
    let line = EndHow::Line;
    for (x, o, winner, how) in [
        ("ana", "eva", Seat::X, line),
        ("ana", "fio", Seat::X, line),
        ("caio", "eva", Seat::X, line),
        ("caio", "fio", Seat::X, line),
        ("davi", "eva", Seat::X, line),
        ("davi", "fio", Seat::X, line),
        ("davi", "ana", Seat::O, EndHow::Time),
        ("bia", "ana", Seat::X, line),
        ("bia", "caio", Seat::O, line),
        ("bia", "davi", Seat::O, line),
        ("gil", "fio", Seat::X, line),
        ("gil", "fio", Seat::X, line),
        ("hal", "gil", Seat::X, EndHow::Time),
        ("hal", "gil", Seat::X, EndHow::Time),
        ("hal", "gil", Seat::X, EndHow::Time),
        ("hal", "gil", Seat::X, EndHow::Time),
    ] {
        l.play(x, o, 1, winner, how, at()).await;
    }
    // bia and eva reach 6 points in the same match: equal in everything, the order between
    // them is the account ids'.
    l.play("bia", "eva", 1, Seat::O, line, at()).await;
    let rows = l.whole("eva", "scope=mundial&level=1", 50).await;
    assert_eq!(
        table(&rows)[..5],
        [
            (1, "hal", 12, 4, 0),
            (2, "ana", 10, 3, 1),
            // Equal points: fewer losses first.
            (3, "caio", 9, 3, 0),
            (4, "davi", 9, 3, 1),
            // Equal points: more wins first, even with more losses.
            (5, "gil", 6, 2, 4),
        ]
    );
    let mut tied: Vec<&str> = rows[5..7].iter().map(|r| r.name.as_str()).collect();
    tied.sort();
    assert_eq!(tied, ["bia", "eva"]);
    assert_eq!(table(&rows)[7], (8, "fio", 5, 0, 5));
    // One row a page gives the same order, and every player's own place agrees with it.
    let paged = l.whole("eva", "scope=mundial&level=1", 1).await;
    assert_eq!(paged, rows);
    for row in &rows {
        let mine = l.mine(&row.name).await;
        assert_eq!(mine[0].row.as_ref(), Some(row), "{}", row.name);
        assert_eq!((mine[0].scope, mine[0].level), (Scope::Mundial, 1));
        assert_eq!(mine[1].row, None, "no match at level 2");
        assert_eq!(mine[2].row.as_ref(), Some(row), "all in Brazil");
    }
}
on_both!(on_k04_order_points_wins_fewer_losses_then_who_got_there_first);

async fn on_k04_equal_numbers_rank_by_who_reached_the_points_first(db: Db) {
    let l = League::new(
        db,
        &[
            ("ana", "pt-BR"),
            ("bia", "pt-BR"),
            ("caio", "pt-BR"),
            ("davi", "pt-BR"),
        ],
    )
    .await;
    // bia reaches 3 points before ana; both then lose on time (no change of points) to davi
    // and caio, who reach 4 points each, davi first.
    l.play("bia", "caio", 1, Seat::X, EndHow::Line, DAY0 + HOUR)
        .await;
    l.play("ana", "davi", 1, Seat::X, EndHow::Line, DAY0 + 2 * HOUR)
        .await;
    l.play("bia", "davi", 1, Seat::O, EndHow::Time, DAY0 + 3 * HOUR)
        .await;
    l.play("ana", "caio", 1, Seat::O, EndHow::Time, DAY0 + 4 * HOUR)
        .await;
    let rows = l.whole("ana", "scope=mundial&level=1", 50).await;
    assert_eq!(
        table(&rows),
        [
            (1, "davi", 4, 1, 1),
            (2, "caio", 4, 1, 1),
            (3, "bia", 3, 1, 1),
            (4, "ana", 3, 1, 1),
        ],
        "equal points, wins and losses: who got there first"
    );
}
on_both!(on_k04_equal_numbers_rank_by_who_reached_the_points_first);

/// Whether `needle` appears in `hay`.
fn holds(hay: &[u8], needle: &[u8]) -> bool {
    !needle.is_empty() && hay.windows(needle.len()).any(|w| w == needle)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Asks for a page with `cursor` and wants it refused as a cursor this server did not give.
async fn refused(client: &Client, query: &str, cursor: &str, why: &str) {
    let (status, body) = client
        .raw(
            Method::GET,
            &format!("/api/rankings?{query}&cursor={cursor}"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(status, 400, "{why}: {body}");
    assert_eq!(body["code"], "bad_request", "{why}");
    assert!(
        body["message"]
            .as_str()
            .unwrap_or_default()
            .contains("cursor"),
        "{why}: {body}"
    );
}

/// A page's cursor (ON-K04's order, page after page) is the server's alone: changed anywhere,
/// written with an edited place, or given for another ranking or by another database's server,
/// it is refused; it names no player's account nor when anyone reached their points; and a
/// genuine one continues the ranking exactly where its page ended, on another process too.
async fn on_k04_a_cursor_is_sealed_names_no_player_and_continues_exactly(db: Db) {
    let names = ["ana", "bia", "caio", "davi", "eva"];
    let players: Vec<(&str, &str)> = names.iter().map(|n| (*n, "pt-BR")).collect();
    let mut l = League::new(db.clone(), &players).await;
    // bia, caio and eva end equal in points, wins and losses: the order between them is when
    // they got there, which only the cursor carries from one page to the next.
    for (i, (x, o, how)) in [
        ("ana", "bia", EndHow::Line),
        ("caio", "davi", EndHow::Line),
        ("ana", "eva", EndHow::Line),
        ("bia", "caio", EndHow::Line),
        ("eva", "davi", EndHow::Time),
    ]
    .into_iter()
    .enumerate()
    {
        l.play(x, o, 1, Seat::X, how, DAY0 + (i as i64 + 1) * HOUR)
            .await;
    }
    let world = "scope=mundial&level=1";
    let whole = l.whole("ana", world, 50).await;
    assert_eq!(
        whole.iter().map(|r| r.rank).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    // One row a page: the ranks continue exactly, and every cursor is kept.
    let mut rows = Vec::new();
    let mut cursors = Vec::new();
    loop {
        let after = cursors
            .last()
            .map(|c| format!("&cursor={c}"))
            .unwrap_or_default();
        let page = l.page("ana", &format!("{world}&limit=1{after}")).await;
        rows.extend(page.rows);
        match page.next {
            Some(next) => cursors.push(next),
            None => break,
        }
    }
    assert_eq!(rows, whole);
    assert_eq!(cursors.len(), 4);

    // No account id nor time of the ranking's players, in any encoding, in any cursor.
    let standings = l.store.ranking_page(1, None, None, 50).await.unwrap();
    for cursor in &cursors {
        let sealed = URL_SAFE_NO_PAD.decode(cursor).unwrap_or_default();
        let texts = [cursor.as_bytes(), &sealed, hex(&sealed).as_bytes()].map(<[u8]>::to_vec);
        for s in &standings {
            let id = s.account_id.as_bytes();
            let raw = URL_SAFE_NO_PAD.decode(id).unwrap_or_default();
            let when = s.reached_at;
            let forms = [
                id.to_vec(),
                hex(id).into_bytes(),
                hex(&raw).into_bytes(),
                STANDARD_NO_PAD.encode(id).into_bytes(),
                raw,
                when.to_string().into_bytes(),
                when.to_be_bytes().to_vec(),
                when.to_le_bytes().to_vec(),
            ];
            for (text, form) in texts.iter().flat_map(|t| forms.iter().map(move |f| (t, f))) {
                assert!(
                    !holds(text, form),
                    "{cursor} names {} or their time",
                    s.name
                );
            }
        }
    }

    // Changed anywhere, the first cursor is refused.
    let ana = &l.players["ana"];
    let first = URL_SAFE_NO_PAD.decode(&cursors[0]).unwrap();
    for i in 0..first.len() {
        let mut changed = first.clone();
        changed[i] ^= 0x01;
        let changed = URL_SAFE_NO_PAD.encode(changed);
        refused(ana, world, &changed, &format!("byte {i} changed")).await;
    }
    refused(ana, world, &cursors[0][1..], "shortened").await;
    // The first row's position with its place edited from 1 to 1001 would label the rows after
    // it 1002 on.
    let top = &standings[0];
    let edited = URL_SAFE_NO_PAD.encode(format!(
        "1001:{}:{}:{}:{}:{}",
        top.points, top.wins, top.losses, top.reached_at, top.account_id
    ));
    refused(ana, world, &edited, "an edited place").await;
    // Another ranking's cursor: another level, the national list, another database's server.
    refused(ana, "scope=mundial&level=2", &cursors[0], "another level").await;
    refused(
        ana,
        "scope=nacional&level=1",
        &cursors[0],
        "the national list",
    )
    .await;
    let other = League::new(
        l.server.fresh_db().await,
        &[("fio", "pt-BR"), ("gil", "pt-BR")],
    )
    .await;
    other
        .play("fio", "gil", 1, Seat::X, EndHow::Line, DAY0 + HOUR)
        .await;
    let foreign = other
        .page("fio", &format!("{world}&limit=1"))
        .await
        .next
        .expect("a second page");
    refused(ana, world, &foreign, "another database's").await;

    // A genuine cursor continues exactly, after a restart too (another process on the same
    // database), and on a second process beside it where the database can be shared.
    l.server.restart().await;
    let after_second = l
        .page("ana", &format!("{world}&cursor={}", cursors[1]))
        .await;
    assert_eq!(after_second.rows, whole[2..], "after a restart");
    if let Db::Postgres(_) = db {
        let beside = Server::start(db, &[]).await;
        let (status, body) = beside
            .player("hal", "pt-BR", None)
            .await
            .raw(
                Method::GET,
                &format!("/api/rankings?{world}&cursor={}", cursors[2]),
                None,
            )
            .await
            .unwrap();
        assert_eq!(status, 200, "{body}");
        let page: RankingPage = serde_json::from_value(body).unwrap();
        assert_eq!(page.rows, whole[3..], "on another process");
    }
}
on_both!(on_k04_a_cursor_is_sealed_names_no_player_and_continues_exactly);

async fn on_k01_national_is_one_countrys_players_and_follows_a_change_of_country(db: Db) {
    let l = League::new(db, &[("ana", "pt-BR"), ("bia", "pt-PT"), ("caio", "pt-BR")]).await;
    l.play("bia", "ana", 1, Seat::X, EndHow::Line, DAY0 + HOUR)
        .await;
    l.play("caio", "ana", 1, Seat::X, EndHow::Line, DAY0 + 2 * HOUR)
        .await;
    let world = l.whole("ana", "scope=mundial&level=1", 50).await;
    assert_eq!(world.len(), 3);
    let br = l.whole("ana", "scope=nacional&level=1", 50).await;
    assert_eq!(table(&br), [(1, "caio", 3, 1, 0), (2, "ana", 2, 0, 2)]);
    let pt = l
        .whole("ana", "scope=nacional&level=1&country=pt", 50)
        .await;
    assert_eq!(table(&pt), [(1, "bia", 3, 1, 0)]);
    let mine = l.mine("bia").await;
    assert_eq!(mine[2].scope, Scope::Nacional);
    assert_eq!(mine[2].row.as_ref().map(|r| r.rank), Some(1));
    // bia's phone now says Brazil (ON-A02): she moves to the Brazilian ranking.
    l.players["bia"]
        .raw(Method::PUT, "/api/me/region", Some(r#"{"region":"pt-BR"}"#))
        .await
        .unwrap();
    let br = l.whole("ana", "scope=nacional&level=1", 50).await;
    assert_eq!(
        br.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["bia", "caio", "ana"]
    );
    assert!(
        l.whole("ana", "scope=nacional&level=1&country=PT", 50)
            .await
            .is_empty()
    );
    // Her place counts follow her too: first in Brazil, and nothing left in Portugal.
    assert_eq!(l.mine("bia").await[2].row.as_ref().map(|r| r.rank), Some(1));
    assert_eq!(l.mine("ana").await[2].row.as_ref().map(|r| r.rank), Some(3));
    let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");
    for bad in [
        "scope=mundial&level=3",
        "scope=nacional&level=1&country=BRA",
        "scope=mundial&level=1&limit=0",
        "scope=mundial&level=1&limit=101",
        "scope=mundial&level=1&cursor=bm90LWEtY3Vyc29y",
        "scope=lunar&level=1",
    ] {
        let (status, body) = l.players["ana"]
            .raw(Method::GET, &format!("/api/rankings?{bad}"), None)
            .await
            .unwrap();
        assert_eq!(status, 400, "{bad}: {body}");
        assert_eq!(body["code"], "bad_request", "{bad}");
    }
    let (status, _) = l
        .server
        .client()
        .raw(Method::GET, "/api/rankings?scope=mundial&level=1", None)
        .await
        .unwrap();
    assert_eq!(status, 401, "for signed-in players");
}
on_both!(on_k01_national_is_one_countrys_players_and_follows_a_change_of_country);

/// Points, wins, losses, and when the points were reached.
type Numbers = (i64, i64, i64, i64);

/// The rankings kept match by match equal both the full recomputation (`rebuild --check`
/// finds nothing) and a plain ranking computed here, over random histories; a tampered
/// standing or flag is found, and `rebuild` mends it.
async fn on_k04_incremental_rankings_match_a_plain_recomputation(db: Db) {
    let names: Vec<String> = (0..8).map(|i| format!("jog{i}")).collect();
    let players: Vec<(&str, &str)> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), if i % 3 == 0 { "pt-PT" } else { "pt-BR" }))
        .collect();
    let l = League::new(db, &players).await;
    let mut random = Random(0x9e37_79b9_7f4a_7c15);
    // (name, level) → its numbers; (pair, level, day) → scored.
    let mut plain: HashMap<(String, u8), Numbers> = HashMap::new();
    let mut per_day: HashMap<(String, String, u8, i64), i64> = HashMap::new();
    let mut at = DAY0;
    for _ in 0..240 {
        at += 1 + random.below(3 * HOUR as u64) as i64;
        let x = random.below(8) as usize;
        let o = (x + 1 + random.below(7) as usize) % 8;
        let level = 1 + random.below(2) as u8;
        let winner = if random.below(2) == 0 {
            Seat::X
        } else {
            Seat::O
        };
        let how = [
            EndHow::Line,
            EndHow::BothLines,
            EndHow::Time,
            EndHow::Abandonment,
        ][random.below(4) as usize];
        l.play(&names[x], &names[o], level, winner, how, at).await;
        let mut pair = [names[x].clone(), names[o].clone()];
        pair.sort();
        let [a, b] = pair;
        let count = per_day.entry((a, b, level, at / DAY)).or_insert(0);
        if *count == 2 {
            continue;
        }
        *count += 1;
        let (won, lost) = if winner == Seat::X { (x, o) } else { (o, x) };
        let loss_points = if matches!(how, EndHow::Line | EndHow::BothLines) {
            1
        } else {
            0
        };
        for (who, points, win, loss) in [(won, 3, 1, 0), (lost, loss_points, 0, 1)] {
            let s = plain
                .entry((names[who].clone(), level))
                .or_insert((0, 0, 0, at));
            s.0 += points;
            s.1 += win;
            s.2 += loss;
            if points > 0 {
                s.3 = at;
            }
        }
    }
    for level in [1u8, 2] {
        let mut expected: Vec<(&str, Numbers)> = plain
            .iter()
            .filter(|((_, l), _)| *l == level)
            .map(|((n, _), s)| (n.as_str(), *s))
            .collect();
        expected.sort_by_key(|(n, (p, w, lo, r))| (-p, -w, *lo, *r, l.ids[*n].clone()));
        let rows = l
            .whole("jog1", &format!("scope=mundial&level={level}"), 3)
            .await;
        let got: Vec<(&str, i64, i64, i64)> = rows
            .iter()
            .map(|r| (r.name.as_str(), r.points, r.wins, r.losses))
            .collect();
        let want: Vec<(&str, i64, i64, i64)> = expected
            .iter()
            .map(|(n, (p, w, lo, _))| (*n, *p, *w, *lo))
            .collect();
        assert_eq!(got, want, "level {level}");
        let br: Vec<String> = l
            .whole("jog1", &format!("scope=nacional&level={level}"), 2)
            .await
            .into_iter()
            .map(|r| r.name)
            .collect();
        let br_want: Vec<String> = want
            .iter()
            .map(|w| w.0.to_owned())
            .filter(|n| l.countries[n] == "BR")
            .collect();
        assert_eq!(br, br_want, "level {level}, Brazil");
        // Every player's own place, world and national, as the plain ranking has it.
        for (i, (name, ..)) in want.iter().enumerate() {
            let mine = l.mine(name).await;
            let at = |scope: Scope| {
                mine.iter()
                    .find(|p| p.scope == scope && p.level == level)
                    .and_then(|p| p.row.as_ref())
                    .map(|r| r.rank)
            };
            let country = &l.countries[*name];
            let national = want[..i]
                .iter()
                .filter(|w| l.countries[w.0] == *country)
                .count();
            assert_eq!(
                (at(Scope::Mundial), at(Scope::Nacional)),
                (Some(i as u64 + 1), Some(national as u64 + 1)),
                "{name} at level {level}"
            );
        }
    }
    let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(ok, "{report}");
    assert!(
        report.contains("0 match flags, 0 standings and 0 counts of players per points differ"),
        "{report}"
    );

    // Tampering is found, listed, and mended.
    let mut db = l.server.database().await;
    db.execute(
        format!(
            "UPDATE standings SET neg_points = neg_points - 5 WHERE account_id = '{}' AND level = 1",
            l.ids["jog2"]
        )
        .as_str(),
    )
    .await
    .unwrap();
    db.execute("UPDATE matches SET scored = 1 - scored WHERE id = (SELECT MIN(id) FROM matches)")
        .await
        .unwrap();
    db.execute("UPDATE standing_counts SET players = players + 1 WHERE level = 2")
        .await
        .unwrap();
    let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(!ok, "differences fail the check: {report}");
    assert!(
        report.contains(&format!("account {} level 1", l.ids["jog2"])),
        "{report}"
    );
    assert!(report.contains("match "), "{report}");
    assert!(report.contains("players counted"), "{report}");
    let (ok, report) = l.server.admin(&["rankings", "rebuild"]).await;
    assert!(ok, "{report}");
    let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(
        ok && report
            .contains("0 match flags, 0 standings and 0 counts of players per points differ"),
        "{report}"
    );
}
on_both!(on_k04_incremental_rankings_match_a_plain_recomputation);

/// Matches that end at once each record their changes to the counts of players per points,
/// and two folds run beside them (every process folds, and on PostgreSQL two may at once): no
/// change is lost or counted twice, and every place read meanwhile, folded or not, is the one
/// a plain ranking gives.
async fn on_k04_matches_ending_at_once_and_two_folds_keep_every_place_exact(db: Db) {
    const PLAYERS: usize = 10;
    let names: Vec<String> = (0..PLAYERS).map(|i| format!("fim{i}")).collect();
    let players: Vec<(&str, &str)> = names.iter().map(|n| (n.as_str(), "pt-BR")).collect();
    let l = League::new(db, &players).await;
    let other = Store::open(&l.server.database_url()).await.expect("store");
    let mut plain: HashMap<&str, Numbers> = HashMap::new();
    // A round-robin by the circle method: every round pairs each player once (one match at a
    // time each, ON-M01), and every pair meets once.
    for round in 0..PLAYERS - 1 {
        let last = PLAYERS - 1;
        let mut pairs = vec![(round, last)];
        for i in 1..PLAYERS / 2 {
            pairs.push(((round + i) % last, (round + last - i) % last));
        }
        let at = DAY0 + round as i64 * HOUR;
        let plays = pairs.iter().enumerate().map(|(k, &(x, o))| {
            l.play(
                &names[x],
                &names[o],
                1,
                Seat::X,
                EndHow::Line,
                at + k as i64,
            )
        });
        // Each store folds while the matches end, again and again.
        let folds = [&l.store, &other].map(|store| async move {
            for _ in 0..4 {
                store.fold_standing_counts().await.unwrap();
                tokio::time::sleep(std::time::Duration::from_millis(3)).await;
            }
        });
        tokio::join!(
            futures_util::future::join_all(plays),
            futures_util::future::join_all(folds)
        );
        for (k, &(x, o)) in pairs.iter().enumerate() {
            let won = plain.entry(names[x].as_str()).or_insert((0, 0, 0, 0));
            *won = (won.0 + 3, won.1 + 1, won.2, at + k as i64);
            let lost = plain.entry(names[o].as_str()).or_insert((0, 0, 0, 0));
            *lost = (lost.0 + 1, lost.1, lost.2 + 1, at + k as i64);
        }
        let mut want: Vec<(&str, Numbers)> = plain.iter().map(|(n, s)| (*n, *s)).collect();
        want.sort_by_key(|(n, (p, w, lo, r))| (-p, -w, *lo, *r, l.ids[*n].clone()));
        for (i, (name, _)) in want.iter().enumerate() {
            let (rank, _) = l
                .store
                .ranking_position(&l.ids[*name], 1, false)
                .await
                .unwrap()
                .expect("a standing");
            assert_eq!(rank, i as u64 + 1, "{name} after round {round}");
        }
        let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
        assert!(ok, "round {round}: {report}");
    }
    // Folded to the last change (here or by the server's sweeper), the counts alone are the
    // standings'.
    let mut db = l.server.database().await;
    for attempt in 0.. {
        l.store.fold_standing_counts().await.unwrap();
        let (pending,): (i64,) = sqlx::query_as("SELECT COUNT(*) FROM standing_count_changes")
            .fetch_one(&mut db)
            .await
            .unwrap();
        if pending == 0 {
            break;
        }
        assert!(attempt < 50, "{pending} changes never folded");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let (ok, report) = l.server.admin(&["rankings", "rebuild", "--check"]).await;
    assert!(
        ok && report.contains("0 counts of players per points differ"),
        "{report}"
    );
}
on_both!(on_k04_matches_ending_at_once_and_two_folds_keep_every_place_exact);

/// ON-K05: the Velha is in no ranking — and no player can appear there under her name.
async fn on_k05_nobody_takes_the_velhas_name_so_no_ranking_shows_her(db: Db) {
    let l = League::new(db, &[("ana", "pt-BR"), ("bia", "pt-BR")]).await;
    for name in ["Velha", "VELHA", "A_Velha", "a.velha", "Velha-"] {
        let e = l
            .server
            .client()
            .sign_up(
                &format!("{}@example.com", name.replace(['_', '.', '-'], "")),
                "cubo-gira-9",
                name,
                "pt-BR",
            )
            .await
            .unwrap_err();
        assert_eq!(e.code, velha_api::ErrorCode::NameTaken, "{name}");
    }
    l.server
        .client()
        .sign_up("velhinha@example.com", "cubo-gira-9", "Velhinha", "pt-BR")
        .await
        .expect("another name is fine");
    l.play("ana", "bia", 1, Seat::X, EndHow::Line, DAY0).await;
    let rows = l.whole("ana", "scope=mundial&level=1", 50).await;
    assert_eq!(table(&rows), [(1, "ana", 3, 1, 0), (2, "bia", 1, 0, 1)]);
}
on_both!(on_k05_nobody_takes_the_velhas_name_so_no_ranking_shows_her);
