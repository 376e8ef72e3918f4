//! The mini ranking (ON-G01 … ON-G09): the player's groups and invitations, creating their
//! own, a group's table, inviting, leaving, finalizing, and playing in the group — against
//! its participants or, when the creator included her, the server's Velha.

use dioxus::prelude::*;
use velha_api::{Group, Invitation, MatchState, MyGroups};

use super::online::{GroupPlay, Online};
use super::subscription::SubscribeLink;
use super::{SignInFirst, TopBar};
use crate::app::{GroupTarget, Screen, use_texts};
use crate::components::warning::warning;
use crate::online::client;
use crate::online::group_texts::{Doing, GroupTexts, group_sentence};
use crate::online::live::use_member_live;
use crate::online::membership::{Membership, use_membership};
use crate::request::{Request, use_request};
use crate::route::GroupPart;

/// "1 participante", "2 participantes".
fn participants(g: &GroupTexts, n: usize) -> String {
    format!(
        "{n} {}",
        if n == 1 {
            g.participant
        } else {
            g.participants
        }
    )
}

/// The mini ranking, for subscribers (ON-A03).
#[component]
pub fn GroupsScreen(go: EventHandler<Screen>) -> Element {
    let t = use_texts();
    match use_membership()() {
        Membership::Member(account) if account.subscriber => {
            rsx! { Groups { go, me: account.name } }
        }
        Membership::Member(_) => rsx! {
            TopBar { title: t.groups().title, go }
            section { class: "online-gate", "data-subscriber": "false",
                p { "{t.online().subscribers_only}" }
                SubscribeLink { go, from: Screen::Groups }
            }
        },
        Membership::Checking => rsx! {
            TopBar { title: t.groups().title, go }
            p { class: "muted", role: "status", "{t.checking}" }
        },
        Membership::Guest => rsx! {
            TopBar { title: t.groups().title, go }
            SignInFirst { says: t.groups().sign_in_first, back: Screen::Groups, go }
        },
    }
}

#[component]
fn Groups(go: EventHandler<Screen>, me: String) -> Element {
    // The part shown is the address's (`/grupos/<id>`), so back and a reload keep it.
    let mut part = use_context::<GroupTarget>().0;
    let mut mine = use_signal(|| None::<MyGroups>);
    let mut problem = use_signal(|| None::<String>);
    let t = use_texts();
    // One connection while the mini ranking is open: a change of a group (someone invited,
    // joining, leaving, the group finalized) reaches this screen as it happens, and the
    // group's lobby and matches use the same connection.
    let live = use_member_live();
    use_context_provider(|| live);
    let mut told = use_signal(|| None::<&'static str>);
    // A failed read's sentence goes as the read starts: the screen says it is reading, and
    // a second tap of "Tentar de novo" before it redraws reads no second time.
    let mut reload = move || {
        problem.set(None);
        spawn(async move {
            match client::my_groups().await {
                Ok(groups) => mine.set(Some(groups)),
                Err(refused) => problem.set(Some(group_sentence(
                    t.groups(),
                    t.online(),
                    Doing::Other,
                    &refused,
                ))),
            }
        });
    };
    use_hook(reload);
    let mut heard = use_signal(|| 0u64);
    use_effect(move || {
        let state = live.state.read();
        let Some(news) = state.group_news.clone() else {
            return;
        };
        if news.heard == *heard.peek() {
            return;
        }
        heard.set(news.heard);
        let shown = match &*part.peek() {
            GroupPart::Group(id) | GroupPart::Play(id) => Some(id.clone()),
            GroupPart::List => None,
        };
        // A match being played stays on screen: it ends as any match does.
        let playing = state
            .game
            .as_ref()
            .is_some_and(|g| g.view.state == MatchState::Live);
        if !news.member && shown.as_deref() == Some(news.group.as_str()) && !playing {
            told.set(Some(if news.finalized {
                t.groups().was_finalized
            } else {
                t.groups().no_longer_in
            }));
            part.set(GroupPart::List);
        }
        reload();
    });
    match part() {
        GroupPart::List => rsx! {
            TopBar { title: t.groups().title, go }
            if let Some(told) = told() {
                p { class: "banner", role: "status", "data-told": "group-gone", "{told}" }
            }
            GroupList { mine, problem, me, open: move |id| { told.set(None); part.set(GroupPart::Group(id)) }, reload: move |_| reload() }
        },
        GroupPart::Group(id) => {
            let group = mine().and_then(|m| m.groups.into_iter().find(|g| g.id == id));
            match group {
                Some(group) => rsx! {
                    GroupPage {
                        key: "{id}",
                        group,
                        me,
                        back: move |_| {
                            reload();
                            part.set(GroupPart::List);
                        },
                        play: move |p: GroupPlay| part.set(GroupPart::Play(p.id)),
                        changed: move |g: Option<Group>| {
                            mine.with_mut(|m| {
                                if let Some(m) = m {
                                    m.groups.retain(|old| old.id != id);
                                    if let Some(g) = g {
                                        m.groups.push(g);
                                    }
                                }
                            });
                            reload();
                        },
                    }
                },
                None => rsx! { Finding { go, mine, problem, reload: move |_| reload() } },
            }
        }
        GroupPart::Play(id) => {
            let group = mine().and_then(|m| m.groups.into_iter().find(|g| g.id == id));
            let Some(group) = group else {
                return rsx! { Finding { go, mine, problem, reload: move |_| reload() } };
            };
            // Back from the group's lobby or match is back to the group.
            let back = move |s: Screen| match s {
                Screen::Home => part.set(GroupPart::Group(id.clone())),
                other => go.call(other),
            };
            let group = GroupPlay {
                id: group.id,
                name: group.name,
                with_velha: group.with_velha,
            };
            rsx! { Online { go: back, group } }
        }
    }
}

/// A group the address names, while the player's groups are read: or why it cannot show
/// (the read failed, or the player takes no part in it, ON-G08).
#[component]
fn Finding(
    go: EventHandler<Screen>,
    mine: Signal<Option<MyGroups>>,
    problem: Signal<Option<String>>,
    reload: EventHandler<()>,
) -> Element {
    let t = use_texts();
    let mut part = use_context::<GroupTarget>().0;
    rsx! {
        TopBar { title: t.groups().title, go }
        if let Some(says) = problem() {
            {warning(&says, "true", Some(EventHandler::new(move |()| if problem.peek().is_some() { reload.call(()) })))}
        } else if mine().is_some() {
            {warning(t.groups().no_such_group, "no-group", None)}
            button { class: "wide", "data-action": "all-groups", onclick: move |_| part.set(GroupPart::List), "{t.groups().all_groups}" }
        } else {
            p { class: "muted", role: "status", "{t.online().working}" }
        }
    }
}

/// The invitations (with a badge), the groups, and the form for the player's own group.
#[component]
fn GroupList(
    mine: Signal<Option<MyGroups>>,
    problem: Signal<Option<String>>,
    me: String,
    open: EventHandler<String>,
    reload: EventHandler<()>,
) -> Element {
    let t = use_texts();
    let g = t.groups();
    let Some(groups) = mine() else {
        return rsx! {
            if let Some(says) = problem() {
                {warning(&says, "true", Some(EventHandler::new(move |()| if problem.peek().is_some() { reload.call(()) })))}
            } else {
                p { class: "muted", role: "status", "{t.online().working}" }
            }
        };
    };
    let created = groups.groups.iter().any(|x| x.creator == me);
    let invitations = groups.invitations.clone();
    let waiting = invitations.len();
    rsx! {
        if waiting > 0 {
            section { class: "invitations", "data-invitations": "{waiting}",
                h2 { "{g.invitations} " span { class: "badge", "aria-label": "{waiting}", "{waiting}" } }
                for inv in invitations {
                    InvitationLine { key: "{inv.group}", inv, mine, reload }
                }
            }
        }
        section { class: "groups",
            h2 { "{g.your_groups}" }
            if groups.groups.is_empty() {
                p { class: "muted", "data-groups": "none", "{g.no_groups}" }
            }
            ul { class: "group-list",
                for group in groups.groups.clone() {
                    li { key: "{group.id}",
                        button { class: "wide group-line", "data-group": "{group.name}",
                            onclick: {
                                let id = group.id.clone();
                                move |_| open.call(id.clone())
                            },
                            span { class: "name", "{group.name}" }
                            span { class: "muted",
                                if group.creator == me { "{g.yours} · " }
                                {participants(g, group.members.len())}
                            }
                        }
                    }
                }
            }
        }
        if let Some(says) = problem() {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        if !created {
            NewGroup { mine, open }
        }
    }
}

#[component]
fn InvitationLine(
    inv: Invitation,
    mine: Signal<Option<MyGroups>>,
    reload: EventHandler<()>,
) -> Element {
    let t = use_texts();
    let g = t.groups();
    let request: Request = use_request();
    let answer = move |yes: bool| {
        let id = inv.group.clone();
        request.run(async move {
            let done = if yes {
                client::accept(&id).await.map(|_| ())
            } else {
                client::decline(&id).await
            };
            match done {
                Ok(()) => {
                    mine.with_mut(|m| {
                        if let Some(m) = m {
                            m.invitations.retain(|i| i.group != id);
                        }
                    });
                    reload.call(());
                    None
                }
                Err(refused) => Some(group_sentence(g, t.online(), Doing::Accepting, &refused)),
            }
        });
    };
    let answer_no = answer.clone();
    let answer_yes = answer;
    rsx! {
        div { class: "invitation", "data-invitation": "{inv.name}",
            p {
                strong { "{inv.name}" }
                span { class: "muted", " · {g.invited_by} {inv.creator} · {participants(g, inv.members as usize)}" }
            }
            div { class: "row",
                button { class: "primary", "data-action": "accept", disabled: request.busy(), onclick: move |_| answer_yes(true), "{g.accept}" }
                button { "data-action": "decline", disabled: request.busy(), onclick: move |_| answer_no(false), "{g.decline}" }
            }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
            }
        }
    }
}

#[component]
fn NewGroup(mine: Signal<Option<MyGroups>>, open: EventHandler<String>) -> Element {
    let t = use_texts();
    let g = t.groups();
    let mut name = use_signal(String::new);
    let mut with_velha = use_signal(|| true);
    let request: Request = use_request();
    let create = move |e: Event<FormData>| {
        e.prevent_default();
        let chosen = name();
        let count = chosen.trim().chars().count();
        if !(3..=40).contains(&count) {
            request.say(g.short_name.into());
            return;
        }
        request.run(async move {
            let made = client::create_group(&chosen, with_velha()).await;
            match made {
                Ok(group) => {
                    let id = group.id.clone();
                    mine.with_mut(|m| {
                        if let Some(m) = m {
                            m.groups.push(group);
                        }
                    });
                    open.call(id);
                    None
                }
                Err(refused) => Some(group_sentence(g, t.online(), Doing::Creating, &refused)),
            }
        });
    };
    rsx! {
        form { class: "new-group", onsubmit: create,
            h2 { "{g.new_group}" }
            label { r#for: "group-name", "{g.group_name}" }
            input { id: "group-name", name: "group-name", maxlength: "40", value: "{name}",
                oninput: move |e| name.set(e.value()) }
            p { class: "muted hint", "{g.group_name_hint}" }
            label { class: "check",
                input { r#type: "checkbox", name: "with-velha", checked: with_velha(),
                    onchange: move |e| with_velha.set(e.checked()) }
                " {g.include_velha}"
            }
            if let Some(says) = request.said() {
                p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
            }
            button { class: "primary wide", r#type: "submit", "data-action": "create-group", disabled: request.busy(),
                if request.busy() { "{t.online().working}" } else { "{g.create_group}" }
            }
        }
    }
}

/// Which question the page is asking.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Asking {
    Nothing,
    Leave,
    FinalizeOnce,
    FinalizeTwice,
}

/// One group: its table, playing in it, and what its creator or a participant may do.
#[component]
fn GroupPage(
    group: Group,
    me: String,
    back: EventHandler<()>,
    play: EventHandler<GroupPlay>,
    changed: EventHandler<Option<Group>>,
) -> Element {
    let t = use_texts();
    let g = t.groups();
    let o = t.online();
    let request: Request = use_request();
    // The name last invited, as the server spells it: the sentence that says so goes once they
    // join, which the open screen hears of.
    let mut told = use_signal(|| None::<String>);
    let mut invitee = use_signal(String::new);
    let mut asking = use_signal(|| Asking::Nothing);
    let id = group.id.clone();
    // The table as it is now (another participant's match may have ended meanwhile).
    use_hook({
        let id = id.clone();
        move || {
            spawn(async move {
                match client::group(&id).await {
                    Ok(fresh) => changed.call(Some(fresh)),
                    Err(refused) => request.say(group_sentence(g, o, Doing::Other, &refused)),
                }
            })
        }
    });
    let creator = group.creator == me;
    let started = group.members.len() >= 2;
    let invite = {
        let id = id.clone();
        let before = group.invited.clone();
        move |e: Event<FormData>| {
            e.prevent_default();
            let name = invitee().trim().to_owned();
            told.set(None);
            if name.is_empty() {
                request.say(g.name_missing.into());
                return;
            }
            let id = id.clone();
            let before = before.clone();
            request.run(async move {
                let sent = client::invite(&id, &name).await;
                match sent {
                    Ok(()) => {
                        invitee.set(String::new());
                        // The server finds a name whatever its case and answers nothing: the
                        // group read again spells it as the player does, the one name invited
                        // since (or, invited by someone else meanwhile, the one that reads the
                        // same but for ASCII's case: folding every letter's would bring
                        // Unicode's tables into the module). Told as typed when unread.
                        let fresh = client::group(&id).await.ok();
                        let invited = fresh
                            .as_ref()
                            .and_then(|f| {
                                let new: Vec<&String> =
                                    f.invited.iter().filter(|n| !before.contains(n)).collect();
                                match new[..] {
                                    [one] => Some(one),
                                    _ => f.invited.iter().find(|n| n.eq_ignore_ascii_case(&name)),
                                }
                            })
                            .cloned()
                            .unwrap_or(name);
                        told.set(Some(invited));
                        if let Some(fresh) = fresh {
                            changed.call(Some(fresh));
                        }
                        None
                    }
                    Err(refused) => Some(group_sentence(g, o, Doing::Inviting, &refused)),
                }
            });
        }
    };
    let leave_or_finalize = {
        let id = id.clone();
        move |_| {
            let id = id.clone();
            request.run(async move {
                let done = if creator {
                    client::finalize_group(&id).await
                } else {
                    client::leave_group(&id).await
                };
                asking.set(Asking::Nothing);
                match done {
                    Ok(()) => {
                        changed.call(None);
                        back.call(());
                        None
                    }
                    Err(refused) => Some(group_sentence(g, o, Doing::Other, &refused)),
                }
            });
        }
    };
    let to_play = GroupPlay {
        id: id.clone(),
        name: group.name.clone(),
        with_velha: group.with_velha,
    };
    let name = group.name.clone();
    rsx! {
        nav { class: "top",
            button { "data-action": "back", onclick: move |_| back.call(()), "← {g.all_groups}" }
            h1 { "data-group-title": "{group.name}", "{group.name}" }
        }
        p { class: "muted", "data-members": "{group.members.len()}", "{group.members.len()} {g.of_25}" }
        if started {
            button { class: "primary wide", "data-action": "play-group", onclick: move |_| play.call(to_play.clone()),
                "{g.play}"
            }
        } else {
            p { class: "banner", role: "status", "data-started": "false", "{g.not_started}" }
        }
        div { class: "group-head", "aria-hidden": "true",
            span { "#" } span { "{g.player_short}" } span { "{o.points_short}" } span { "{g.matches_short}" } span { "{g.velha_short}" }
        }
        div { class: "group-table", role: "list", "data-table": "{group.id}",
            for row in group.table.clone() {
                div { key: "{row.name}", class: if row.name == me { "group-row me" } else { "group-row" }, role: "listitem",
                    "data-row": "{row.name}", "data-points": "{row.points}", "data-matches": "{row.matches}", "data-velha": "{row.velha_matches}",
                    span { class: "rank", "{row.position}" }
                    span { class: "name", "{row.name}" }
                    span { class: "points", "{row.points}" }
                    span { "{row.matches}" }
                    span { "{row.velha_matches}" }
                }
            }
        }
        if let Some(invited) = told().filter(|n| !group.members.iter().any(|m| m.eq_ignore_ascii_case(n))) {
            p { class: "ok", role: "status", "data-told": "true", "{g.invite_sent} {invited}." }
        }
        if let Some(says) = request.said() {
            p { class: "warning", role: "alert", "data-problem": "true", "{says}" }
        }
        if creator {
            form { class: "invite", onsubmit: invite,
                label { r#for: "invitee", "{g.invite_name}" }
                div { class: "row",
                    input { id: "invitee", name: "invitee", maxlength: "20", value: "{invitee}",
                        autocomplete: "off", oninput: move |e| invitee.set(e.value()) }
                    button { class: "primary", r#type: "submit", "data-action": "invite", disabled: request.busy(), "{g.invite}" }
                }
            }
            if !group.invited.is_empty() {
                p { class: "muted", "data-invited": "{group.invited.join(\", \")}",
                    "{g.waiting_answer} {group.invited.join(\", \")}"
                }
            }
        }
        match asking() {
            Asking::Nothing => rsx! {
                button { class: "wide danger", "data-action": if creator { "finalize" } else { "leave-group" },
                    onclick: move |_| asking.set(if creator { Asking::FinalizeOnce } else { Asking::Leave }),
                    if creator { "{g.finalize}" } else { "{g.leave_group}" }
                }
            },
            Asking::Leave => rsx! {
                div { class: "confirm ask", role: "alertdialog", "data-asking": "leave",
                    p { "{g.leave_confirm}" }
                    button { class: "danger", "data-action": "confirm", disabled: request.busy(), onclick: leave_or_finalize, "{g.leave_group}" }
                    button { onclick: move |_| asking.set(Asking::Nothing), "{t.no}" }
                }
            },
            Asking::FinalizeOnce => rsx! {
                div { class: "confirm ask", role: "alertdialog", "data-asking": "finalize-1",
                    p { "{g.finalize_first} «{name}» {g.finalize_what}" }
                    button { class: "danger", "data-action": "confirm", onclick: move |_| asking.set(Asking::FinalizeTwice), "{g.finalize}" }
                    button { onclick: move |_| asking.set(Asking::Nothing), "{g.keep}" }
                }
            },
            Asking::FinalizeTwice => rsx! {
                div { class: "confirm ask", role: "alertdialog", "data-asking": "finalize-2",
                    p { "{g.finalize_second} «{name}»?" }
                    button { class: "danger", "data-action": "confirm", disabled: request.busy(), onclick: leave_or_finalize, "{g.finalize_forever}" }
                    button { onclick: move |_| asking.set(Asking::Nothing), "{g.keep}" }
                }
            },
        }
    }
}
