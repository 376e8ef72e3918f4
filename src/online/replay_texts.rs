//! What the replay of a finished game says (ON-P01), in Brazilian Portuguese and English.

use velha_api::{EndHow, ErrorCode};

use super::client::Problem;
use super::texts::{OnlineTexts, sentence};

/// The replay's texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct ReplayTexts {
    pub title: &'static str,
    pub start: &'static str,
    pub move_word: &'static str,
    pub of: &'static str,
    pub first: &'static str,
    pub back: &'static str,
    pub forward: &'static str,
    pub last: &'static str,
    pub play: &'static str,
    pub pause: &'static str,
    pub speed: &'static str,
    pub won: &'static str,
    pub line: &'static str,
    pub cube_line: &'static str,
    pub both_lines: &'static str,
    pub draw: &'static str,
    pub time: &'static str,
    pub abandonment: &'static str,
    pub resigned: &'static str,
    pub absent: &'static str,
    pub share: &'static str,
    pub shared: &'static str,
    pub watch: &'static str,
    pub gone: &'static str,
    pub damaged: &'static str,
}

/// Brazilian Portuguese.
pub static REPLAYS_PT: ReplayTexts = ReplayTexts {
    title: "Rever a partida",
    start: "Início da partida",
    move_word: "Lance",
    of: "de",
    first: "Início",
    back: "Voltar um lance",
    forward: "Avançar um lance",
    last: "Fim",
    play: "Reproduzir",
    pause: "Pausar",
    speed: "Velocidade",
    won: "venceu",
    line: "com uma linha.",
    cube_line: "com uma linha no lado 1.",
    both_lines: "porque o giro de {loser} formou linhas dos dois.",
    draw: "Deu velha.",
    time: "por tempo.",
    abandonment: "por abandono.",
    resigned: "porque {loser} desistiu.",
    absent: "porque {loser} ficou ausente.",
    share: "Compartilhar a partida",
    shared: "Link da partida pronto para enviar.",
    watch: "Rever a partida",
    gone: "Esta partida não existe ou ainda não terminou.",
    damaged: "O registro desta partida está danificado.",
};

/// English.
pub static REPLAYS_EN: ReplayTexts = ReplayTexts {
    title: "Game replay",
    start: "Start of the game",
    move_word: "Move",
    of: "of",
    first: "Start",
    back: "One move back",
    forward: "One move forward",
    last: "End",
    play: "Play",
    pause: "Pause",
    speed: "Speed",
    won: "won",
    line: "with a line.",
    cube_line: "with a line on side 1.",
    both_lines: "because {loser}'s rotation made lines for both.",
    draw: "A draw.",
    time: "on time.",
    abandonment: "by abandonment.",
    resigned: "because {loser} resigned.",
    absent: "because {loser} was away.",
    share: "Share this game",
    shared: "The game's link is ready to send.",
    watch: "Watch the replay",
    gone: "This game does not exist or has not finished yet.",
    damaged: "This game's record is damaged.",
};

/// How the game ended, after the winner's name; `loser` names the other player where the
/// sentence is about what they did.
pub fn how_text(r: &ReplayTexts, how: EndHow, cube: bool, loser: &str) -> String {
    let said = match how {
        EndHow::Line if cube => r.cube_line,
        EndHow::Line => r.line,
        EndHow::BothLines => r.both_lines,
        EndHow::Draw => r.draw,
        EndHow::Time => r.time,
        EndHow::Abandonment => r.abandonment,
        EndHow::Resigned => r.resigned,
        EndHow::Absent => r.absent,
    };
    said.replace("{loser}", loser)
}

/// Why a replay cannot be shown, as a sentence.
pub fn replay_sentence(r: &ReplayTexts, o: &OnlineTexts, problem: &Problem) -> String {
    match problem {
        Problem::Refused(e) if matches!(e.code, ErrorCode::NotFound | ErrorCode::BadRequest) => {
            r.gone.into()
        }
        Problem::Refused(e) if e.code == ErrorCode::DamagedRecord => r.damaged.into(),
        _ => sentence(o, problem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ON-P01: every ending reads differently in both languages.
    #[test]
    fn on_p01_every_ending_is_a_sentence_of_its_own() {
        use EndHow::*;
        for r in [&REPLAYS_PT, &REPLAYS_EN] {
            let mut said: Vec<String> =
                [Line, BothLines, Draw, Time, Abandonment, Resigned, Absent]
                    .into_iter()
                    .map(|h| how_text(r, h, false, "Bia"))
                    .collect();
            said.push(how_text(r, Line, true, "Bia"));
            let before = said.len();
            said.sort();
            said.dedup();
            assert_eq!(said.len(), before, "{said:?}");
        }
        assert_ne!(REPLAYS_PT.gone, REPLAYS_EN.gone);
    }

    /// ON-P01: only a record the server could not replay reads as damaged; a server failing
    /// for a moment (its database out of reach) reads as that, and is offered again.
    #[test]
    fn on_p01_only_a_damaged_record_reads_as_damaged() {
        use super::super::texts::{ONLINE_EN, ONLINE_PT};
        use velha_api::ApiError;
        let refused = |code| Problem::Refused(ApiError::new(code, "any"));
        for (r, o) in [(&REPLAYS_PT, &ONLINE_PT), (&REPLAYS_EN, &ONLINE_EN)] {
            let said = |p: &Problem| replay_sentence(r, o, p);
            assert_eq!(said(&refused(ErrorCode::DamagedRecord)), r.damaged);
            assert!(!refused(ErrorCode::DamagedRecord).passing());
            assert!(!refused(ErrorCode::NotFound).passing());
            assert!(!refused(ErrorCode::Forbidden).passing());
            assert!(!refused(ErrorCode::Unauthorized).passing());
            assert!(Problem::Offline.passing());
            assert!(refused(ErrorCode::RateLimited).passing());
            // A service this server was not given: a tap cannot give it one.
            assert!(!refused(ErrorCode::MailUnavailable).passing());
            for passing in [
                ErrorCode::Internal,
                ErrorCode::NotReady,
                ErrorCode::Timeout,
                ErrorCode::Unrecognized,
            ] {
                let s = said(&refused(passing));
                assert_eq!(s, o.server_failed, "{passing:?}");
                assert!(refused(passing).passing(), "{passing:?}");
            }
            assert_eq!(said(&Problem::Offline), o.offline);
            assert_eq!(said(&refused(ErrorCode::NotFound)), r.gone);
        }
    }

    #[test]
    fn on_p01_a_resignation_names_who_resigned() {
        let said = |r| how_text(r, EndHow::Resigned, false, "Bia");
        assert_eq!(said(&REPLAYS_PT), "porque Bia desistiu.");
        assert_eq!(said(&REPLAYS_EN), "because Bia resigned.");
    }
}
