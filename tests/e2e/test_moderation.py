"""The moderation in the browser against the real server, at phone size under the app's real
Content-Security-Policy: a signed-in player reports the one they met in a finished match, in a
room and on a ranking row (each report reaching the operators' list); a name the moderation
changed is told until the player says they read it; a suspended account's sign-in says why;
an offensive name is refused at sign-up."""

import re

from conftest import home, shot
from test_account import fill, fresh_name, open_form, sign_up, submit_and_read_problem
from test_online import play_to_x_line
from test_subscription import new_phone

# Whether the focus is inside the report dialog.
FOCUS_INSIDE = "document.querySelector('[data-dialog=report]')?.contains(document.activeElement)"


def member(browser, server, subscribed=False, locale="pt-BR"):
    """A phone where a new player signed up (and got a subscription), back on the home screen;
    the player's name and the page's errors."""
    page, errors = new_phone(browser, server, locale=locale)
    name = fresh_name()
    sign_up(page, name)
    if subscribed:
        server.admin("subscription", "grant", name, "--until", "2099-01-01")
    home(page)
    page.wait_for_selector(f"[data-action=account]:has-text('{name}')", timeout=15000)
    return page, name, errors


def report_lines(server, reporter, reported):
    """The operators' list of reports: the lines of `reporter`'s reports of `reported`."""
    listed = server.admin("reports")
    return [line for line in listed.splitlines()
            if reporter in line and reported in line and line.index(reporter) < line.index(reported)]


def fits_the_phone(page):
    """The open dialog is whole on the 360×640 screen, the focus inside it."""
    box = page.locator("[data-dialog=report]").bounding_box()
    assert box["x"] >= 0 and box["y"] >= 0, box
    assert box["x"] + box["width"] <= 360 and box["y"] + box["height"] <= 640, box
    assert page.evaluate(FOCUS_INSIDE), "the focus goes into the dialog"


def send_report(page, reason, note=None):
    """Chooses `reason` (and types `note`) in the open dialog, sends it, and waits for the
    dialog to close: what it said (sent or already) and its words."""
    page.click(f"[data-dialog=report] [data-report-reason={reason}]")
    if note:
        page.fill("#report-note", note)
    page.click("[data-action=send-report]")
    result = page.wait_for_selector("[data-report-result=sent], [data-report-result=already]",
                                    timeout=15000)
    page.wait_for_selector("[data-dialog=report]", state="detached")
    return result.get_attribute("data-report-result"), result.inner_text()


def test_a_player_reports_the_opponent_of_a_finished_match_and_a_ranking_row(browser, server):
    (ana, ana_name, ana_errors), (bia, bia_name, bia_errors) = (
        member(browser, server, subscribed=True) for _ in range(2))
    for page in (ana, bia):
        page.click("[data-action=account]")
        page.click("[data-action=play-online]")
        page.click("[data-scope=mundial]")
        page.click("[data-level='1']")
    ana.click("[data-action=create-match]")
    ana.wait_for_selector("[data-waiting]")
    # No report while the match is on.
    bia.click(f"[data-join='{ana_name}']", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.query_selector("[data-action=report]") is None
    for page in (ana, bia):
        page.click("[data-action=buttons]")
    play_to_x_line(ana, bia)

    # The result view offers it; the dialog opens with the focus inside, fits the phone, and
    # Escape or the back button close it without leaving the match.
    button = ana.wait_for_selector("[data-action=report]", timeout=15000)
    assert button.inner_text() == "Denunciar"
    button.click()
    dialog = ana.wait_for_selector("[role=dialog][data-dialog=report]")
    assert dialog.get_attribute("aria-modal") == "true"
    assert ana.inner_text("#report-title") == f"Denunciar {bia_name}"
    assert [ana.inner_text(f"label:has([data-report-reason={r}])")
            for r in ("name", "cheating", "behaviour", "other")] == \
        ["Nome ofensivo", "Trapaça", "Comportamento", "Outro"]
    assert ana.get_attribute("#report-note", "maxlength") == "500"
    fits_the_phone(ana)
    ana.keyboard.press("Escape")
    ana.wait_for_selector("[data-dialog=report]", state="detached")
    ana.click("[data-action=report]")
    ana.wait_for_selector("[data-dialog=report]")
    ana.go_back()
    ana.wait_for_selector("[data-dialog=report]", state="detached")
    assert ana.get_attribute("[data-status]", "data-status") == "won", "back stayed on the match"
    assert ana.url.endswith("/cubo/online"), ana.url

    # A reason is asked for first; then the report is sent, and the button says it was.
    ana.click("[data-action=report]")
    ana.click("[data-action=send-report]")
    assert ana.inner_text("[data-report-result=failed]") == "Escolha o motivo da denúncia."
    shot(ana, "moderation-match-dialog")
    assert send_report(ana, "behaviour", "Ficou xingando no chat.") == \
        ("sent", "Denúncia enviada. Obrigado.")
    button = ana.locator("[data-action=report]")
    assert button.is_disabled() and button.inner_text() == "Denunciado"
    shot(ana, "moderation-match-sent")
    (line,) = report_lines(server, ana_name, bia_name)
    assert "behaviour" in line and re.search("match", line, re.I), line
    # The loser reports too; never the Velha, who is no one's opponent here.
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    bia.click("[data-action=report]")
    assert send_report(bia, "cheating")[0] == "sent"
    assert "cheating" in report_lines(server, bia_name, ana_name)[0]

    # The rankings: anyone's row but one's own has a report button.
    ana.click("[data-action=back]")
    ana.click("[data-action=account]")
    ana.click("[data-action=ranking]")
    row = f".ranking .ranking-row[data-name='{bia_name}']"
    ana.wait_for_selector(row, timeout=15000)
    assert ana.query_selector(f".ranking .ranking-row[data-name='{ana_name}'] [data-action=report]") is None
    assert ana.query_selector(".my-place [data-action=report]") is None
    flag = ana.locator(f"{row} [data-action=report]")
    assert flag.get_attribute("aria-label") == f"Denunciar {bia_name}"
    # The flag keeps a finger's size without making its row taller than the others where it
    # fits beside the name (on a phone a little wider than this one, with these names).
    ana.set_viewport_size({"width": 414, "height": 736})
    assert flag.bounding_box()["height"] >= 44
    own = ana.locator(f".ranking .ranking-row[data-name='{ana_name}']").bounding_box()["height"]
    assert abs(ana.locator(row).bounding_box()["height"] - own) < 1
    shot(ana, "moderation-ranking-flag")
    ana.set_viewport_size({"width": 360, "height": 640})
    flag.click()
    ana.wait_for_selector("[data-dialog=report]")
    fits_the_phone(ana)
    ana.click("[data-dialog=report] [data-report-reason=name]")
    shot(ana, "moderation-ranking-dialog")
    assert send_report(ana, "name") == ("sent", "Denúncia enviada. Obrigado.")
    assert flag.is_disabled() and flag.get_attribute("aria-label") == "Denunciado"
    assert flag.inner_text() == "Denunciado", "a reported row says so, not just its label"
    shot(ana, "moderation-ranking-sent")
    lines = report_lines(server, ana_name, bia_name)
    assert len(lines) == 2 and any("name" in l and re.search("ranking", l, re.I) for l in lines), lines

    # The same player reported again from the same ranking: told, not counted twice.
    ana.reload()
    ana.click(f"{row} [data-action=report]", timeout=15000)
    assert send_report(ana, "other") == ("already", "Você já denunciou este jogador aqui.")
    assert ana.locator(f"{row} [data-action=report]").is_disabled()
    assert len(report_lines(server, ana_name, bia_name)) == 2
    for page, errors in ((ana, ana_errors), (bia, bia_errors)):
        page.context.close()
        assert not errors, errors


def test_a_seated_player_reports_the_other_seat_of_a_room(browser, server):
    ana, ana_name, ana_errors = member(browser, server)
    ana.click("[data-game=classic]")
    ana.click("[data-action=play-with-someone]")
    ana.click("[data-pick=nino]")
    ana.fill("#room-name", ana_name)
    ana.click("[data-action=create-room]")
    link = ana.wait_for_selector("[data-link-url]", timeout=15000).get_attribute("data-link-url")
    # Nobody in the other seat yet: nobody to report.
    assert ana.query_selector("[data-action=report]") is None

    bia, bia_name, bia_errors = member(browser, server)
    bia.goto(server.url.rstrip("/") + "/" + link.split("/", 3)[3])
    bia.click("[data-pick=rabisco]", timeout=30000)
    bia.fill("#room-name", bia_name)
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)

    ana.click("[data-action=report]", timeout=15000)
    ana.wait_for_selector("[data-dialog=report]")
    assert ana.inner_text("#report-title") == f"Denunciar {bia_name}"
    fits_the_phone(ana)
    ana.click("[data-dialog=report] [data-report-reason=other]")
    ana.fill("#report-note", "Mandou um link estranho no nome.")
    shot(ana, "moderation-room-dialog")
    # Cancel keeps nothing sent.
    ana.click("[data-action=cancel-report]")
    ana.wait_for_selector("[data-dialog=report]", state="detached")
    assert report_lines(server, ana_name, bia_name) == []
    ana.click("[data-action=report]")
    assert send_report(ana, "other", "Mandou um link estranho no nome.")[0] == "sent"
    shot(ana, "moderation-room-sent")
    (line,) = report_lines(server, ana_name, bia_name)
    assert "other" in line and re.search("room", line, re.I), line
    # The game goes on after it.
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    for page, errors in ((ana, ana_errors), (bia, bia_errors)):
        page.context.close()
        assert not errors, errors


def test_a_name_the_moderation_changed_is_told_until_the_player_reads_it(browser, server):
    page, old, errors = member(browser, server)
    new = "Jogador" + old[-6:]
    server.admin("player", "rename", old, new)
    page.reload()
    notice = page.wait_for_selector("[data-notice=renamed]", timeout=15000)
    assert notice.inner_text().startswith(f"A moderação mudou seu nome de «{old}» para «{new}».")
    assert page.inner_text("[data-action=account]") == new
    box = notice.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    shot(page, "moderation-renamed-home")
    # The profile says it too, and "Entendi" there ends it everywhere.
    page.click("[data-action=account]")
    page.wait_for_selector("[data-notice=renamed]", timeout=15000)
    assert page.inner_text("[data-profile=name]") == new
    shot(page, "moderation-renamed-account")
    page.click("[data-action=dismiss-rename]")
    page.wait_for_selector("[data-notice=renamed]", state="detached", timeout=15000)
    page.click("[data-action=back]")
    page.wait_for_selector("[data-game=classic]")
    assert page.query_selector("[data-notice=renamed]") is None
    page.reload()
    page.wait_for_selector(f"[data-action=account]:has-text('{new}')", timeout=15000)
    assert page.query_selector("[data-notice=renamed]") is None
    page.context.close()
    assert not errors, errors


def test_a_suspended_account_is_told_why_at_sign_in(browser, server):
    page, name, errors = member(browser, server)
    page.click("[data-action=account]")
    page.click("[data-action=sign-out]")
    page.wait_for_selector("[data-form=sign-in]")
    server.admin("player", "ban", name, "--reason", "linguagem ofensiva")
    fill(page, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    assert submit_and_read_problem(page) == \
        "Esta conta foi suspensa pela moderação. Motivo: linguagem ofensiva."
    shot(page, "moderation-banned")
    page.context.close()
    assert not errors, errors


def test_an_offensive_name_is_refused_at_sign_up(browser, server):
    for locale, said in (("pt-BR", "Esse nome não é permitido: tem uma palavra ofensiva."),
                         ("en-US", "This name is not allowed: it has an offensive word.")):
        page, errors = new_phone(browser, server, locale=locale)
        open_form(page, "sign-up")
        fill(page, name="Caralh0", email=f"{fresh_name().lower()}@example.com",
             password="cubo-gira-9")
        assert submit_and_read_problem(page) == said
        shot(page, f"moderation-offensive-name-{locale}")
        page.context.close()
        assert not errors, errors
