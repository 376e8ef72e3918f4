//! Push subscriptions (docs/push.md, CLASSIC-R09's notice while the app is closed): the VAPID
//! key, and who may be told of which seats, at most 10 devices each under requests at once.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use reqwest::Method;
use serde_json::{Value, json};
use velha_api::{Avatar, RoomAct, RoomBoard, RoomSeat};
use velha_load::Client;

use crate::common::{Db, Server, StandIn};

const SERVICE: &str = "http://127.0.0.1:9";

async fn server(db: Db) -> Server {
    Server::start(
        db,
        &[
            "--push-services",
            &format!("https://fcm.googleapis.com,{SERVICE}"),
        ],
    )
    .await
}

/// A browser's subscription as `PushSubscription.toJSON()` gives it, for `credentials`.
fn device(credentials: &[&str]) -> Value {
    let mut point = vec![4u8];
    point.extend((0..64).map(|_| rand_byte()));
    let auth: Vec<u8> = (0..16).map(|_| rand_byte()).collect();
    json!({
        "endpoint": format!("{SERVICE}/push/{}", velha_server::token::random_text(12)),
        "keys": {"p256dh": URL_SAFE_NO_PAD.encode(point), "auth": URL_SAFE_NO_PAD.encode(auth)},
        "credentials": credentials,
        "language": "pt-BR",
    })
}

fn rand_byte() -> u8 {
    let mut b = [0u8; 1];
    getrandom::fill(&mut b).unwrap();
    b[0]
}

async fn subscribe(c: &Client, body: &Value) -> (u16, Value) {
    c.raw(
        Method::POST,
        "/api/push/subscriptions",
        Some(&body.to_string()),
    )
    .await
    .unwrap()
}

async fn count(server: &Server, sql: &str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&mut server.database().await)
        .await
        .unwrap()
}

async fn classic_r09_only_a_seat_or_an_account_is_told_and_endpoints_go_nowhere_else(db: Db) {
    let mut server = server(db).await;
    let (status, key) = server
        .client()
        .raw(Method::GET, "/api/push/key", None)
        .await
        .unwrap();
    assert_eq!(status, 200);
    let public = URL_SAFE_NO_PAD
        .decode(key["public_key"].as_str().unwrap())
        .unwrap();
    assert_eq!(
        (public.len(), public[0]),
        (65, 4),
        "an uncompressed P-256 point"
    );
    server.restart().await;
    let (_, again) = server
        .client()
        .raw(Method::GET, "/api/push/key", None)
        .await
        .unwrap();
    assert_eq!(
        again, key,
        "the same key after a restart: subscriptions outlive it"
    );

    let c = server.client();
    let room = c
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let body = device(&[&room.credential]);
    let (status, kept) = subscribe(&c, &body).await;
    assert_eq!((status, kept["seats"].as_u64()), (201, Some(1)), "{kept}");
    assert_eq!(
        kept.as_object().unwrap().keys().collect::<Vec<_>>(),
        ["id", "seats"],
        "the endpoint and keys are never answered"
    );
    // The same device again (a new room joined): the same subscription, its seats replaced.
    let other = c.create_room(RoomBoard::Super, "Ana", None).await.unwrap();
    let mut more = body.clone();
    more["credentials"] = json!([room.credential, other.credential]);
    let (status, replaced) = subscribe(&c, &more).await;
    assert_eq!((status, &replaced["id"]), (201, &kept["id"]));
    assert_eq!(count(&server, "SELECT COUNT(*) FROM push_seats").await, 2);

    for (change, code) in [
        (json!({"credentials": ["x".repeat(40)]}), "forbidden"),
        (json!({"credentials": []}), "bad_request"),
        (
            json!({"endpoint": "http://169.254.169.254/latest/meta-data"}),
            "bad_request",
        ),
        (
            json!({"endpoint": "https://fcm.googleapis.com.evil.example/x"}),
            "bad_request",
        ),
        (
            json!({"keys": {"p256dh": "AAAA", "auth": URL_SAFE_NO_PAD.encode([1u8; 16])}}),
            "bad_request",
        ),
        (json!({"credentials": vec!["c"; 101]}), "bad_request"),
    ] {
        let mut bad = device(&[&room.credential]);
        for (k, v) in change.as_object().unwrap() {
            bad[k] = v.clone();
        }
        let (status, refused) = subscribe(&c, &bad).await;
        assert_eq!(refused["code"], code, "{change}: {status} {refused}");
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM push_subscriptions").await,
        1
    );

    // A signed-in player needs no seat.
    let bia = server.player("bia", "pt-BR", None).await;
    let (status, _) = subscribe(&bia, &device(&[])).await;
    assert_eq!(status, 201);

    let id = kept["id"].as_str().unwrap();
    let gone = c
        .raw(
            Method::DELETE,
            &format!("/api/push/subscriptions/{id}"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(gone.0, 204);
    let again = c
        .raw(
            Method::DELETE,
            &format!("/api/push/subscriptions/{id}"),
            None,
        )
        .await
        .unwrap();
    assert_eq!(
        (again.0, again.1["code"].as_str()),
        (404, Some("not_found"))
    );
    assert_eq!(count(&server, "SELECT COUNT(*) FROM push_seats").await, 0);
}
on_both!(classic_r09_only_a_seat_or_an_account_is_told_and_endpoints_go_nowhere_else);

/// Twenty new devices at once for `who` (the seat's credential, or none for the account):
/// exactly ten kept, the rest refused as too many.
async fn twenty_at_once(who: &Client, credentials: &[&str], what: &str) {
    let answers = futures_util::future::join_all((0..20).map(|_| {
        let body = device(credentials);
        async move { subscribe(who, &body).await }
    }))
    .await;
    assert_eq!(
        answers.iter().filter(|(s, _)| *s == 201).count(),
        10,
        "{what}: {answers:?}"
    );
    for (status, answer) in answers.iter().filter(|(s, _)| *s != 201) {
        assert_eq!(
            (*status, answer["code"].as_str()),
            (409, Some("too_many_subscriptions")),
            "{what}"
        );
    }
}

async fn classic_r09_twenty_devices_at_once_leave_ten_per_seat_and_account(db: Db) {
    let server = server(db).await;
    let c = server.client();
    for round in 0..10 {
        let room = c
            .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
            .await
            .unwrap();
        twenty_at_once(&c, &[&room.credential], &format!("seat, round {round}")).await;
        let player = server.player(&format!("ana{round}"), "pt-BR", None).await;
        twenty_at_once(&player, &[], &format!("account, round {round}")).await;
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM push_subscriptions").await,
        200
    );
}
on_both!(classic_r09_twenty_devices_at_once_leave_ten_per_seat_and_account);

/// Ana's classic room, made through `maker`, and Bia in it, through `joiner`: its id and
/// both seats.
async fn ana_and_bia(maker: &Client, joiner: &Client) -> (String, RoomSeat, RoomSeat) {
    let made = maker
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let id = made.room.id.clone();
    let joined = joiner
        .join_room(&id, "Bia", Some(Avatar::Quelonia))
        .await
        .unwrap();
    (id, made, joined)
}

/// The push service stand-in (tests/standins/webpush.py), a child process for the test.
struct PushService {
    standin: StandIn,
    url: String,
}

impl PushService {
    async fn start() -> PushService {
        let standin = StandIn::start("webpush.py").await;
        PushService {
            url: standin.url.clone(),
            standin,
        }
    }

    async fn call(&self, method: &str, args: Value) -> Value {
        self.standin.call(method, args).await
    }

    /// A browser subscribing with the server's key, then telling the server (as `c`, for
    /// `credentials`): the subscription's endpoint.
    async fn device(
        &self,
        server: &Server,
        c: &Client,
        credentials: &[&str],
        language: &str,
    ) -> String {
        let (_, key) = c.raw(Method::GET, "/api/push/key", None).await.unwrap();
        let mut browser = self
            .call(
                "subscribe",
                json!({"application_server_key": key["public_key"]}),
            )
            .await;
        browser["credentials"] = json!(credentials);
        browser["language"] = json!(language);
        let (status, kept) = subscribe(c, &browser).await;
        assert_eq!(status, 201, "{kept} ({})", server.base);
        browser["endpoint"].as_str().unwrap().to_owned()
    }

    /// The pushes taken for `endpoint`, once none more came for a while after the last.
    async fn settled(&self, endpoint: &str, at_least: usize) -> Vec<Value> {
        for _ in 0..50 {
            tokio::time::sleep(std::time::Duration::from_millis(200)).await;
            let seen = self
                .call("messages", json!({"endpoint": endpoint}))
                .await
                .as_array()
                .unwrap()
                .clone();
            if seen.len() >= at_least {
                break;
            }
        }
        // Past the settling time of any notice still queued.
        tokio::time::sleep(std::time::Duration::from_millis(2500)).await;
        self.call("messages", json!({"endpoint": endpoint}))
            .await
            .as_array()
            .unwrap()
            .clone()
    }
}

/// A room where Ana (the creator, a device in Portuguese) and Bia (the guest, one in English)
/// each subscribed a device for their seat.
struct Subscribed {
    push: PushService,
    server: Server,
    c: Client,
    id: String,
    made: RoomSeat,
    joined: RoomSeat,
    ana: String,
    bia: String,
}

async fn subscribed(db: Db) -> Subscribed {
    let push = PushService::start().await;
    let server = Server::start(db, &["--push-services", &push.url]).await;
    let c = server.client();
    let (id, made, joined) = ana_and_bia(&c, &c).await;
    let ana = push.device(&server, &c, &[&made.credential], "pt-BR").await;
    let bia = push.device(&server, &c, &[&joined.credential], "en").await;
    Subscribed {
        push,
        server,
        c,
        id,
        made,
        joined,
        ana,
        bia,
    }
}

async fn classic_r09_a_move_tells_the_other_player_once_and_not_while_they_look(db: Db) {
    let Subscribed {
        push,
        server: _server,
        c,
        id,
        made,
        joined,
        ana,
        bia,
    } = subscribed(db).await;
    // Joining gave Ana the first turn: one notice for her.
    let told = push.settled(&ana, 1).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        told[0]["payload"],
        json!({"title": "Sua vez!", "body": "Bia entrou na sala do Jogo da Velha: a partida começou.",
               "url": format!("/sala/{id}"), "tag": format!("room-{id}")})
    );
    let (ttl, urgency, topic) = (&told[0]["ttl"], &told[0]["urgency"], &told[0]["topic"]);
    assert_eq!((ttl, urgency), (&json!(86_400), &json!("normal")));
    assert_eq!(topic.as_str().unwrap().len(), 32);

    // Bia looks at the room while Ana moves: she is not told.
    let mut looking = c.room_live(&id, &joined.credential).await.unwrap();
    looking
        .recv(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    c.room_act(&id, &made.credential, RoomAct::Play { cell: "a1".into() })
        .await
        .unwrap();
    assert!(push.settled(&bia, 1).await.is_empty(), "Bia was looking");
    drop(looking);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    // She moves and goes away; Ana, told a minute ago, is not told again so soon; Ana moves
    // and Bia, away now, is told once, in English.
    c.room_act(&id, &joined.credential, RoomAct::Play { cell: "b1".into() })
        .await
        .unwrap();
    c.room_act(&id, &made.credential, RoomAct::Play { cell: "a2".into() })
        .await
        .unwrap();
    let told = push.settled(&bia, 1).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["payload"]["body"], "Ana moved in Tic-tac-toe.");
    assert_eq!(
        push.settled(&ana, 1).await.len(),
        1,
        "one notice per few minutes"
    );
    let refused = push.call("refused", json!({})).await;
    assert_eq!(
        refused,
        json!([]),
        "every push was signed and encrypted right"
    );
}
on_both!(classic_r09_a_move_tells_the_other_player_once_and_not_while_they_look);

/// A turn played within its notice's wait is not told: the player to move played it without
/// looking at the room (through the API, as from another device). What ends the game is told
/// whatever comes after it: the rematch asked at once does not make the loss old news. The
/// process knows the turns are old news without reading the room (`latest_told.rs`, whose
/// tests say when); told, they would be a third notice for Bia, who was never told a turn.
async fn classic_r09_a_turn_played_within_the_wait_is_not_told_and_the_end_is(db: Db) {
    let room = subscribed(db).await;
    let (push, c) = (&room.push, &room.c);
    assert_eq!(push.settled(&room.ana, 1).await.len(), 1, "Bia joined");
    let id = room.id.as_str();
    let act = |seat: &RoomSeat, act: RoomAct| {
        let credential = seat.credential.clone();
        async move { c.room_act(id, &credential, act).await }
    };
    let play = |cell: &str| RoomAct::Play { cell: cell.into() };
    // Each of Bia's turns is played before its wait is over; Ana's line ends the game.
    for (x, o) in [("a1", "b1"), ("a2", "b2")] {
        act(&room.made, play(x)).await.unwrap();
        act(&room.joined, play(o)).await.unwrap();
    }
    act(&room.made, play("a3")).await.unwrap();
    act(&room.made, RoomAct::Rematch).await.unwrap();
    let mut told: Vec<Value> = push
        .settled(&room.bia, 2)
        .await
        .iter()
        .map(|m| m["payload"]["body"].clone())
        .collect();
    told.sort_by_key(Value::to_string);
    assert_eq!(
        told,
        [
            "Ana asks for a rematch in Tic-tac-toe.",
            "Ana won the Tic-tac-toe game."
        ],
        "the end and the rematch, never a turn"
    );
    assert_eq!(
        push.settled(&room.ana, 1).await.len(),
        1,
        "Bia's joining only: Ana's turns are quiet for a few minutes after it"
    );
    assert_eq!(push.call("refused", json!({})).await, json!([]));
}
on_both!(classic_r09_a_turn_played_within_the_wait_is_not_told_and_the_end_is);

async fn classic_r09_a_gone_device_is_forgotten_and_a_hanging_service_holds_no_move(db: Db) {
    let push = PushService::start().await;
    let server = Server::start(db, &["--push-services", &push.url]).await;
    let c = server.client();
    let made = c
        .create_room(RoomBoard::Classic, "Ana", Some(Avatar::Nino))
        .await
        .unwrap();
    let ana = push.device(&server, &c, &[&made.credential], "pt-BR").await;
    // The browser dropped the subscription: its service answers 410 from now on.
    push.call("gone", json!({"endpoint": ana})).await;
    c.join_room(&made.room.id, "Bia", Some(Avatar::Quelonia))
        .await
        .unwrap();
    for _ in 0..50 {
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
        if count(&server, "SELECT COUNT(*) FROM push_subscriptions").await == 0 {
            break;
        }
    }
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM push_subscriptions").await,
        0,
        "410 deletes the subscription"
    );
    assert_eq!(
        push.call("refused", json!({})).await,
        json!([{"status": 410, "why": "push subscription has unsubscribed or expired"}])
    );

    // A push service that never answers: moves go on as ever.
    let room = c
        .create_room(RoomBoard::Classic, "Dana", Some(Avatar::Nino))
        .await
        .unwrap();
    let guest = c
        .join_room(&room.room.id, "Eva", Some(Avatar::Quelonia))
        .await
        .unwrap();
    push.device(&server, &c, &[&room.credential], "pt-BR").await;
    push.device(&server, &c, &[&guest.credential], "pt-BR")
        .await;
    push.call("hang", json!({"on": true})).await;
    for (credential, cell) in [
        (&room.credential, "a1"),
        (&guest.credential, "b1"),
        (&room.credential, "a2"),
        (&guest.credential, "b2"),
    ] {
        c.room_act(
            &room.room.id,
            credential,
            RoomAct::Play { cell: cell.into() },
        )
        .await
        .unwrap();
    }
    push.call("hang", json!({"on": false})).await;
}
on_both!(classic_r09_a_gone_device_is_forgotten_and_a_hanging_service_holds_no_move);

async fn on_g02_an_invitation_and_a_joined_group_match_are_told_to_the_account(db: Db) {
    let push = PushService::start().await;
    let server = Server::start(
        db,
        &[
            "--push-services",
            &push.url,
            "--signups-per-address-per-hour",
            "100000",
        ],
    )
    .await;
    let names: Vec<String> = ["ana", "bia"].map(String::from).to_vec();
    let p = crate::groups::subscribers(&server, &names).await;
    // Signed in, with no seat: each device is told of its account.
    let ana = push.device(&server, &p[0], &[], "pt-BR").await;
    let bia = push.device(&server, &p[1], &[], "en").await;
    let g = crate::groups::create(&p[0], "Turma").await;
    assert_eq!(crate::groups::invite(&p[0], &g, "bia").await.0, 204);
    let told = push.settled(&bia, 1).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        told[0]["payload"],
        json!({"title": "Mini ranking invitation", "body": "ana invited you to the group Turma.",
               "url": "/grupos", "tag": format!("group-{g}")})
    );
    assert_eq!(crate::groups::accept(&p[1], &g).await.0, 200);
    let open = p[0].create_in_group(&g, 1).await.unwrap();
    p[1].join(&open.id).await.unwrap();
    let told = push.settled(&ana, 1).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(
        told[0]["payload"],
        json!({"title": "Sua partida começou!", "body": "bia entrou na sua partida do grupo Turma.",
               "url": format!("/grupos/{g}/jogar"), "tag": format!("group-{g}")})
    );
    assert_eq!(push.call("refused", json!({})).await, json!([]));
}
on_both!(on_g02_an_invitation_and_a_joined_group_match_are_told_to_the_account);

async fn classic_r12_quiet_rooms_tell_who_may_claim_and_that_the_room_closes_once(db: Db) {
    const DAY: i64 = 24 * 3_600_000;
    let push = PushService::start().await;
    let mut server = Server::start(db, &["--push-services", &push.url]).await;
    let (_, key) = server
        .client()
        .raw(Method::GET, "/api/push/key", None)
        .await
        .unwrap();
    // Rooms quiet for days, and a device for each seat, written while no process runs (as
    // when the service was down): the first sweep after the start finds them.
    server.kill9().await;
    let store = velha_server::store::Store::open(&server.database_url())
        .await
        .unwrap();
    let away = crate::rooms::room_played_ago(&store, 2 * DAY + 60_000).await;
    let closing = crate::rooms::room_played_ago(&store, 6 * DAY + 60_000).await;
    let fresh = crate::rooms::room_played_ago(&store, DAY).await;
    // Quiet as long, but no device of its players is subscribed: the sweep writes nothing of it.
    let unheard = crate::rooms::room_played_ago(&store, 6 * DAY + 60_000).await;
    let mut devices = Vec::new();
    for (_, x, o) in [&away, &closing, &fresh] {
        for credential in [x, o] {
            let browser = push
                .call(
                    "subscribe",
                    json!({"application_server_key": key["public_key"]}),
                )
                .await;
            let endpoint = browser["endpoint"].as_str().unwrap().to_owned();
            store
                .save_push(&velha_server::store::NewPush {
                    id: &velha_server::token::random_text(16),
                    endpoint: &endpoint,
                    p256dh: browser["keys"]["p256dh"].as_str().unwrap(),
                    auth: browser["keys"]["auth"].as_str().unwrap(),
                    language: "pt-BR",
                    account: None,
                    seats: &[velha_server::token::seat_key(credential)],
                    now: velha_server::token::now_ms(),
                })
                .await
                .unwrap();
            devices.push(endpoint);
        }
    }
    drop(store);
    server.restart().await;
    // The last to be told, then what each device holds.
    push.settled(&devices[2], 2).await;
    let told = |i: usize| {
        let (push, endpoint) = (&push, devices[i].clone());
        async move {
            push.call("messages", json!({"endpoint": endpoint}))
                .await
                .as_array()
                .unwrap()
                .clone()
        }
    };
    let ana_away = told(0).await;
    assert_eq!(ana_away.len(), 1, "{ana_away:?}");
    assert_eq!(
        ana_away[0]["payload"],
        json!({"title": "Bia está ausente",
               "body": "Bia não joga há 2 dias no Jogo da Velha: você pode encerrar a partida e vencer.",
               "url": format!("/sala/{}", away.0), "tag": format!("room-{}", away.0)})
    );
    assert!(told(1).await.is_empty(), "Bia is the one away");
    // The closing room tells both that it closes, and Ana that she may claim the game too.
    for (i, other, also) in [(2, "Bia", Some("Bia está ausente")), (3, "Ana", None)] {
        let seen = told(i).await;
        let mut titles: Vec<&str> = seen
            .iter()
            .map(|m| m["payload"]["title"].as_str().unwrap())
            .collect();
        titles.sort_unstable();
        let mut wanted: Vec<&str> = also.into_iter().chain(["A sala fecha amanhã"]).collect();
        wanted.sort_unstable();
        assert_eq!(titles, wanted, "{seen:?}");
        let closing = seen
            .iter()
            .find(|m| m["payload"]["title"] == "A sala fecha amanhã")
            .unwrap();
        assert_eq!(
            closing["payload"]["body"],
            format!("A sala do Jogo da Velha com {other} fecha amanhã se ninguém jogar.")
        );
    }
    assert!(
        told(4).await.is_empty() && told(5).await.is_empty(),
        "a day is not quiet enough"
    );
    let swept = |room: &str| format!("SELECT COUNT(*) FROM push_sweeps WHERE room_id = '{room}'");
    assert_eq!(
        count(&server, &swept(&closing.0)).await,
        2,
        "closing and away"
    );
    assert_eq!(count(&server, &swept(&unheard.0)).await, 0);

    // Every process sweeps, yet a quiet stretch is told once: another start tells nothing.
    server.restart().await;
    tokio::time::sleep(std::time::Duration::from_secs(4)).await;
    for i in 0..6 {
        assert_eq!(told(i).await.len(), [1, 0, 2, 1, 0, 0][i], "device {i}");
    }
    // Ana claims the game: Bia, away, is told how it ended.
    server
        .client()
        .room_act(&away.0, &away.1, RoomAct::ClaimAbsence)
        .await
        .unwrap();
    let bia = push.settled(&devices[1], 1).await;
    assert_eq!(bia.len(), 1, "{bia:?}");
    assert_eq!(bia[0]["payload"]["title"], "Partida encerrada");
    assert_eq!(
        bia[0]["payload"]["body"],
        "Ana encerrou a partida do Jogo da Velha por sua ausência."
    );
    assert_eq!(push.call("refused", json!({})).await, json!([]));
}
on_both!(classic_r12_quiet_rooms_tell_who_may_claim_and_that_the_room_closes_once);

/// Two processes on one PostgreSQL (under one certificate, so a client reaches both) and the
/// push service they send to; None without PostgreSQL.
async fn two_processes() -> Option<(PushService, Server, Server)> {
    let db = Db::postgres().await?;
    let push = PushService::start().await;
    let a = Server::start(db.clone(), &["--push-services", &push.url]).await;
    let b = a.beside(db, &["--push-services", &push.url]).await;
    Some((push, a, b))
}

/// Two processes on one PostgreSQL: a player looking at the room through one is not told of a
/// move the other committed, and is told once they have left.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_r09_a_player_looking_through_another_process_is_not_told() {
    let Some((push, a, b)) = two_processes().await else {
        return;
    };
    let on_a = a.client();
    let on_b = on_a.at(&b.base);
    let (id, made, joined) = ana_and_bia(&on_a, &on_b).await;
    push.device(&a, &on_a, &[&made.credential], "pt-BR").await;
    let bia = push.device(&b, &on_b, &[&joined.credential], "pt-BR").await;
    // Bia looks at the room through B; Ana's move is committed by A, whose sender decides.
    let mut looking = on_b.room_live(&id, &joined.credential).await.unwrap();
    looking
        .recv(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    on_a.room_act(&id, &made.credential, RoomAct::Play { cell: "a1".into() })
        .await
        .unwrap();
    assert!(
        push.settled(&bia, 1).await.is_empty(),
        "Bia was looking through B"
    );
    // She leaves, plays b1 through B; Ana's a2 through A now tells her.
    drop(looking);
    tokio::time::sleep(std::time::Duration::from_millis(500)).await;
    on_b.room_act(&id, &joined.credential, RoomAct::Play { cell: "b1".into() })
        .await
        .unwrap();
    on_a.room_act(&id, &made.credential, RoomAct::Play { cell: "a2".into() })
        .await
        .unwrap();
    let told = push.settled(&bia, 1).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["payload"]["body"], "Ana jogou no Jogo da Velha.");
}

/// A room's live connection that says nothing, not even the answer to the server's pings, is
/// closed: a phone that lost its signal stops counting as looking, and is told. One that
/// answers stays, and is not.
async fn classic_r09_a_silent_connection_stops_counting_as_looking(db: Db) {
    let push = PushService::start().await;
    let server = Server::start(db, &["--push-services", &push.url, "--silence-ms", "1500"]).await;
    let c = server.client();
    let (id, made, joined) = ana_and_bia(&c, &c).await;
    let bia = push
        .device(&server, &c, &[&joined.credential], "pt-BR")
        .await;
    // Bia's page reads (and so answers the pings) for twice the silence, then Ana moves.
    let mut answering = c.room_live(&id, &joined.credential).await.unwrap();
    let reading = tokio::spawn(async move {
        while answering
            .recv(std::time::Duration::from_secs(60))
            .await
            .is_ok()
        {}
    });
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    c.room_act(&id, &made.credential, RoomAct::Play { cell: "a1".into() })
        .await
        .unwrap();
    assert!(
        push.settled(&bia, 1).await.is_empty(),
        "Bia answered the pings: she was looking"
    );
    reading.abort();
    let _ = reading.await;

    // A phone that lost its signal: the connection stays open on its side, and says nothing.
    let mut silent = c.room_live(&id, &joined.credential).await.unwrap();
    silent
        .recv(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    c.room_act(&id, &joined.credential, RoomAct::Play { cell: "b1".into() })
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_secs(3)).await;
    c.room_act(&id, &made.credential, RoomAct::Play { cell: "a2".into() })
        .await
        .unwrap();
    let told = push.settled(&bia, 1).await;
    assert_eq!(told.len(), 1, "{told:?}");
    assert_eq!(told[0]["payload"]["body"], "Ana jogou no Jogo da Velha.");
    // The server closed it: what is left to read ends with the close.
    let mut end = String::new();
    for _ in 0..10 {
        match silent.recv(std::time::Duration::from_secs(5)).await {
            Ok(_) => continue,
            Err(e) => {
                end = e;
                break;
            }
        }
    }
    // Its close frame, or the pipe it broke first when the client answered the pings it read.
    assert!(
        end == "closed" || end.contains("Broken pipe") || end.contains("reset"),
        "the silent connection was closed by the server: {end}"
    );
}
on_both!(classic_r09_a_silent_connection_stops_counting_as_looking);

/// A notice still in its wait when the server stops (a deploy) is kept in the database, and
/// sent once by the process that starts next.
async fn classic_r09_a_notice_waiting_when_the_server_stops_is_sent_after_the_restart(db: Db) {
    let push = PushService::start().await;
    let mut server = Server::start(db, &["--push-services", &push.url]).await;
    let c = server.client();
    let (id, made, joined) = ana_and_bia(&c, &c).await;
    let ana = push.device(&server, &c, &[&made.credential], "pt-BR").await;
    let bia = push
        .device(&server, &c, &[&joined.credential], "pt-BR")
        .await;
    // Bia's joining is told to Ana, past its wait; then Ana moves and the server stops at once.
    assert_eq!(push.settled(&ana, 1).await.len(), 1);
    c.room_act(&id, &made.credential, RoomAct::Play { cell: "a1".into() })
        .await
        .unwrap();
    drop(c);
    assert!(server.terminate().await.success());
    let told = |endpoint: &str| {
        let (push, endpoint) = (&push, endpoint.to_owned());
        async move {
            push.call("messages", json!({"endpoint": endpoint}))
                .await
                .as_array()
                .unwrap()
                .clone()
        }
    };
    assert!(told(&bia).await.is_empty(), "stopped within the wait");
    assert_eq!(
        count(&server, "SELECT COUNT(*) FROM push_pending").await,
        1,
        "Bia's turn is kept"
    );
    server.start_again().await;
    let told_bia = push.settled(&bia, 1).await;
    assert_eq!(told_bia.len(), 1, "{told_bia:?}");
    assert_eq!(
        told_bia[0]["payload"]["body"],
        "Ana jogou no Jogo da Velha."
    );
    assert_eq!(told(&ana).await.len(), 1, "Ana hears nothing more");
    assert_eq!(count(&server, "SELECT COUNT(*) FROM push_pending").await, 0);
    assert_eq!(push.call("refused", json!({})).await, json!([]));
}
on_both!(classic_r09_a_notice_waiting_when_the_server_stops_is_sent_after_the_restart);

/// A process paused long enough to be given up for dead loses its room connections' rows to
/// the others; once it runs again it writes them back, and a player looking through it is
/// still not told.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn classic_r09_a_process_given_up_for_dead_writes_back_who_looks() {
    let Some((push, a, b)) = two_processes().await else {
        return;
    };
    let on_a = a.client();
    let on_b = on_a.at(&b.base);
    let (id, made, joined) = ana_and_bia(&on_b, &on_b).await;
    let bia = push.device(&b, &on_b, &[&joined.credential], "pt-BR").await;
    // Bia and a spectator look through A.
    let mut looking = on_a.room_live(&id, &joined.credential).await.unwrap();
    looking
        .recv(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let mut watching = on_a.room_live(&id, "").await.unwrap();
    watching
        .recv(std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let rows = "SELECT CAST((SELECT COUNT(*) FROM room_seat_presence) + \
                (SELECT COALESCE(SUM(watching), 0) FROM room_spectators) AS BIGINT)";
    assert_eq!(count(&b, rows).await, 2);
    // A stops for longer than the others wait: B gives it up, with its rows.
    a.signal("STOP");
    tokio::time::sleep(std::time::Duration::from_secs(8)).await;
    let buried = count(&b, rows).await;
    a.signal("CONT");
    assert_eq!(buried, 0, "B gave A up for dead");
    let mut back = 0;
    for _ in 0..50 {
        back = count(&b, rows).await;
        if back == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(200)).await;
    }
    assert_eq!(
        back, 2,
        "A wrote back Bia's connection and the spectator's place"
    );
    // Ana's move through B: B's sender sees Bia looking through A.
    on_b.room_act(&id, &made.credential, RoomAct::Play { cell: "a1".into() })
        .await
        .unwrap();
    assert!(
        push.settled(&bia, 1).await.is_empty(),
        "Bia was looking through A"
    );
}
