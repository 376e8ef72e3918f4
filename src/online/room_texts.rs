//! What the invitation rooms say (CLASSIC-R08 … R13), in Brazilian Portuguese and English, and
//! every refusal of a room's request as a sentence.

use velha_api::{EndHow, Ending, ErrorCode, Seat};

use super::client::Problem;
use super::texts::{OnlineTexts, sentence};
use crate::i18n::counted;

/// The rooms' texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct RoomTexts {
    pub invitation: &'static str,
    pub choose_yours: &'static str,
    pub your_name: &'static str,
    pub name_hint: &'static str,
    pub create: &'static str,
    pub enter: &'static str,
    pub join_title: &'static str,
    pub choose_left: &'static str,
    pub send_link: &'static str,
    pub share: &'static str,
    pub shared: &'static str,
    pub waiting: &'static str,
    pub your_turn: &'static str,
    /// A count of rooms waiting for the player's move: one, many.
    pub waiting_counted: [&'static str; 2],
    pub turn_of: fn(&str) -> String,
    /// The O seat before anyone took it.
    pub seat_free: &'static str,
    /// A Super room's choice of who begins its first game (SUPER-R05), and the line that tells
    /// it while the guest's seat is free.
    pub who_starts: &'static str,
    pub coin_by_server: &'static str,
    pub first_game: &'static str,
    /// How a game ended, for its winner, its loser and a spectator (`ending_sentence`).
    pub draw: &'static str,
    pub won_line: &'static str,
    pub lost_line: fn(&str) -> String,
    pub watched_line: fn(&str) -> String,
    pub resigned: &'static str,
    pub won_resigned: fn(&str) -> String,
    pub watched_resigned: fn(&str, &str) -> String,
    pub lost_absent: &'static str,
    pub won_absent: fn(&str) -> String,
    pub watched_absent: fn(&str, &str) -> String,
    pub rematch: &'static str,
    /// The other player's name, once this one asked.
    pub rematch_asked: fn(&str) -> String,
    /// The name of the player who asked, and the button that accepts.
    pub rematch_offered: fn(&str) -> String,
    pub accept_rematch: &'static str,
    pub resign: &'static str,
    pub resign_confirm: &'static str,
    pub claim: &'static str,
    /// The other player's name and the time left.
    pub claim_in: fn(&str, &str) -> String,
    /// Everyone watching, the reader among them.
    pub watching: fn(u32) -> String,
    pub spectators: fn(u32) -> String,
    /// A player's wins in the series, for spectators, who have no side of their own.
    pub wins_of: fn(&str, u32) -> String,
    pub closed: &'static str,
    pub full: &'static str,
    pub gone: &'static str,
    pub reconnecting: &'static str,
    pub hours: &'static str,
    pub minutes: &'static str,
    pub avatar_taken: &'static str,
    pub taken: &'static str,
    pub not_your_turn: &'static str,
    pub not_absent: &'static str,
    pub bad_name: &'static str,
    pub your_rooms: &'static str,
    pub their_turn: &'static str,
    pub game_over: &'static str,
    pub alert_title: &'static str,
    pub alert_ask: &'static str,
    pub alert_on: &'static str,
    /// Told with the app closed too (the device is subscribed).
    pub push_on: &'static str,
    pub push_turn_off: &'static str,
    /// Notifications refused by the player or the browser's settings.
    pub push_denied: &'static str,
    /// A browser with no push manager.
    pub push_unsupported: &'static str,
    /// The browser's push service, or the server, did not answer.
    pub push_failed: &'static str,
}

/// Brazilian Portuguese (wording from the seed).
pub static ROOMS_PT: RoomTexts = RoomTexts {
    invitation: "Jogar com alguém por convite",
    choose_yours: "Escolha o seu personagem",
    your_name: "Seu nome",
    name_hint: "1 a 24 caracteres.",
    create: "Criar sala e pegar o link",
    enter: "Entrar na sala",
    join_title: "Você foi convidado para uma partida",
    choose_left: "Escolha um dos personagens que sobraram",
    send_link: "Mande este link para quem vai jogar com você:",
    share: "Compartilhar o link",
    shared: "Link pronto para enviar.",
    waiting: "Esperando alguém abrir o link…",
    your_turn: "Sua vez",
    waiting_counted: ["sala esperando a sua vez", "salas esperando a sua vez"],
    turn_of: |name| format!("Vez de {name}"),
    seat_free: "esperando…",
    who_starts: "Quem começa a primeira partida",
    coin_by_server: "O servidor joga a moeda quando a sala é criada: ninguém escolhe o resultado.",
    first_game: "Primeira partida",
    draw: "Deu velha!",
    won_line: "Você venceu com uma linha!",
    lost_line: |winner| format!("Você perdeu: {winner} ficou com uma linha."),
    watched_line: |winner| format!("{winner} venceu com uma linha."),
    resigned: "Você desistiu.",
    won_resigned: |loser| format!("Você venceu: {loser} desistiu."),
    watched_resigned: |winner, loser| format!("{winner} venceu: {loser} desistiu."),
    lost_absent: "Você perdeu: ficou mais de 2 dias sem jogar.",
    won_absent: |loser| format!("Você venceu: {loser} ficou mais de 2 dias sem jogar."),
    watched_absent: |winner, loser| {
        format!("{winner} venceu: {loser} ficou mais de 2 dias sem jogar.")
    },
    rematch: "Jogar outra",
    rematch_asked: |other| format!("Esperando {other} aceitar outra partida…"),
    rematch_offered: |other| format!("{other} quer outra partida."),
    accept_rematch: "Aceitar e jogar outra",
    resign: "Desistir",
    resign_confirm: "Quem desiste perde, e a partida fica para o outro. Desistir mesmo?",
    claim: "Encerrar como vencedor (ausência)",
    claim_in: |other, time| {
        format!("Se {other} não jogar, você pode encerrar por ausência em {time}.")
    },
    watching: |n| match n {
        0 | 1 => "Você está assistindo.".into(),
        2 => "Você e mais 1 pessoa estão assistindo.".into(),
        n => format!("Você e mais {} pessoas estão assistindo.", n - 1),
    },
    spectators: |n| counted(n, "pessoa assistindo", "pessoas assistindo"),
    wins_of: |name, n| format!("{name}: {}", counted(n, "vitória", "vitórias")),
    closed: "Sala fechada: ficou 7 dias sem jogada.",
    full: "Esta sala já tem 50 pessoas assistindo. Tente mais tarde.",
    gone: "Esta sala não existe. Confira o link.",
    reconnecting: "Sem conexão. Tentando de novo…",
    hours: "h",
    minutes: "min",
    avatar_taken: "Esse personagem já é do outro jogador. Escolha outro.",
    taken: "Alguém entrou antes: agora você pode assistir.",
    not_your_turn: "Não é a sua vez.",
    not_absent: "Ainda não: o outro tem 2 dias para jogar.",
    bad_name: "O nome precisa ter de 1 a 24 caracteres.",
    your_rooms: "Suas salas",
    their_turn: "Vez do outro",
    game_over: "Partida encerrada",
    alert_title: "Sua vez!",
    alert_ask: "Avise-me quando for a minha vez",
    alert_on: "Você será avisado quando for a sua vez, mesmo com a página em segundo plano.",
    push_on: "Você será avisado quando for a sua vez e do que acontecer nas suas salas, mesmo com o app fechado.",
    push_turn_off: "Desligar avisos",
    push_denied: "As notificações estão bloqueadas neste navegador. Para ser avisado, permita as notificações deste site nas configurações do navegador.",
    push_unsupported: "Este navegador não avisa com o app fechado.",
    push_failed: "Não foi possível ligar os avisos com o app fechado agora. Tente de novo daqui a pouco.",
};

/// English.
pub static ROOMS_EN: RoomTexts = RoomTexts {
    invitation: "Play with someone by invitation",
    choose_yours: "Choose your character",
    your_name: "Your name",
    name_hint: "1 to 24 characters.",
    create: "Create the room and get the link",
    enter: "Enter the room",
    join_title: "You were invited to a game",
    choose_left: "Choose one of the characters left",
    send_link: "Send this link to whoever will play with you:",
    share: "Share the link",
    shared: "The link is ready to send.",
    waiting: "Waiting for someone to open the link…",
    your_turn: "Your turn",
    waiting_counted: ["room waiting for your move", "rooms waiting for your move"],
    turn_of: |name| format!("{name}'s turn"),
    seat_free: "waiting…",
    who_starts: "Who begins the first game",
    coin_by_server: "The server tosses the coin when the room is made, so nobody picks the result.",
    first_game: "First game",
    draw: "A draw!",
    won_line: "You won with a line!",
    lost_line: |winner| format!("You lost: {winner} got a line."),
    watched_line: |winner| format!("{winner} won with a line."),
    resigned: "You resigned.",
    won_resigned: |loser| format!("You won: {loser} resigned."),
    watched_resigned: |winner, loser| format!("{winner} won: {loser} resigned."),
    lost_absent: "You lost: you did not play for more than 2 days.",
    won_absent: |loser| format!("You won: {loser} did not play for more than 2 days."),
    watched_absent: |winner, loser| {
        format!("{winner} won: {loser} did not play for more than 2 days.")
    },
    rematch: "Play again",
    rematch_asked: |other| format!("Waiting for {other} to accept another game…"),
    rematch_offered: |other| format!("{other} wants another game."),
    accept_rematch: "Accept and play again",
    resign: "Resign",
    resign_confirm: "Whoever resigns loses, and the game goes to the other. Resign anyway?",
    claim: "End as the winner (absence)",
    claim_in: |other, time| {
        format!("If {other} does not play, you may end the game for absence in {time}.")
    },
    watching: |n| match n {
        0 | 1 => "You are watching.".into(),
        2 => "You and 1 other person are watching.".into(),
        n => format!("You and {} other people are watching.", n - 1),
    },
    spectators: |n| counted(n, "person watching", "people watching"),
    wins_of: |name, n| format!("{name}: {}", counted(n, "win", "wins")),
    closed: "Room closed: 7 days without a move.",
    full: "This room already has 50 people watching. Try later.",
    gone: "This room does not exist. Check the link.",
    reconnecting: "No connection. Trying again…",
    hours: "h",
    minutes: "min",
    avatar_taken: "The other player has this character. Choose another.",
    taken: "Someone got in first: now you can watch.",
    not_your_turn: "It is not your turn.",
    not_absent: "Not yet: the other has 2 days to play.",
    bad_name: "The name needs 1 to 24 characters.",
    your_rooms: "Your rooms",
    their_turn: "The other's turn",
    game_over: "Game over",
    alert_title: "Your turn!",
    alert_ask: "Tell me when it is my turn",
    alert_on: "You will be told when it is your turn, even with the page in the background.",
    push_on: "You will be told when it is your turn and of what happens in your rooms, even with the app closed.",
    push_turn_off: "Turn notices off",
    push_denied: "Notifications are blocked in this browser. To be told, allow this site's notifications in the browser's settings.",
    push_unsupported: "This browser can't notify you while the app is closed.",
    push_failed: "Notices with the app closed could not be turned on now. Try again in a moment.",
};

/// How a room's game ended, as its reader sees it: a seated player (`you`) or a spectator;
/// `names` are X's and O's.
pub fn ending_sentence(r: &RoomTexts, end: Ending, you: Option<Seat>, names: [&str; 2]) -> String {
    let Some(winner) = end.winner else {
        return r.draw.into();
    };
    let (w, l) = match winner {
        Seat::X => (names[0], names[1]),
        Seat::O => (names[1], names[0]),
    };
    let won = you.map(|s| s == winner);
    match (end.how, won) {
        (EndHow::Resigned, Some(true)) => (r.won_resigned)(l),
        (EndHow::Resigned, Some(false)) => r.resigned.into(),
        (EndHow::Resigned, None) => (r.watched_resigned)(w, l),
        (EndHow::Absent, Some(true)) => (r.won_absent)(l),
        (EndHow::Absent, Some(false)) => r.lost_absent.into(),
        (EndHow::Absent, None) => (r.watched_absent)(w, l),
        (_, Some(true)) => r.won_line.into(),
        (_, Some(false)) => (r.lost_line)(w),
        (_, None) => (r.watched_line)(w),
    }
}

/// A refusal of a room's request, as the player reads it.
pub fn room_sentence(r: &RoomTexts, o: &OnlineTexts, problem: &Problem) -> String {
    let Problem::Refused(error) = problem else {
        return sentence(o, problem);
    };
    match error.code {
        ErrorCode::AvatarTaken => r.avatar_taken.into(),
        ErrorCode::Conflict => r.taken.into(),
        ErrorCode::NotYourTurn => r.not_your_turn.into(),
        ErrorCode::NotAbsentYet => r.not_absent.into(),
        ErrorCode::RoomClosed => r.closed.into(),
        ErrorCode::RoomFull => r.full.into(),
        ErrorCode::NotFound => r.gone.into(),
        ErrorCode::BadName => r.bad_name.into(),
        _ => sentence(o, problem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::online::texts::checks::{all_distinct, refused};
    use crate::online::texts::{ONLINE_EN, ONLINE_PT};

    fn ended(r: &RoomTexts, how: EndHow, you: Option<Seat>) -> String {
        let end = Ending {
            winner: Some(Seat::O),
            how,
        };
        ending_sentence(r, end, you, ["Ana", "Bia"])
    }

    /// CLASSIC-R11: whoever resigned reads that they did; the winner and the spectators read
    /// who resigned, by name.
    #[test]
    fn classic_r11_a_resignation_reads_right_for_each_reader() {
        use EndHow::Resigned;
        assert_eq!(ended(&ROOMS_PT, Resigned, Some(Seat::X)), "Você desistiu.");
        assert_eq!(
            ended(&ROOMS_PT, Resigned, Some(Seat::O)),
            "Você venceu: Ana desistiu."
        );
        assert_eq!(
            ended(&ROOMS_PT, Resigned, None),
            "Bia venceu: Ana desistiu."
        );
        assert_eq!(ended(&ROOMS_EN, Resigned, Some(Seat::X)), "You resigned.");
        assert_eq!(
            ended(&ROOMS_EN, Resigned, Some(Seat::O)),
            "You won: Ana resigned."
        );
        assert_eq!(ended(&ROOMS_EN, Resigned, None), "Bia won: Ana resigned.");
    }

    /// CLASSIC-R03, R12: a line and an absence name the other player, and a draw is a draw.
    #[test]
    fn classic_r12_a_line_an_absence_and_a_draw_read_right_for_each_reader() {
        use EndHow::{Absent, Line};
        assert_eq!(
            ended(&ROOMS_PT, Line, Some(Seat::O)),
            "Você venceu com uma linha!"
        );
        assert_eq!(
            ended(&ROOMS_PT, Line, Some(Seat::X)),
            "Você perdeu: Bia ficou com uma linha."
        );
        assert_eq!(ended(&ROOMS_PT, Line, None), "Bia venceu com uma linha.");
        assert_eq!(
            ended(&ROOMS_EN, Line, Some(Seat::X)),
            "You lost: Bia got a line."
        );
        assert_eq!(ended(&ROOMS_EN, Line, None), "Bia won with a line.");
        assert_eq!(
            ended(&ROOMS_PT, Absent, Some(Seat::O)),
            "Você venceu: Ana ficou mais de 2 dias sem jogar."
        );
        assert_eq!(
            ended(&ROOMS_PT, Absent, Some(Seat::X)),
            "Você perdeu: ficou mais de 2 dias sem jogar."
        );
        assert_eq!(
            ended(&ROOMS_EN, Absent, None),
            "Bia won: Ana did not play for more than 2 days."
        );
        let draw = Ending {
            winner: None,
            how: EndHow::Draw,
        };
        for you in [Some(Seat::X), None] {
            assert_eq!(
                ending_sentence(&ROOMS_PT, draw, you, ["Ana", "Bia"]),
                "Deu velha!"
            );
            assert_eq!(
                ending_sentence(&ROOMS_EN, draw, you, ["Ana", "Bia"]),
                "A draw!"
            );
        }
    }

    /// CLASSIC-R10: the rematch names who asked and who is awaited.
    #[test]
    fn classic_r10_the_rematch_names_the_other_player() {
        assert_eq!((ROOMS_PT.rematch_offered)("Ana"), "Ana quer outra partida.");
        assert_eq!((ROOMS_EN.rematch_offered)("Ana"), "Ana wants another game.");
        assert_eq!(
            (ROOMS_PT.rematch_asked)("Bia"),
            "Esperando Bia aceitar outra partida…"
        );
        assert_eq!(
            (ROOMS_EN.rematch_asked)("Bia"),
            "Waiting for Bia to accept another game…"
        );
        assert_eq!((ROOMS_PT.turn_of)("Bia"), "Vez de Bia");
        assert_eq!((ROOMS_EN.turn_of)("Bia"), "Bia's turn");
    }

    /// CLASSIC-R13: the number watching agrees with its words, the reader counted once.
    #[test]
    fn classic_r13_the_spectators_are_counted_in_words() {
        let spectators = |r: &RoomTexts| [0, 1, 2].map(r.spectators);
        assert_eq!(
            spectators(&ROOMS_PT),
            [
                "0 pessoas assistindo",
                "1 pessoa assistindo",
                "2 pessoas assistindo"
            ]
        );
        assert_eq!(
            spectators(&ROOMS_EN),
            [
                "0 people watching",
                "1 person watching",
                "2 people watching"
            ]
        );
        let watching = |r: &RoomTexts| [1, 2, 3].map(r.watching);
        assert_eq!(
            watching(&ROOMS_PT),
            [
                "Você está assistindo.",
                "Você e mais 1 pessoa estão assistindo.",
                "Você e mais 2 pessoas estão assistindo."
            ]
        );
        assert_eq!(
            watching(&ROOMS_EN),
            [
                "You are watching.",
                "You and 1 other person are watching.",
                "You and 2 other people are watching."
            ]
        );
        assert_eq!(
            (ROOMS_PT.claim_in)("Bia", "1 h 30 min"),
            "Se Bia não jogar, você pode encerrar por ausência em 1 h 30 min."
        );
    }

    /// CLASSIC-R08 … R13: each refusal a room can give is its own sentence in both languages,
    /// never the server's English.
    #[test]
    fn classic_r08_every_room_refusal_is_a_sentence_of_its_own() {
        use ErrorCode::*;
        for (r, o) in [(&ROOMS_PT, &ONLINE_PT), (&ROOMS_EN, &ONLINE_EN)] {
            let codes = [
                AvatarTaken,
                Conflict,
                NotYourTurn,
                NotAbsentYet,
                RoomClosed,
                RoomFull,
                NotFound,
                BadName,
            ];
            all_distinct(
                codes
                    .iter()
                    .map(|c| room_sentence(r, o, &refused(*c)))
                    .collect(),
            );
        }
    }
}
