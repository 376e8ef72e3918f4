"""The mini ranking in two browsers against the real server (online.md ON-G01 … ON-G09): a
subscriber makes a group with the Velha, invites another by name (the refusals explained),
the invitation waits with a badge and is accepted; both play a group match and both see the
table change; one plays the server's Velha in the group; the creator finalizes, asked twice."""

from conftest import home, shot
from test_account import fill, fresh_name, open_form, sign_up, subscribed_phone


def subscriber(browser, server, name, locale="pt-BR"):
    """A signed-up subscriber on a phone, on the profile."""
    page = subscribed_phone(browser, server, name, locale)
    page.click("[data-action=account]")
    page.wait_for_selector("[data-action=groups]", timeout=15000)
    return page


def row(page, name):
    """(points, matches, matches against the Velha) of a name in the open group's table."""
    line = page.wait_for_selector(f"[data-row='{name}']", timeout=15000)
    return tuple(int(line.get_attribute(f"data-{k}")) for k in ("points", "matches", "velha"))


def open_group(page, group):
    page.click(f"[data-group='{group}']", timeout=15000)
    page.wait_for_selector(f"[data-group-title='{group}']", timeout=15000)


def back_to_group(page, group):
    page.click("[data-action=back]")
    page.wait_for_selector(f"[data-group-title='{group}']", timeout=15000)


def test_on_g07_two_players_play_a_group_match_and_both_see_the_table_change(browser, server):
    names = fresh_name(), fresh_name()
    ana, bia = (subscriber(browser, server, n) for n in names)
    group = f"Turma {names[0][-4:]}"

    # Ana makes her group with the Velha.
    ana.click("[data-action=groups]")
    ana.wait_for_selector("[data-groups=none]", timeout=15000)
    shot(ana, "groups-empty")
    ana.fill("#group-name", "ab")
    ana.click("[data-action=create-group]")
    assert "3 a 40 caracteres" in ana.inner_text("[data-problem]")
    ana.fill("#group-name", group)
    ana.click("[data-action=create-group]")
    ana.wait_for_selector(f"[data-group-title='{group}']", timeout=15000)
    assert ana.get_attribute("[data-started]", "data-started") == "false", "ON-G03: one participant"
    assert row(ana, names[0]) == (0, 0, 0)

    # Invitations: an unknown name, then Bia.
    ana.fill("#invitee", "NinguemTemEsseNome")
    ana.click("[data-action=invite]")
    ana.wait_for_selector("[data-problem]", timeout=15000)
    assert ana.inner_text("[data-problem]") == "Nenhum jogador tem esse nome."
    ana.fill("#invitee", names[1])
    ana.click("[data-action=invite]")
    ana.wait_for_selector("[data-told]", timeout=15000)
    assert names[1] in ana.get_attribute("[data-invited]", "data-invited")
    shot(ana, "group-invited")

    # Bia's profile shows the invitation as a badge; she accepts it.
    home(bia)
    bia.click("[data-action=account]")
    bia.wait_for_selector("[data-badge='1']", timeout=15000)
    shot(bia, "profile-invitation-badge")
    bia.click("[data-action=groups]")
    bia.wait_for_selector(f"[data-invitation='{group}']", timeout=15000)
    assert names[0] in bia.inner_text(f"[data-invitation='{group}']")
    shot(bia, "groups-invitation")
    bia.click(f"[data-invitation='{group}'] [data-action=accept]")
    open_group(bia, group)
    assert bia.get_attribute("[data-members]", "data-members") == "2"
    assert row(bia, names[1]) == (0, 0, 0)
    # Ana's open group hears of it, and no longer says the invitation was sent.
    ana.wait_for_selector("[data-members='2']", timeout=15000)
    assert ana.query_selector("[data-told]") is None, "the sent invitation is no longer news"

    # A group match: Ana creates it in the group's lobby, Bia joins there.
    ana.click("[data-action=back]")
    open_group(ana, group)
    for page in (ana, bia):
        page.click("[data-action=play-group]")
        page.wait_for_selector("[data-action=create-match]", timeout=15000)
    assert ana.query_selector("[data-scope]") is None, "a group's lobby has no scope"
    assert ana.query_selector("[data-action=play-velha]") is not None
    ana.click("[data-action=create-match]")
    ana.wait_for_selector("[data-waiting]", timeout=15000)
    bia.wait_for_selector(f"[data-join='{names[0]}']", timeout=15000)
    shot(bia, "group-lobby")
    bia.click(f"[data-join='{names[0]}']")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    for page in (ana, bia):
        page.click("[data-action=buttons]")
    # X: a1, a2, a3 — a line; O: c3, c2.
    for mover, cell in [(ana, "a1"), (bia, "c3"), (ana, "a2"), (bia, "c2"), (ana, "a3")]:
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        mover.click(f"[data-cell={cell}]:enabled")
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)

    # Both see the table change: win 3, loss 1, one match each (ON-G04, ON-G07).
    for page in (ana, bia):
        back_to_group(page, group)
        page.wait_for_selector(f"[data-row='{names[0]}'][data-points='3']", timeout=15000)
        assert row(page, names[0]) == (3, 1, 0)
        assert row(page, names[1]) == (1, 1, 0)
    first = ana.query_selector_all(".group-table .group-row")[0]
    assert first.get_attribute("data-row") == names[0], "the winner first"
    shot(bia, "group-table")

    # Bia plays the server's Velha in the group, and gives up after her answer.
    bia.click("[data-action=play-group]")
    bia.click("[data-action=play-velha]", timeout=15000)
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert "Velha" in bia.inner_text("[data-player=O]")
    bia.click("[data-action=buttons]")
    bia.click("[data-cell=b2]:enabled")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    shot(bia, "group-velha-match")
    bia.click("[data-action=leave]")
    bia.click("[data-action=confirm-leave]")
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    back_to_group(bia, group)
    bia.wait_for_selector(f"[data-row='{names[1]}'][data-velha='1']", timeout=15000)
    assert row(bia, names[1]) == (1, 1, 1), "a loss against her scores 0"

    # Bia cannot finalize; she could leave. Ana finalizes, asked twice, naming what goes.
    assert bia.query_selector("[data-action=finalize]") is None
    assert bia.query_selector("[data-action=leave-group]") is not None
    home(ana)
    ana.click("[data-action=account]")
    ana.click("[data-action=groups]")
    open_group(ana, group)
    ana.click("[data-action=finalize]")
    first_ask = ana.inner_text("[data-asking=finalize-1]")
    assert group in first_ask and "todas as partidas" in first_ask
    shot(ana, "group-finalize-1")
    ana.click("[data-asking=finalize-1] [data-action=confirm]")
    ana.wait_for_selector("[data-asking=finalize-2]")
    shot(ana, "group-finalize-2")
    ana.click("[data-asking=finalize-2] [data-action=confirm]")
    ana.wait_for_selector("[data-groups=none]", timeout=15000)
    # Bia, on the group's page, sees it go as it happens.
    bia.wait_for_selector("[data-told=group-gone]", timeout=15000)
    assert bia.inner_text("[data-told=group-gone]") == \
        "O criador finalizou o grupo: ele e suas partidas foram apagados."
    bia.wait_for_selector("[data-groups=none]", timeout=15000)
    for page in (ana, bia):
        page.context.close()


def test_on_g09_group_changes_reach_the_open_screens_live(browser, server):
    """An invitation, a new participant and the end of the group reach the others' open
    screens without a reload, even a participant waiting in the group's lobby."""
    names = fresh_name(), fresh_name()
    ana, bia = (subscriber(browser, server, n) for n in names)
    group = f"Turma {names[0][-4:]}"
    for page in (ana, bia):
        page.click("[data-action=groups]")
        page.wait_for_selector("[data-groups=none]", timeout=15000)
    ana.fill("#group-name", group)
    ana.click("[data-action=create-group]")
    ana.wait_for_selector(f"[data-group-title='{group}']", timeout=15000)
    ana.fill("#invitee", names[1])
    ana.click("[data-action=invite]")
    # The invitation appears on Bia's open list, and her joining on Ana's open group.
    bia.click(f"[data-invitation='{group}'] [data-action=accept]", timeout=15000)
    ana.wait_for_selector("[data-members='2']", timeout=15000)
    open_group(bia, group)
    bia.click("[data-action=play-group]")
    bia.wait_for_selector("[data-action=create-match]", timeout=15000)
    assert bia.evaluate("location.pathname").endswith("/jogar")
    ana.click("[data-action=finalize]")
    ana.click("[data-asking=finalize-1] [data-action=confirm]")
    ana.click("[data-asking=finalize-2] [data-action=confirm]")
    bia.wait_for_selector("[data-told=group-gone]", timeout=15000)
    assert bia.inner_text("[data-told=group-gone]") == \
        "O criador finalizou o grupo: ele e suas partidas foram apagados."
    bia.wait_for_selector("[data-groups=none]", timeout=15000)
    assert bia.evaluate("location.pathname") == "/grupos"
    shot(bia, "group-finalized-live")
    for page in (ana, bia):
        page.context.close()


def test_on_g05_the_mini_ranking_in_english(browser, server):
    """The same screens in the second language, with a refusal: a name already in the group."""
    name = fresh_name()
    page = subscriber(browser, server, name, locale="en-US")
    assert page.inner_text("[data-action=groups]").startswith("Mini ranking")
    page.click("[data-action=groups]")
    page.wait_for_selector("[data-groups=none]", timeout=15000)
    assert "Create your group" in page.inner_text(".new-group")
    page.fill("#group-name", "Weekend league")
    page.click("[data-action=create-group]")
    page.wait_for_selector("[data-group-title='Weekend league']", timeout=15000)
    assert "2 participants" in page.inner_text("[data-started]")
    page.fill("#invitee", name)
    page.click("[data-action=invite]")
    page.wait_for_selector("[data-problem]", timeout=15000)
    assert page.inner_text("[data-problem]") == "This player already takes part in the group."
    shot(page, "group-english")
    page.context.close()


def test_on_g02_inviting_says_a_name_is_missing_and_names_the_invitee_as_the_server_does(
        browser, server, phone):
    """The creator invites by player name: with no name typed the screen says so; a name
    typed in another case (an accented capital too) finds the player, and the screen names
    them as they spell it."""
    invitee = "Ágata" + fresh_name()
    open_form(phone, "sign-up")
    fill(phone, name=invitee, email=f"{invitee[1:].lower()}@example.com", password="cubo-gira-9")
    phone.click("[data-action=submit]")
    phone.wait_for_selector("[data-profile=name]", timeout=15000)
    name = fresh_name()
    ana = subscriber(browser, server, name)
    ana.click("[data-action=groups]")
    ana.fill("#group-name", f"Turma {name[-4:]}")
    ana.click("[data-action=create-group]")
    ana.wait_for_selector("[data-group-title]", timeout=15000)
    ana.click("[data-action=invite]")
    assert ana.inner_text("[data-problem]", timeout=5000) == \
        "Escreva o nome do jogador que você quer convidar."
    shot(ana, "group-invite-no-name")
    ana.fill("#invitee", invitee.lower())
    ana.click("[data-action=invite]")
    ana.wait_for_selector("[data-told]", timeout=15000)
    assert ana.inner_text("[data-told]") == f"Convite enviado para {invitee}."
    assert ana.query_selector("[data-problem]") is None, "the missing name is no longer said"
    assert ana.get_attribute("[data-invited]", "data-invited") == invitee
    shot(ana, "group-invited-as-spelled")
    ana.context.close()


def test_on_g08_a_group_link_opened_without_signal_is_read_again_with_a_tap(browser, server):
    """A group's address opened while the groups cannot be read says why and asks again with a
    tap; a group the player takes no part in is told so, with nothing to ask again."""
    page = subscriber(browser, server, fresh_name())
    page.click("[data-action=groups]")
    page.fill("#group-name", "Rua de cima")
    page.click("[data-action=create-group]")
    page.wait_for_selector("[data-group-title='Rua de cima']", timeout=15000)
    address = page.url
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # The groups' read gets no answer, as in a tunnel; the app itself had loaded.
    page.route("**/api/groups", lambda route: route.abort("internetdisconnected"))
    page.goto(address)
    said = page.wait_for_selector("[data-problem]", timeout=30000)
    assert said.inner_text() == "Sem conexão com o servidor."
    assert "warning" in said.get_attribute("class")
    shot(page, "group-link-offline")
    # The signal is back: the tap reads the groups, and the group opens.
    page.unroute("**/api/groups")
    page.click("[data-action=retry]")
    page.wait_for_selector("[data-group-title='Rua de cima']", timeout=15000)
    assert page.query_selector("[data-problem]") is None
    # A group that is not the player's is told so, with no tap: asking again changes nothing.
    page.goto(address.rsplit("/", 1)[0] + "/" + "0" * len(address.rsplit("/", 1)[1]))
    page.wait_for_selector("[data-problem=no-group]", timeout=30000)
    assert page.query_selector("[data-action=retry]") is None
    assert not errors, errors
    page.context.close()


def test_on_g08_a_guest_opening_the_mini_ranking_is_asked_to_sign_in_for_it(browser, server):
    """A guest at /grupos is asked to sign in for the mini rankings, not for the lobby."""
    for locale, says in (("pt-BR", "Entre na sua conta para ver e criar mini rankings."),
                         ("en-US", "Sign in to see and create mini rankings.")):
        context = browser.new_context(viewport={"width": 360, "height": 640},
                                      device_scale_factor=2, is_mobile=True, has_touch=True,
                                      locale=locale)
        page = context.new_page()
        page.goto(server.url.rstrip("/") + "/grupos")
        page.wait_for_selector("[data-action=sign-in]", timeout=30000)
        assert says in page.inner_text("main")
        context.close()
