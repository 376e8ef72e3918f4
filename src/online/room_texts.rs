//! What the invitation rooms say (CLASSIC-R08 … R13), in Brazilian Portuguese and English, and
//! every refusal of a room's request as a sentence.

use velha_api::ErrorCode;

use super::client::Problem;
use super::texts::{OnlineTexts, sentence};

/// The rooms' texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct RoomTexts {
    pub play_with_someone: &'static str,
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
    pub turn_of: &'static str,
    pub you_won: &'static str,
    pub you_lost: &'static str,
    pub draw: &'static str,
    pub wins: &'static str,
    pub by_resignation: &'static str,
    pub by_absence: &'static str,
    pub rematch: &'static str,
    pub rematch_asked: &'static str,
    pub resign: &'static str,
    pub resign_confirm: &'static str,
    pub claim: &'static str,
    /// Followed by a time.
    pub claim_in: &'static str,
    pub watching: &'static str,
    pub spectators: &'static str,
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
}

/// Brazilian Portuguese (wording from the seed).
pub static ROOMS_PT: RoomTexts = RoomTexts {
    play_with_someone: "JOGAR COM ALGUÉM",
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
    turn_of: "Vez de",
    you_won: "Você venceu!",
    you_lost: "Você perdeu.",
    draw: "Deu velha!",
    wins: "venceu",
    by_resignation: "O outro desistiu.",
    by_absence: "Encerrada por ausência.",
    rematch: "Jogar outra",
    rematch_asked: "Esperando o outro aceitar a revanche…",
    resign: "Desistir",
    resign_confirm: "Quem desiste perde, e a partida fica para o outro. Desistir mesmo?",
    claim: "Encerrar como vencedor (ausência)",
    claim_in: "Se o outro não jogar, você pode encerrar por ausência em",
    watching: "Você está assistindo.",
    spectators: "assistindo",
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
};

/// English.
pub static ROOMS_EN: RoomTexts = RoomTexts {
    play_with_someone: "PLAY WITH SOMEONE",
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
    turn_of: "Turn of",
    you_won: "You won!",
    you_lost: "You lost.",
    draw: "A draw!",
    wins: "won",
    by_resignation: "The other player resigned.",
    by_absence: "Ended for absence.",
    rematch: "Play again",
    rematch_asked: "Waiting for the other to accept the rematch…",
    resign: "Resign",
    resign_confirm: "Whoever resigns loses, and the game goes to the other. Resign anyway?",
    claim: "End as the winner (absence)",
    claim_in: "If the other does not play, you may end the game for absence in",
    watching: "You are watching.",
    spectators: "watching",
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
};

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
