//! What the player reads about the e-mail links (docs/mail.md): confirming the address,
//! "Esqueci a senha", the new password.

use velha_api::ErrorCode;

use crate::online::client::Problem;

/// The e-mail flows' words in one language.
pub struct EmailTexts {
    pub confirm_title: &'static str,
    pub confirming: &'static str,
    pub confirmed: fn(&str) -> String,
    pub unconfirmed: fn(&str) -> String,
    pub resend: &'static str,
    pub resent: fn(&str) -> String,
    pub forgot: &'static str,
    pub forgot_title: &'static str,
    pub forgot_explain: &'static str,
    pub send_link: &'static str,
    pub forgot_sent: &'static str,
    pub back_to_sign_in: &'static str,
    pub new_password_title: &'static str,
    pub new_password: &'static str,
    pub save_password: &'static str,
    pub password_saved: &'static str,
    pub bad_link: &'static str,
    pub no_link: &'static str,
    pub unverified: &'static str,
    pub unavailable: &'static str,
    pub resend_soon: &'static str,
    pub go_on: &'static str,
}

/// Brazilian Portuguese.
pub static EMAIL_PT: EmailTexts = EmailTexts {
    confirm_title: "Confirmar e-mail",
    confirming: "Confirmando o seu e-mail…",
    confirmed: |email| format!("Pronto: {email} está confirmado."),
    unconfirmed: |email| format!("Confirme o seu e-mail: enviamos um link para {email}."),
    resend: "Reenviar o link",
    resent: |email| format!("Enviamos um novo link para {email}. Procure também na pasta de spam."),
    forgot: "Esqueci a senha",
    forgot_title: "Esqueci a senha",
    forgot_explain: "Digite o e-mail da sua conta: enviaremos um link para escolher uma nova senha.",
    send_link: "Enviar o link",
    forgot_sent: "Se houver uma conta com este e-mail confirmado, enviamos a ela um link para escolher uma nova senha. Ele vale por 30 minutos.",
    back_to_sign_in: "Voltar para entrar",
    new_password_title: "Nova senha",
    new_password: "Nova senha",
    save_password: "Salvar a nova senha",
    password_saved: "Senha trocada. Os outros aparelhos conectados à sua conta saíram dela.",
    bad_link: "Este link não vale mais: cada link vale uma vez só, e por pouco tempo. Peça um novo.",
    no_link: "Este endereço está incompleto: abra o link da mensagem que enviamos.",
    unverified: "Confirme o seu e-mail antes de assinar: abra o link que enviamos para ele.",
    unavailable: "Não é possível enviar e-mails agora. Tente de novo mais tarde.",
    resend_soon: "Enviamos um link há pouco: procure-o na sua caixa de entrada e na pasta de spam.",
    go_on: "Continuar",
};

/// English.
pub static EMAIL_EN: EmailTexts = EmailTexts {
    confirm_title: "Confirm e-mail",
    confirming: "Confirming your e-mail…",
    confirmed: |email| format!("Done: {email} is confirmed."),
    unconfirmed: |email| format!("Confirm your e-mail: we sent a link to {email}."),
    resend: "Send the link again",
    resent: |email| format!("We sent a new link to {email}. Look in the spam folder too."),
    forgot: "I forgot my password",
    forgot_title: "Forgotten password",
    forgot_explain: "Type your account's e-mail: we will send a link to choose a new password.",
    send_link: "Send the link",
    forgot_sent: "If an account has this confirmed e-mail, we sent it a link to choose a new password. It works for 30 minutes.",
    back_to_sign_in: "Back to sign in",
    new_password_title: "New password",
    new_password: "New password",
    save_password: "Save the new password",
    password_saved: "Password changed. Every other device signed in to your account was signed out.",
    bad_link: "This link no longer works: each link works once, for a short while. Ask for a new one.",
    no_link: "This address is incomplete: open the link in the message we sent.",
    unverified: "Confirm your e-mail before subscribing: open the link we sent to it.",
    unavailable: "E-mail cannot be sent now. Try again later.",
    resend_soon: "We sent a link a moment ago: look for it in your inbox and spam folder.",
    go_on: "Continue",
};

/// The e-mail texts in the app's language.
pub fn email_texts(pt: bool) -> &'static EmailTexts {
    if pt { &EMAIL_PT } else { &EMAIL_EN }
}

/// The e-mail flows' own refusals, if this is one.
pub fn email_sentence(e: &EmailTexts, problem: &Problem) -> Option<String> {
    let Problem::Refused(error) = problem else {
        return None;
    };
    Some(
        match error.code {
            ErrorCode::BadLink => e.bad_link,
            ErrorCode::EmailUnverified => e.unverified,
            ErrorCode::MailUnavailable => e.unavailable,
            _ => return None,
        }
        .to_owned(),
    )
}
