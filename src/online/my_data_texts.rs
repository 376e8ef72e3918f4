//! What the player reads about their data: downloading it (ON-A05) and deleting the account
//! (ON-A04).

use velha_api::{ErrorCode, REMOVED_PLAYER};

use crate::online::client::Problem;
use crate::online::texts::wait;

/// The "Seus dados" screen's words in one language.
pub struct MyDataTexts {
    pub title: &'static str,
    /// A guest's: the screen is a signed-in player's.
    pub sign_in_first: &'static str,
    pub open: &'static str,
    pub export_title: &'static str,
    pub export_about: &'static str,
    pub export: &'static str,
    /// The file was saved: where (a path on a computer, the file's name in a browser).
    pub saved: fn(&str) -> String,
    pub not_saved: &'static str,
    /// The downloads of the hour are used up: when the next one can be (seconds).
    pub export_limited: fn(u64) -> String,
    pub delete_title: &'static str,
    pub delete_about: &'static str,
    pub delete: &'static str,
    pub delete_warning: &'static str,
    pub delete_consequences: &'static [&'static str],
    pub password: &'static str,
    pub fresh_google: &'static str,
    pub delete_forever: &'static str,
    pub keep: &'static str,
    pub deleted: &'static str,
    pub home: &'static str,
    pub wrong_password: &'static str,
    pub sign_in_again: &'static str,
    pub sign_in_again_button: &'static str,
    pub group_match_live: &'static str,
    pub payments_down: &'static str,
    /// A deleted player's name as shown.
    pub removed_player: &'static str,
}

/// Brazilian Portuguese.
pub static MY_DATA_PT: MyDataTexts = MyDataTexts {
    title: "Seus dados",
    sign_in_first: "Entre na sua conta para baixar seus dados ou excluir a conta.",
    open: "Seus dados e excluir a conta",
    export_title: "Baixar seus dados",
    export_about: "Um arquivo (JSON) com tudo o que o servidor guarda sobre você: a conta, os \
                   aparelhos conectados, as partidas e seus lances, os rankings, os grupos, as \
                   salas, a assinatura e os avisos. Até 3 vezes por hora.",
    export: "Baixar meus dados",
    saved: |at| format!("Arquivo salvo: {at}"),
    not_saved: "Não foi possível salvar o arquivo neste aparelho.",
    export_limited: |s| {
        format!(
            "Você já baixou seus dados 3 vezes na última hora. Baixe de novo em {}.",
            wait(s, ("segundo", "segundos"), ("minuto", "minutos"))
        )
    },
    delete_title: "Excluir a conta",
    delete_about: "Apaga a sua conta e os seus dados pessoais. Não dá para desfazer.",
    delete: "Excluir minha conta",
    delete_warning: "Tem certeza? Ao excluir a conta:",
    delete_consequences: &[
        "uma partida em andamento termina como abandono (a outra pessoa vence);",
        "você sai da fila e dos grupos; o grupo que você criou é encerrado;",
        "a assinatura paga é cancelada, sem reembolso do período em curso;",
        "as partidas continuam nos rankings e replays dos outros, como “Jogador removido”;",
        "o seu e-mail fica livre na hora; o seu nome, depois de 30 dias.",
    ],
    password: "Sua senha, para confirmar",
    fresh_google: "Para confirmar, a sua entrada com o Google precisa ser dos últimos 10 minutos.",
    delete_forever: "Excluir para sempre",
    keep: "Cancelar",
    deleted: "Sua conta foi excluída. Obrigado por ter jogado!",
    home: "Voltar ao início",
    wrong_password: "A senha não é esta.",
    sign_in_again: "Entre de novo com o Google para confirmar (a entrada precisa ser dos \
                    últimos 10 minutos) e volte aqui.",
    sign_in_again_button: "Sair e entrar de novo",
    group_match_live: "Duas pessoas estão jogando uma partida do seu grupo, que é encerrado com a \
                       conta. Tente de novo quando ela terminar.",
    payments_down: "Não foi possível cancelar a sua assinatura agora, então nada foi excluído. \
                    Tente de novo em alguns minutos.",
    removed_player: REMOVED_PLAYER,
};

/// English.
pub static MY_DATA_EN: MyDataTexts = MyDataTexts {
    title: "Your data",
    sign_in_first: "Sign in to download your data or delete the account.",
    open: "Your data and deleting the account",
    export_title: "Download your data",
    export_about: "A file (JSON) with everything the server keeps about you: the account, the \
                   devices signed in, the matches and their moves, the rankings, the groups, the \
                   rooms, the subscription and the notifications. Up to 3 times an hour.",
    export: "Download my data",
    saved: |at| format!("File saved: {at}"),
    not_saved: "The file could not be saved on this device.",
    export_limited: |s| {
        format!(
            "You downloaded your data 3 times in the last hour. Download it again in {}.",
            wait(s, ("second", "seconds"), ("minute", "minutes"))
        )
    },
    delete_title: "Delete the account",
    delete_about: "Erases your account and your personal data. It cannot be undone.",
    delete: "Delete my account",
    delete_warning: "Are you sure? Deleting the account:",
    delete_consequences: &[
        "ends a match being played as an abandonment (the other player wins);",
        "takes you out of the queue and the groups, and ends the group you created;",
        "cancels the paid subscription, with no refund of the current period;",
        "keeps your matches in the others' rankings and replays, as “Removed player”;",
        "frees your e-mail at once and your name after 30 days.",
    ],
    password: "Your password, to confirm",
    fresh_google: "To confirm, your Google sign-in must be of the last 10 minutes.",
    delete_forever: "Delete forever",
    keep: "Cancel",
    deleted: "Your account was deleted. Thank you for playing!",
    home: "Back to the start",
    wrong_password: "That is not the password.",
    sign_in_again: "Sign in again with Google to confirm (the sign-in must be of the last 10 \
                    minutes) and come back here.",
    sign_in_again_button: "Sign out and in again",
    group_match_live: "Two players are in a match of your group, which ends with the account. Try \
                       again when it is over.",
    payments_down: "Your subscription could not be canceled now, so nothing was deleted. Try again \
                    in a few minutes.",
    removed_player: "Removed player",
};

/// The screen's texts in the app's language.
pub fn my_data_texts(pt: bool) -> &'static MyDataTexts {
    if pt { &MY_DATA_PT } else { &MY_DATA_EN }
}

/// A player's name as shown: a deleted player's in the app's language.
pub fn shown_name(name: &str, pt: bool) -> &str {
    if name == REMOVED_PLAYER {
        my_data_texts(pt).removed_player
    } else {
        name
    }
}

/// The screen's own refusals, if this is one.
pub fn my_data_sentence(t: &MyDataTexts, problem: &Problem) -> Option<String> {
    let Problem::Refused(e) = problem else {
        return None;
    };
    Some(match e.code {
        ErrorCode::WrongPassword => t.wrong_password.into(),
        ErrorCode::SignInAgain => t.sign_in_again.into(),
        ErrorCode::GroupMatchLive => t.group_match_live.into(),
        ErrorCode::PaymentsUnavailable => t.payments_down.into(),
        ErrorCode::RateLimited => (t.export_limited)(e.retry_after_s.unwrap_or(60).max(1)),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn on_a04_a_deleted_players_name_reads_in_the_apps_language() {
        assert_eq!(shown_name("Jogador removido", true), "Jogador removido");
        assert_eq!(shown_name("Jogador removido", false), "Removed player");
        assert_eq!(shown_name("ana", false), "ana");
        assert_eq!(
            MY_DATA_PT.delete_consequences.len(),
            MY_DATA_EN.delete_consequences.len()
        );
    }
}
