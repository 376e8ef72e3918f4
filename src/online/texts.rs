//! What the online screens say, in Brazilian Portuguese and English, and every refusal of
//! the server as a sentence.

use velha_api::{EndHow, ErrorCode, Illegal, MatchGame, PasswordProblem, Refusal};

use super::client::Problem;
use crate::online::email_texts::{email_sentence, email_texts};
use crate::online::moderation_texts::{moderation_sentence, moderation_texts};

/// The online screens' texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct OnlineTexts {
    /// Portuguese: password problems come from `velha-api` in the same language.
    pub pt: bool,
    pub sign_up: &'static str,
    pub account_title: &'static str,
    pub email: &'static str,
    pub password: &'static str,
    pub name: &'static str,
    pub name_hint: &'static str,
    pub password_hint: &'static str,
    pub enter: &'static str,
    pub create: &'static str,
    pub working: &'static str,
    pub no_account_yet: &'static str,
    pub have_account: &'static str,
    pub sign_out: &'static str,
    pub country: &'static str,
    pub choose_country: &'static str,
    pub country_hint: &'static str,
    pub country_search: &'static str,
    pub no_country_found: &'static str,
    pub change_country: &'static str,
    pub subscribers_only: &'static str,
    pub payments_unavailable: &'static str,
    pub no_customer: &'static str,
    pub offline: &'static str,
    pub empty_email: &'static str,
    pub empty_password: &'static str,
    pub empty_name: &'static str,
    pub bad_email: &'static str,
    pub email_taken: &'static str,
    pub bad_name: &'static str,
    pub name_taken: &'static str,
    pub wrong_password: &'static str,
    pub too_long: &'static str,
    pub bad_region: &'static str,
    pub empty_country: &'static str,
    pub bad_country: &'static str,
    /// The seconds to wait, said in seconds under two minutes and in minutes above.
    pub rate_limited: fn(u64) -> String,
    pub expired: &'static str,
    pub server_failed: &'static str,
    /// The Velha in the middle of a sentence, with her article.
    pub the_velha: &'static str,
    pub mundial: &'static str,
    pub nacional: &'static str,
    pub create_match: &'static str,
    pub no_open_matches: &'static str,
    pub join: &'static str,
    pub waiting: &'static str,
    pub cancel: &'static str,
    pub connecting: &'static str,
    /// The seconds until the next try.
    pub reconnecting_in: fn(u64) -> String,
    /// The seconds of grace left.
    pub come_back_within: fn(u64) -> String,
    pub your_turn: &'static str,
    pub turn_of_name: fn(&str) -> String,
    /// How a match ended, for its winner and its loser, naming the opponent
    /// (`match_ending`); 2.0's line is of boards, its time three lost turns.
    pub won_line: &'static str,
    pub lost_line: fn(&str) -> String,
    pub won_board_line: &'static str,
    pub lost_board_line: fn(&str) -> String,
    pub won_both_lines: fn(&str) -> String,
    pub lost_both_lines: &'static str,
    pub won_time: fn(&str) -> String,
    pub lost_time: &'static str,
    pub won_lost_turns: fn(&str) -> String,
    pub lost_lost_turns: &'static str,
    pub won_abandonment: fn(&str) -> String,
    pub lost_abandonment: &'static str,
    pub drawn: &'static str,
    pub back_to_lobby: &'static str,
    pub leave_match: &'static str,
    pub leave: &'static str,
    pub leave_confirm: &'static str,
    /// The opponent's name and the seconds left to come back.
    pub away_for: fn(&str, f64) -> String,
    pub not_your_turn: &'static str,
    pub board_decided: &'static str,
    pub occupied: &'static str,
    pub match_changed: &'static str,
    pub move_not_stored: &'static str,
    pub wrong_country: &'static str,
    pub already_playing: &'static str,
    pub taken: &'static str,
    pub own_match: &'static str,
    pub or: &'static str,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub google_sign_in: &'static str,
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub google_loading: &'static str,
    #[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
    pub google_unavailable: &'static str,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub google_in_browser: &'static str,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub google_no_browser: &'static str,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub google_cancelled: &'static str,
    pub google_failed: &'static str,
    pub google_down: &'static str,
    pub google_choose_name: &'static str,
    pub google_email_taken: &'static str,
    pub google_taken: &'static str,
    pub google: &'static str,
    pub google_linked: &'static str,
    pub link_google: &'static str,
    /// The page the system browser shows once the desktop sign-in is over.
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub browser_done: &'static str,
    #[cfg_attr(target_arch = "wasm32", allow(dead_code))]
    pub browser_failed: &'static str,
    pub ranking: &'static str,
    pub sign_in_for_ranking: &'static str,
    pub your_place: &'static str,
    pub not_ranked: &'static str,
    pub nobody_ranked: &'static str,
    pub points_short: &'static str,
    pub wins_short: &'static str,
    pub losses_short: &'static str,
    pub more: &'static str,
    pub not_scored: &'static str,
    pub play_velha: &'static str,
    pub group_not_started: &'static str,
}

/// Brazilian Portuguese.
pub static ONLINE_PT: OnlineTexts = OnlineTexts {
    pt: true,
    sign_up: "Criar conta",
    account_title: "Sua conta",
    email: "E-mail",
    password: "Senha",
    name: "Nome de jogador",
    name_hint: "3 a 20 letras, números, _, - ou .",
    password_hint: "Pelo menos 8 caracteres; uma frase é mais forte.",
    enter: "ENTRAR",
    create: "CRIAR CONTA",
    working: "Aguarde…",
    no_account_yet: "Ainda não tem conta? Criar conta",
    have_account: "Já tem conta? Entrar",
    sign_out: "Sair da conta",
    country: "País",
    choose_country: "Escolha seu país",
    country_hint: "Seu ranking nacional é o desse país.",
    country_search: "Procurar país",
    no_country_found: "Nenhum país com esse nome.",
    change_country: "Mudar país",
    subscribers_only: "O jogo online e o mini ranking são para assinantes. Com a assinatura você joga o Cubo da Velha contra pessoas do mundo todo ou do seu país.",
    payments_unavailable: "O pagamento não está disponível agora, e nada foi cobrado. Tente de novo mais tarde.",
    no_customer: "Você ainda não tem uma assinatura paga para gerenciar.",
    offline: "Sem conexão com o servidor.",
    empty_email: "Digite seu e-mail.",
    empty_password: "Digite a senha.",
    empty_name: "Escolha um nome de jogador.",
    bad_email: "Esse e-mail não parece válido.",
    email_taken: "Já existe uma conta com esse e-mail. Entre com ela.",
    bad_name: "O nome precisa ter de 3 a 20 letras, números, _, - ou .",
    name_taken: "Esse nome já é de outro jogador. Escolha outro.",
    wrong_password: "E-mail ou senha errados.",
    too_long: "Esse texto é longo demais.",
    bad_region: "A região deste aparelho não diz o país: escolha seu país na lista.",
    empty_country: "Escolha seu país na lista.",
    bad_country: "Esse país não está na lista. Escolha outro.",
    rate_limited: |s| {
        format!(
            "Muitas tentativas. Tente de novo em {}.",
            wait(s, ("segundo", "segundos"), ("minuto", "minutos"))
        )
    },
    expired: "Sua sessão terminou. Entre de novo.",
    server_failed: "O servidor não conseguiu atender agora. Tente de novo.",
    the_velha: "a Velha",
    mundial: "Mundial",
    nacional: "Nacional",
    create_match: "Criar partida",
    no_open_matches: "Nenhuma partida esperando adversário. Crie uma!",
    join: "Jogar",
    waiting: "Esperando adversário…",
    cancel: "Cancelar",
    connecting: "Conectando…",
    reconnecting_in: |s| format!("Sem conexão. Tentando de novo em {s} s…"),
    come_back_within: |s| format!("A partida é perdida por abandono se você não voltar em {s} s."),
    your_turn: "Sua vez",
    turn_of_name: |name| format!("Vez de {name}"),
    won_line: "Você venceu com uma linha no lado 1.",
    lost_line: |winner| format!("Você perdeu: {winner} ficou com uma linha no lado 1."),
    won_board_line: "Você venceu com uma linha de tabuleiros.",
    lost_board_line: |winner| format!("Você perdeu: {winner} ficou com uma linha de tabuleiros."),
    won_both_lines: |loser| format!("Você venceu: o giro de {loser} formou linhas dos dois."),
    lost_both_lines: "Você perdeu: o seu giro formou linhas dos dois.",
    won_time: |loser| format!("Você venceu: o tempo de {loser} acabou."),
    lost_time: "Você perdeu: o seu tempo acabou.",
    won_lost_turns: |loser| format!("Você venceu: {loser} perdeu a vez 3 vezes seguidas."),
    lost_lost_turns: "Você perdeu: perdeu a vez 3 vezes seguidas.",
    won_abandonment: |loser| format!("Você venceu: {loser} abandonou a partida."),
    lost_abandonment: "Você perdeu por abandono.",
    drawn: "Deu velha!",
    back_to_lobby: "Voltar ao lobby",
    leave_match: "Sair da partida",
    leave: "Sair",
    leave_confirm: "Sair é derrota por abandono. Sair mesmo?",
    away_for: |name, s| format!("{name} está sem conexão e tem {s} s para voltar."),
    not_your_turn: "Não é a sua vez.",
    board_decided: "Esse tabuleiro já está decidido.",
    occupied: "Essa casa já está ocupada.",
    match_changed: "A partida mudou enquanto você jogava; veja a posição nova.",
    move_not_stored: "O servidor não guardou a jogada. Tente de novo.",
    wrong_country: "Essa partida nacional é de jogadores de outro país.",
    already_playing: "Você já tem uma partida aberta ou em andamento.",
    taken: "Alguém entrou antes, ou a partida foi cancelada.",
    own_match: "Essa partida é sua: espere um adversário.",
    or: "ou",
    google_sign_in: "Entrar com Google",
    google_loading: "Carregando o login com Google…",
    google_unavailable: "O login com Google não carregou. Entre com e-mail e senha, ou tente mais tarde.",
    google_in_browser: "Continue no navegador que abrimos; depois volte aqui.",
    google_no_browser: "Não foi possível abrir o navegador deste aparelho.",
    google_cancelled: "O login com Google foi cancelado.",
    google_failed: "O Google não confirmou o login. Tente de novo.",
    google_down: "O login com Google está fora do ar agora. Tente de novo em instantes.",
    google_choose_name: "Primeira vez aqui com essa conta Google: escolha seu nome de jogador.",
    google_email_taken: "Já existe uma conta com o e-mail dessa conta Google. Entre com e-mail e senha e ligue o Google no seu perfil.",
    google_taken: "Essa conta Google já entra em outra conta.",
    google: "Google",
    google_linked: "ligado",
    link_google: "Ligar uma conta Google",
    browser_done: "Pronto! Pode fechar esta aba e voltar ao Cubo da Velha.",
    browser_failed: "O login não foi concluído. Volte ao Cubo da Velha e tente de novo.",
    ranking: "Ranking",
    sign_in_for_ranking: "Entre na sua conta para ver os rankings.",
    your_place: "Sua posição",
    not_ranked: "Você ainda não tem partidas que contam neste ranking.",
    nobody_ranked: "Ninguém pontuou neste ranking ainda.",
    points_short: "Pts",
    wins_short: "V",
    losses_short: "D",
    more: "Mostrar mais",
    not_scored: "Esta partida não contou pontos: só 2 partidas por dia contra o mesmo adversário contam em cada nível.",
    play_velha: "Jogar contra a Velha",
    group_not_started: "As partidas do grupo começam quando ele tiver 2 participantes.",
};

/// English.
pub static ONLINE_EN: OnlineTexts = OnlineTexts {
    pt: false,
    sign_up: "Create account",
    account_title: "Your account",
    email: "E-mail",
    password: "Password",
    name: "Player name",
    name_hint: "3 to 20 letters, digits, _, - or .",
    password_hint: "At least 8 characters; a phrase is stronger.",
    enter: "SIGN IN",
    create: "CREATE ACCOUNT",
    working: "Please wait…",
    no_account_yet: "No account yet? Create one",
    have_account: "Have an account? Sign in",
    sign_out: "Sign out",
    country: "Country",
    choose_country: "Choose your country",
    country_hint: "Your national ranking is this country's.",
    country_search: "Search for a country",
    no_country_found: "No country by that name.",
    change_country: "Change country",
    subscribers_only: "Online play and the mini ranking are for subscribers. With a subscription you play Cubo da Velha against people from all over the world or from your country.",
    payments_unavailable: "Payments are not available right now, and nothing was charged. Try again later.",
    no_customer: "You have no paid subscription to manage yet.",
    offline: "No connection to the server.",
    empty_email: "Type your e-mail.",
    empty_password: "Type the password.",
    empty_name: "Choose a player name.",
    bad_email: "This e-mail does not look valid.",
    email_taken: "An account with this e-mail exists. Sign in with it.",
    bad_name: "The name needs 3 to 20 letters, digits, _, - or .",
    name_taken: "Another player has this name. Choose another.",
    wrong_password: "Wrong e-mail or password.",
    too_long: "This text is too long.",
    bad_region: "This device's region names no country: choose yours from the list.",
    empty_country: "Choose your country from the list.",
    bad_country: "That country is not on the list. Choose another.",
    rate_limited: |s| {
        format!(
            "Too many tries. Try again in {}.",
            wait(s, ("second", "seconds"), ("minute", "minutes"))
        )
    },
    expired: "Your session ended. Sign in again.",
    server_failed: "The server could not answer now. Try again.",
    the_velha: "the Velha",
    mundial: "World",
    nacional: "National",
    create_match: "Create a match",
    no_open_matches: "No match is waiting for an opponent. Create one!",
    join: "Play",
    waiting: "Waiting for an opponent…",
    cancel: "Cancel",
    connecting: "Connecting…",
    reconnecting_in: |s| format!("No connection. Trying again in {s} s…"),
    come_back_within: |s| {
        format!("The match is lost by abandonment unless you are back within {s} s.")
    },
    your_turn: "Your turn",
    turn_of_name: |name| format!("{name}'s turn"),
    won_line: "You won with a line on side 1.",
    lost_line: |winner| format!("You lost: {winner} got a line on side 1."),
    won_board_line: "You won with a line of boards.",
    lost_board_line: |winner| format!("You lost: {winner} got a line of boards."),
    won_both_lines: |loser| format!("You won: {loser}'s rotation made lines for both."),
    lost_both_lines: "You lost: your rotation made lines for both.",
    won_time: |loser| format!("You won: {loser} ran out of time."),
    lost_time: "You lost: you ran out of time.",
    won_lost_turns: |loser| format!("You won: {loser} lost 3 turns in a row."),
    lost_lost_turns: "You lost: you lost 3 turns in a row.",
    won_abandonment: |loser| format!("You won: {loser} abandoned the match."),
    lost_abandonment: "You lost by abandonment.",
    drawn: "A draw!",
    back_to_lobby: "Back to the lobby",
    leave_match: "Leave the match",
    leave: "Leave",
    leave_confirm: "Leaving is a loss by abandonment. Leave anyway?",
    away_for: |name, s| format!("{name} is disconnected and has {s} s to come back."),
    not_your_turn: "It is not your turn.",
    board_decided: "That board is already decided.",
    occupied: "That cell is taken.",
    match_changed: "The match changed while you played; see the new position.",
    move_not_stored: "The server did not store the move. Try again.",
    wrong_country: "This national match is for players of another country.",
    already_playing: "You already have an open or live match.",
    taken: "Someone joined first, or the match was cancelled.",
    own_match: "This match is yours: wait for an opponent.",
    or: "or",
    google_sign_in: "Sign in with Google",
    google_loading: "Loading Google sign-in…",
    google_unavailable: "Google sign-in did not load. Sign in with e-mail and password, or try later.",
    google_in_browser: "Go on in the browser we opened, then come back here.",
    google_no_browser: "Could not open this device's browser.",
    google_cancelled: "Google sign-in was cancelled.",
    google_failed: "Google did not confirm the sign-in. Try again.",
    google_down: "Google sign-in is down right now. Try again in a moment.",
    google_choose_name: "First time here with this Google account: choose your player name.",
    google_email_taken: "An account with this Google account's e-mail exists. Sign in with e-mail and password, then link Google on your profile.",
    google_taken: "This Google account already signs in to another account.",
    google: "Google",
    google_linked: "linked",
    link_google: "Link a Google account",
    browser_done: "Done! You can close this tab and go back to Cubo da Velha.",
    browser_failed: "The sign-in did not finish. Go back to Cubo da Velha and try again.",
    ranking: "Ranking",
    sign_in_for_ranking: "Sign in to see the rankings.",
    your_place: "Your place",
    not_ranked: "You have no match that counts in this ranking yet.",
    nobody_ranked: "Nobody has scored in this ranking yet.",
    points_short: "Pts",
    wins_short: "W",
    losses_short: "L",
    more: "Show more",
    not_scored: "This match scored nothing: only 2 matches a day against the same opponent count at each level.",
    play_velha: "Play against the Velha",
    group_not_started: "The group's matches start once it has 2 participants.",
};

/// How a match ended, for the player who `won` or lost it against `opponent`.
pub fn match_ending(
    t: &OnlineTexts,
    game: MatchGame,
    how: EndHow,
    won: bool,
    opponent: &str,
) -> String {
    let v2 = game == MatchGame::V2;
    match (how, won) {
        (EndHow::Draw, _) => t.drawn.into(),
        (EndHow::Line, true) if v2 => t.won_board_line.into(),
        (EndHow::Line, false) if v2 => (t.lost_board_line)(opponent),
        (EndHow::Line, true) => t.won_line.into(),
        (EndHow::Line, false) => (t.lost_line)(opponent),
        (EndHow::BothLines, true) => (t.won_both_lines)(opponent),
        (EndHow::BothLines, false) => t.lost_both_lines.into(),
        // 2.0's clock takes a turn away; only three in a row lose (V2-R05).
        (EndHow::Time, true) if v2 => (t.won_lost_turns)(opponent),
        (EndHow::Time, false) if v2 => t.lost_lost_turns.into(),
        (EndHow::Time, true) => (t.won_time)(opponent),
        (EndHow::Time, false) => t.lost_time.into(),
        // A live match is resigned by leaving it (ON-M04), and has no absence claim: the
        // rooms' endings read as leaving.
        (EndHow::Abandonment | EndHow::Resigned | EndHow::Absent, true) => {
            (t.won_abandonment)(opponent)
        }
        (EndHow::Abandonment | EndHow::Resigned | EndHow::Absent, false) => {
            t.lost_abandonment.into()
        }
    }
}

/// A wait in seconds below two minutes and in whole minutes (rounded up) above, so "60
/// seconds" never reads as "1 minute" rounded down.
pub fn wait(s: u64, seconds: (&str, &str), minutes: (&str, &str)) -> String {
    let (n, (one, many)) = if s < 120 {
        (s, seconds)
    } else {
        (s.div_ceil(60), minutes)
    };
    format!("{n} {}", if n == 1 { one } else { many })
}

/// A refusal of a form or of the server, as the player reads it.
pub fn sentence(t: &OnlineTexts, problem: &Problem) -> String {
    if let Some(said) = email_sentence(email_texts(t.pt), problem)
        .or_else(|| moderation_sentence(moderation_texts(t.pt), problem))
    {
        return said;
    }
    let error = match problem {
        Problem::Offline => return t.offline.to_string(),
        Problem::Refused(error) => error,
    };
    match error.code {
        ErrorCode::BadEmail => t.bad_email.into(),
        ErrorCode::EmailTaken => t.email_taken.into(),
        ErrorCode::BadName => t.bad_name.into(),
        ErrorCode::NameTaken => t.name_taken.into(),
        ErrorCode::WeakPassword => error
            .password_problem
            .unwrap_or(PasswordProblem::Guessable)
            .sentence(t.pt)
            .into(),
        ErrorCode::WrongPassword => t.wrong_password.into(),
        ErrorCode::TooLong | ErrorCode::TooLarge => t.too_long.into(),
        ErrorCode::BadRegion => t.bad_region.into(),
        ErrorCode::BadCountry => t.bad_country.into(),
        ErrorCode::RateLimited => (t.rate_limited)(error.retry_after_s.unwrap_or(60).max(1)),
        ErrorCode::Unauthorized => t.expired.into(),
        ErrorCode::SubscribersOnly => t.subscribers_only.into(),
        ErrorCode::PaymentsUnavailable => t.payments_unavailable.into(),
        ErrorCode::NoCustomer => t.no_customer.into(),
        _ => t.server_failed.into(),
    }
}

/// A refusal of Google sign-in or of linking a Google account, as the player reads it.
pub fn google_sentence(t: &OnlineTexts, problem: &Problem) -> String {
    match problem {
        Problem::Refused(error) => match error.code {
            ErrorCode::BadGoogleToken => t.google_failed.into(),
            ErrorCode::GoogleUnavailable => t.google_down.into(),
            ErrorCode::EmailTaken => t.google_email_taken.into(),
            ErrorCode::Conflict => t.google_taken.into(),
            _ => sentence(t, problem),
        },
        Problem::Offline => sentence(t, problem),
    }
}

/// A refusal of the lobby (creating, joining or cancelling a match) as the player reads it.
pub fn lobby_sentence(t: &OnlineTexts, problem: &Problem) -> String {
    match problem {
        Problem::Refused(error) => match error.code {
            ErrorCode::WrongCountry => t.wrong_country.into(),
            ErrorCode::AlreadyPlaying => t.already_playing.into(),
            ErrorCode::Conflict | ErrorCode::NotFound => t.taken.into(),
            ErrorCode::Forbidden => t.own_match.into(),
            ErrorCode::GroupNotStarted => t.group_not_started.into(),
            _ => sentence(t, problem),
        },
        Problem::Offline => sentence(t, problem),
    }
}

/// Why the server refused a move, as the player reads it.
pub fn move_refusal(t: &OnlineTexts, texts: &crate::i18n::Texts, refusal: &Refusal) -> String {
    match refusal {
        Refusal::Illegal {
            reason: Illegal::WrongBoard(board),
            ..
        } => format!("{} {board}.", texts.board_sent),
        Refusal::Illegal { reason, .. } => match reason {
            Illegal::GameOver => texts.game_over,
            Illegal::OpponentSymbol => texts.opponent_symbol,
            Illegal::SymbolLimit(_) => texts.symbol_limit,
            Illegal::WrongDirectionLevel1
            | Illegal::WrongDirectionAlternation
            | Illegal::WrongDirectionFreeTurn => texts.wrong_direction,
            Illegal::SecondFreeTurn => texts.second_free_turn,
            Illegal::BoardDecided => t.board_decided,
            Illegal::Occupied => t.occupied,
            Illegal::WrongBoard(_) => texts.board_sent,
        }
        .into(),
        Refusal::NotYourTurn => t.not_your_turn.into(),
        Refusal::Stale { .. } => t.match_changed.into(),
        Refusal::Unavailable => t.move_not_stored.into(),
        Refusal::NotLive => texts.game_over.into(),
        _ => t.server_failed.into(),
    }
}

/// What the tests of every screen's sentences share.
#[cfg(test)]
pub(crate) mod checks {
    use velha_api::{ApiError, ErrorCode};

    use super::Problem;

    /// A refusal whose English words must never reach the player.
    pub fn refused(code: ErrorCode) -> Problem {
        Problem::Refused(ApiError::new(code, "the server's words, never shown"))
    }

    /// Each sentence says something, none repeats the server's words, no two read the same.
    pub fn all_distinct(mut said: Vec<String>) {
        for s in &said {
            assert!(!s.is_empty() && !s.contains("never shown"), "{s}");
        }
        let before = said.len();
        said.sort();
        said.dedup();
        assert_eq!(said.len(), before, "two refusals read the same");
    }
}

#[cfg(test)]
mod tests {
    use velha_api::ApiError;

    use super::checks::{all_distinct, refused};
    use super::*;

    /// ON-A01: every refusal of the account forms is its own sentence, in both languages, and
    /// never the server's English message.
    #[test]
    fn on_a01_every_account_refusal_is_a_sentence_of_its_own() {
        use ErrorCode::*;
        for t in [&ONLINE_PT, &ONLINE_EN] {
            let codes = [
                BadEmail,
                EmailTaken,
                BadName,
                NameTaken,
                WrongPassword,
                TooLong,
                BadRegion,
                BadCountry,
                Unauthorized,
            ];
            let mut said: Vec<String> = codes.iter().map(|c| sentence(t, &refused(*c))).collect();
            said.push(sentence(t, &Problem::Offline));
            all_distinct(said);
            let mut weak = ApiError::new(WeakPassword, "x");
            weak.password_problem = Some(PasswordProblem::Common);
            assert_eq!(
                sentence(t, &Problem::Refused(weak)),
                PasswordProblem::Common.sentence(t.pt)
            );
        }
    }

    /// ON-A03: buying and managing the subscription, each refusal is its own sentence.
    #[test]
    fn on_a03_every_payment_refusal_is_a_sentence_of_its_own() {
        use ErrorCode::*;
        for t in [&ONLINE_PT, &ONLINE_EN] {
            let codes = [
                PaymentsUnavailable,
                NoCustomer,
                SubscribersOnly,
                Unauthorized,
            ];
            let mut said: Vec<String> = codes.iter().map(|c| sentence(t, &refused(*c))).collect();
            said.push(sentence(t, &Problem::Offline));
            all_distinct(said);
        }
        assert_eq!(
            sentence(&ONLINE_PT, &refused(PaymentsUnavailable)),
            "O pagamento não está disponível agora, e nada foi cobrado. Tente de novo mais tarde."
        );
        assert_eq!(
            sentence(&ONLINE_EN, &refused(NoCustomer)),
            "You have no paid subscription to manage yet."
        );
    }

    /// ON-A01 with Google: its refusals are sentences of their own, apart from the forms'.
    #[test]
    fn on_a01_google_refusals_are_sentences_of_their_own() {
        use ErrorCode::*;
        for t in [&ONLINE_PT, &ONLINE_EN] {
            let said: Vec<String> = [BadGoogleToken, GoogleUnavailable, EmailTaken, Conflict]
                .iter()
                .map(|c| google_sentence(t, &refused(*c)))
                .collect();
            for (i, s) in said.iter().enumerate() {
                assert!(!s.contains("never shown"), "{s}");
                assert!(
                    !said[..i].contains(s),
                    "two Google refusals read the same: {s}"
                );
                assert_ne!(*s, sentence(t, &refused(EmailTaken)));
            }
            assert_eq!(
                google_sentence(t, &refused(NameTaken)),
                sentence(t, &refused(NameTaken))
            );
        }
    }

    /// ON-M03, ON-M04, CUBE-R11, R12: every ending reads right for the winner and for the
    /// loser, the opponent named where they did it.
    #[test]
    fn on_m04_every_ending_reads_right_for_winner_and_loser() {
        use EndHow::*;
        let cube = |t, how, won| match_ending(t, MatchGame::Cube, how, won, "Bia");
        assert_eq!(
            cube(&ONLINE_PT, Line, true),
            "Você venceu com uma linha no lado 1."
        );
        assert_eq!(
            cube(&ONLINE_PT, Line, false),
            "Você perdeu: Bia ficou com uma linha no lado 1."
        );
        assert_eq!(
            cube(&ONLINE_PT, BothLines, true),
            "Você venceu: o giro de Bia formou linhas dos dois."
        );
        assert_eq!(
            cube(&ONLINE_PT, BothLines, false),
            "Você perdeu: o seu giro formou linhas dos dois."
        );
        assert_eq!(
            cube(&ONLINE_PT, Time, true),
            "Você venceu: o tempo de Bia acabou."
        );
        assert_eq!(
            cube(&ONLINE_PT, Time, false),
            "Você perdeu: o seu tempo acabou."
        );
        assert_eq!(
            cube(&ONLINE_PT, Abandonment, true),
            "Você venceu: Bia abandonou a partida."
        );
        assert_eq!(
            cube(&ONLINE_PT, Abandonment, false),
            "Você perdeu por abandono."
        );
        assert_eq!(
            cube(&ONLINE_EN, Line, true),
            "You won with a line on side 1."
        );
        assert_eq!(
            cube(&ONLINE_EN, Line, false),
            "You lost: Bia got a line on side 1."
        );
        assert_eq!(
            cube(&ONLINE_EN, BothLines, true),
            "You won: Bia's rotation made lines for both."
        );
        assert_eq!(
            cube(&ONLINE_EN, Time, true),
            "You won: Bia ran out of time."
        );
        assert_eq!(
            cube(&ONLINE_EN, Time, false),
            "You lost: you ran out of time."
        );
        assert_eq!(
            cube(&ONLINE_EN, Abandonment, true),
            "You won: Bia abandoned the match."
        );
        let v2 = |t, how, won| match_ending(t, MatchGame::V2, how, won, "Bia");
        assert_eq!(
            v2(&ONLINE_PT, Line, false),
            "Você perdeu: Bia ficou com uma linha de tabuleiros."
        );
        assert_eq!(v2(&ONLINE_EN, Line, true), "You won with a line of boards.");
        assert_eq!(
            v2(&ONLINE_PT, Time, true),
            "Você venceu: Bia perdeu a vez 3 vezes seguidas."
        );
        assert_eq!(
            v2(&ONLINE_EN, Time, false),
            "You lost: you lost 3 turns in a row."
        );
        assert_eq!(v2(&ONLINE_PT, Draw, true), "Deu velha!");
        assert_eq!((ONLINE_EN.turn_of_name)("Bia"), "Bia's turn");
        assert_eq!(
            (ONLINE_PT.away_for)("Bia", 12.0),
            "Bia está sem conexão e tem 12 s para voltar."
        );
    }

    #[test]
    fn on_a01_too_many_tries_says_how_long_to_wait() {
        let mut e = ApiError::new(ErrorCode::RateLimited, "x");
        e.retry_after_s = Some(42);
        assert_eq!(
            sentence(&ONLINE_PT, &Problem::Refused(e.clone())),
            "Muitas tentativas. Tente de novo em 42 segundos."
        );
        e.retry_after_s = Some(1);
        assert_eq!(
            sentence(&ONLINE_EN, &Problem::Refused(e.clone())),
            "Too many tries. Try again in 1 second."
        );
        e.retry_after_s = Some(601);
        assert_eq!(
            sentence(&ONLINE_EN, &Problem::Refused(e.clone())),
            "Too many tries. Try again in 11 minutes."
        );
        e.retry_after_s = Some(120);
        assert_eq!(
            sentence(&ONLINE_PT, &Problem::Refused(e)),
            "Muitas tentativas. Tente de novo em 2 minutos."
        );
    }

    #[test]
    fn the_link_banner_counts_its_seconds() {
        assert_eq!(
            (ONLINE_PT.reconnecting_in)(3),
            "Sem conexão. Tentando de novo em 3 s…"
        );
        assert_eq!(
            (ONLINE_EN.come_back_within)(25),
            "The match is lost by abandonment unless you are back within 25 s."
        );
    }
}
