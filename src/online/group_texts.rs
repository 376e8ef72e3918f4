//! What the mini-ranking screens say (ON-G01 … ON-G09), in Brazilian Portuguese and English,
//! and every refusal of the groups' requests as a sentence.

use velha_api::ErrorCode;

use super::client::Problem;
use super::texts::{OnlineTexts, sentence};

/// The mini-ranking screens' texts in one language.
#[derive(Debug)]
#[allow(missing_docs)]
pub struct GroupTexts {
    pub title: &'static str,
    pub invitations: &'static str,
    /// A count of invitations: one, many.
    pub invitation_counted: [&'static str; 2],
    pub invited_by: &'static str,
    pub participants: &'static str,
    pub participant: &'static str,
    pub player_short: &'static str,
    pub accept: &'static str,
    pub decline: &'static str,
    pub your_groups: &'static str,
    pub no_groups: &'static str,
    pub yours: &'static str,
    pub new_group: &'static str,
    pub group_name: &'static str,
    pub group_name_hint: &'static str,
    pub include_velha: &'static str,
    pub create_group: &'static str,
    pub not_started: &'static str,
    pub play: &'static str,
    pub matches_short: &'static str,
    pub velha_short: &'static str,
    pub of_25: &'static str,
    pub invite_name: &'static str,
    pub invite: &'static str,
    pub name_missing: &'static str,
    /// Followed by the name.
    pub invite_sent: &'static str,
    pub waiting_answer: &'static str,
    pub leave_group: &'static str,
    pub leave_confirm: &'static str,
    pub finalize: &'static str,
    /// Followed by the group's name.
    pub finalize_first: &'static str,
    pub finalize_what: &'static str,
    pub finalize_second: &'static str,
    pub finalize_forever: &'static str,
    pub keep: &'static str,
    pub all_groups: &'static str,
    pub no_such_group: &'static str,
    /// What a guest who opens the mini ranking is asked.
    pub sign_in_first: &'static str,
    pub was_finalized: &'static str,
    pub no_longer_in: &'static str,
    pub short_name: &'static str,
    pub unknown_player: &'static str,
    pub already_in: &'static str,
    pub invitee_in_two: &'static str,
    pub you_in_two: &'static str,
    pub group_full: &'static str,
    pub already_created: &'static str,
    pub group_gone: &'static str,
    pub match_live: &'static str,
}

/// Brazilian Portuguese.
pub static GROUPS_PT: GroupTexts = GroupTexts {
    title: "Mini ranking",
    invitations: "Convites",
    invitation_counted: ["convite", "convites"],
    invited_by: "convite de",
    participants: "participantes",
    participant: "participante",
    player_short: "Jogador",
    accept: "Aceitar",
    decline: "Recusar",
    your_groups: "Seus grupos",
    no_groups: "Você ainda não participa de nenhum grupo. Crie o seu ou aceite um convite.",
    yours: "criado por você",
    new_group: "Criar o seu grupo",
    group_name: "Nome do grupo",
    group_name_hint: "3 a 40 caracteres.",
    include_velha: "Incluir a Velha (partidas contra ela valem: vitória 3, derrota 0)",
    create_group: "Criar grupo",
    not_started: "As partidas e o ranking começam quando o grupo tiver 2 participantes.",
    play: "Jogar no grupo",
    matches_short: "Partidas",
    velha_short: "Velha",
    of_25: "de 25 participantes",
    invite_name: "Convidar pelo nome de jogador",
    invite: "Convidar",
    name_missing: "Escreva o nome do jogador que você quer convidar.",
    invite_sent: "Convite enviado para",
    waiting_answer: "Esperando resposta:",
    leave_group: "Sair do grupo",
    leave_confirm: "Sair do grupo? Para voltar, você vai precisar de um novo convite.",
    finalize: "Finalizar ranking",
    finalize_first: "Finalizar apaga o grupo",
    finalize_what: "para todos os participantes: a tabela, todas as partidas jogadas nele e os convites.",
    finalize_second: "Última confirmação, sem volta: apagar para sempre o grupo",
    finalize_forever: "Apagar para sempre",
    keep: "Manter o grupo",
    all_groups: "Grupos",
    no_such_group: "Este grupo não existe mais, ou você não participa dele.",
    sign_in_first: "Entre na sua conta para ver e criar mini rankings.",
    was_finalized: "O criador finalizou o grupo: ele e suas partidas foram apagados.",
    no_longer_in: "Você não participa mais desse grupo.",
    short_name: "O nome do grupo precisa ter de 3 a 40 caracteres.",
    unknown_player: "Nenhum jogador tem esse nome.",
    already_in: "Esse jogador já participa do grupo.",
    invitee_in_two: "Esse jogador já participa de 2 grupos, o máximo.",
    you_in_two: "Você já participa de 2 grupos, o máximo: saia de um para aceitar.",
    group_full: "O grupo já tem 25 participantes, o máximo.",
    already_created: "Você já criou um grupo: cada jogador cria só 1.",
    group_gone: "Esse grupo não existe mais, ou você não participa dele.",
    match_live: "Uma partida do grupo está em andamento: finalize quando ela terminar.",
};

/// English.
pub static GROUPS_EN: GroupTexts = GroupTexts {
    title: "Mini ranking",
    invitations: "Invitations",
    invitation_counted: ["invitation", "invitations"],
    invited_by: "invited by",
    participants: "participants",
    participant: "participant",
    player_short: "Player",
    accept: "Accept",
    decline: "Decline",
    your_groups: "Your groups",
    no_groups: "You take part in no group yet. Create yours or accept an invitation.",
    yours: "created by you",
    new_group: "Create your group",
    group_name: "Group name",
    group_name_hint: "3 to 40 characters.",
    include_velha: "Include the Velha (matches against her score: win 3, loss 0)",
    create_group: "Create group",
    not_started: "Matches and the ranking start once the group has 2 participants.",
    play: "Play in the group",
    matches_short: "Matches",
    velha_short: "Velha",
    of_25: "of 25 participants",
    invite_name: "Invite by player name",
    invite: "Invite",
    name_missing: "Type the name of the player you want to invite.",
    invite_sent: "Invitation sent to",
    waiting_answer: "Waiting for an answer:",
    leave_group: "Leave the group",
    leave_confirm: "Leave the group? To come back you will need a new invitation.",
    finalize: "Finalize the ranking",
    finalize_first: "Finalizing deletes the group",
    finalize_what: "for every participant: the table, every match played in it and the invitations.",
    finalize_second: "Last confirmation, with no way back: delete forever the group",
    finalize_forever: "Delete forever",
    keep: "Keep the group",
    all_groups: "Groups",
    no_such_group: "This group no longer exists, or you take no part in it.",
    sign_in_first: "Sign in to see and create mini rankings.",
    was_finalized: "The creator finalized the group: it and its matches were deleted.",
    no_longer_in: "You no longer take part in this group.",
    short_name: "A group's name needs 3 to 40 characters.",
    unknown_player: "No player has this name.",
    already_in: "This player already takes part in the group.",
    invitee_in_two: "This player already takes part in 2 groups, the most.",
    you_in_two: "You already take part in 2 groups, the most: leave one to accept.",
    group_full: "The group already has 25 participants, the most.",
    already_created: "You already created a group: each player creates only 1.",
    group_gone: "This group no longer exists, or you take no part in it.",
    match_live: "A match of the group is being played: finalize once it ends.",
};

/// What the player was doing when the server refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Doing {
    /// Creating their group.
    Creating,
    /// Inviting someone.
    Inviting,
    /// Accepting an invitation.
    Accepting,
    /// Anything else with a group.
    Other,
}

/// A refusal of a group request, as the player reads it.
pub fn group_sentence(g: &GroupTexts, o: &OnlineTexts, doing: Doing, problem: &Problem) -> String {
    let Problem::Refused(error) = problem else {
        return sentence(o, problem);
    };
    match (error.code, doing) {
        (ErrorCode::BadRequest, Doing::Creating) => g.short_name.into(),
        (ErrorCode::NotFound | ErrorCode::BadName, Doing::Inviting) => g.unknown_player.into(),
        (ErrorCode::Conflict, Doing::Inviting) => g.already_in.into(),
        (ErrorCode::TooManyGroups, Doing::Accepting) => g.you_in_two.into(),
        (ErrorCode::TooManyGroups, _) => g.invitee_in_two.into(),
        (ErrorCode::GroupFull, _) => g.group_full.into(),
        (ErrorCode::AlreadyCreatedGroup, _) => g.already_created.into(),
        (ErrorCode::GroupMatchLive, _) => g.match_live.into(),
        (ErrorCode::GroupNotStarted, _) => g.not_started.into(),
        (ErrorCode::NotFound, _) => g.group_gone.into(),
        _ => sentence(o, problem),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::online::texts::checks::{all_distinct, refused};
    use crate::online::texts::{ONLINE_EN, ONLINE_PT};

    /// ON-G01, ON-G02, ON-G09: each refusal a player can meet in the mini ranking is its own
    /// sentence in both languages — an unknown name, a full group, a player in 2 groups
    /// (the invitee, or oneself accepting) — never the server's English.
    #[test]
    fn on_g01_every_group_refusal_is_a_sentence_of_its_own() {
        use ErrorCode::*;
        for (g, o) in [(&GROUPS_PT, &ONLINE_PT), (&GROUPS_EN, &ONLINE_EN)] {
            let cases = [
                (BadRequest, Doing::Creating),
                (AlreadyCreatedGroup, Doing::Creating),
                (NotFound, Doing::Inviting),
                (Conflict, Doing::Inviting),
                (TooManyGroups, Doing::Inviting),
                (GroupFull, Doing::Inviting),
                (TooManyGroups, Doing::Accepting),
                (NotFound, Doing::Accepting),
                (GroupMatchLive, Doing::Other),
                (GroupNotStarted, Doing::Other),
            ];
            all_distinct(
                cases
                    .iter()
                    .map(|(code, doing)| group_sentence(g, o, *doing, &refused(*code)))
                    .collect(),
            );
            assert_eq!(
                group_sentence(g, o, Doing::Other, &Problem::Offline),
                o.offline
            );
        }
    }
}
