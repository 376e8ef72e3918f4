"""A game on one device is never thrown away by what a phone does to a page: a reload, the
back button, or the phone closing the app. Each local game is kept on the device after every
change and found as it was; PARAR is the way out of it, at any moment."""

from playwright.sync_api import expect

from conftest import shot
from test_app import play_until_over, status, wait_for_person


def board(page):
    """Every cell's name and mark, as a screen reader hears them."""
    return [c.get_attribute("aria-label") for c in page.query_selector_all("[data-cell]")]


def test_classic_r05_a_series_against_a_character_survives_a_reload_and_the_back_button(phone):
    phone.click("[data-game=classic]")
    phone.click("[data-rival=nino]")
    phone.click("[data-cell=b2]")
    wait_for_person(phone)
    before = board(phone)
    assert sum(label.endswith(", O") for label in before) == 1, "Nino answered"

    phone.reload()
    phone.wait_for_selector("[data-cell]", timeout=30000)
    assert board(phone) == before, "a reload finds the game as it was"
    assert status(phone) == "ongoing X"
    assert phone.locator("[data-opponent=nino]").is_visible()
    shot(phone, "classic-kept-after-reload")

    phone.evaluate("history.back()")
    phone.wait_for_selector("[data-game=classic]")
    phone.evaluate("history.forward()")
    phone.wait_for_selector("[data-cell]")
    assert board(phone) == before, "back and forward find it too"
    # A phone that closed the app opens it afresh at home.
    phone.goto(phone.evaluate("location.origin"))
    phone.click("[data-game=classic]")
    phone.wait_for_selector("[data-cell]")
    assert board(phone) == before

    # The game goes on where it was: Nino answers the next move.
    empty = [label.split(",")[0] for label in before if label.endswith("vazio")]
    phone.click(f"[data-cell={empty[0]}]")
    wait_for_person(phone)
    assert sum(label.endswith(", O") for label in board(phone)) == 2
    # PARAR, mid-game, asks first: a slip of the thumb keeps the game.
    during = board(phone)
    phone.click("[data-action=stop]")
    ask = phone.locator("[role=alertdialog]")
    assert "sem resultado" in ask.inner_text()
    shot(phone, "classic-stop-asks")
    phone.click("[data-action=keep-playing]")
    expect(ask).to_have_count(0)
    assert board(phone) == during
    # Said yes, it ends the series: the unfinished game counts nothing.
    phone.click("[data-action=stop]")
    phone.click("[data-action=confirm-stop]")
    phone.wait_for_selector("[data-series=final]")
    assert [phone.get_attribute(f"[data-series={k}]", "data-count")
            for k in ("wins", "draws", "losses")] == ["0", "0", "0"]
    phone.reload()
    phone.wait_for_selector("[data-series=final]", timeout=30000)
    phone.click("text=Escolha o adversário")
    phone.wait_for_selector("[data-rival=nino]")


def test_v2_r05_a_2_0_game_reloaded_keeps_its_board_and_its_running_clock(browser, base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url + "?clock=4")
    page.click("[data-game=v2]")
    page.click("[data-rival=friend]")
    page.click("[data-cell=e5]")
    played = page.evaluate("Date.now()")
    assert status(page) == "ongoing O"
    before = board(page)
    page.wait_for_timeout(2500)
    page.reload()
    page.wait_for_selector("[data-cell]", timeout=30000)
    assert board(page) == before
    # O's turn went on while the page reloaded: it runs out 4 s after e5, as it would have,
    # not 4 s after the reload.
    page.wait_for_selector("[data-lost-turn=O]", timeout=5000)
    lost_after = page.evaluate("Date.now()") - played
    assert lost_after < 4000 + 1200, f"the turn ran out {lost_after} ms after e5"
    assert status(page) == "ongoing X"
    context.close()
    assert not errors, errors


def test_on_k05_a_cube_game_against_the_velha_survives_a_reload(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-velha']")
    phone.click("[data-action=buttons]")
    phone.click("[data-cell=b2]")
    wait_for_person(phone)
    assert status(phone) == "ongoing X", "the Velha answered"
    before = board(phone)
    phone.reload()
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    assert board(phone) == before
    assert status(phone) == "ongoing X"
    shot(phone, "cube-kept-after-reload")
    # PARAR, mid-game and confirmed, leaves it for good: home, and the choice of a mode next
    # time.
    phone.click("[data-action=stop]")
    phone.click("[data-action=confirm-stop]")
    phone.wait_for_selector("[data-game=cube]")
    phone.reload()
    phone.click("[data-game=cube]")
    phone.wait_for_selector("[data-mode='1-velha']", timeout=30000)


def test_a_reload_on_a_kept_game_waits_for_its_reader_rather_than_start_anew(browser, base_url):
    """What reads a kept game is a module fetched after the first screen: a reload on a game's
    screen whose module has not come yet says it is loading, then shows the kept game, never a
    new one (which would overwrite it)."""
    # Without the service worker, which would answer from its cache where no route sees it.
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR", service_workers="block")
    page = context.new_page()
    page.goto(base_url)
    page.click("[data-game=classic]")
    page.click("[data-rival=friend]")
    for cell in ("a1", "b2"):
        page.click(f"[data-cell={cell}]")
    before = board(page)
    held = []
    context.route("**/pkg/split_kept*", lambda route: held.append(route))
    page.reload()
    page.wait_for_selector("[data-loading=screen]", timeout=30000)
    assert page.query_selector("[data-rival]") is None, "no new game to choose meanwhile"
    assert held, "the reader was asked for"
    for route in held:
        route.continue_()
    context.unroute("**/pkg/split_kept*")
    page.wait_for_selector("[data-cell]", timeout=30000)
    assert board(page) == before
    assert status(page) == "ongoing X"
    context.close()


def test_classic_r05_a_game_that_ends_while_parar_asks_leaves_no_question_in_the_next(phone):
    phone.click("[data-game=classic]")
    phone.click("[data-rival=friend]")
    for cell in ("a1", "b1", "a2", "b2"):
        phone.click(f"[data-cell={cell}]")
    phone.click("[data-action=stop]")
    phone.wait_for_selector("[data-asking=stop]")
    # The board stays in play under the question: X makes a line with it open.
    phone.click("[data-cell=a3]")
    assert status(phone) == "win X"
    expect(phone.locator("[data-asking=stop]")).to_have_count(0)
    phone.click("[data-action=another]")
    phone.click("[data-cell=b2]")
    phone.wait_for_selector("[data-cell=b2]:not([aria-label$=vazio])")
    assert phone.locator("[data-asking=stop]").count() == 0, "nobody pressed PARAR in this game"


def first_asked(page, asked):
    """Which of the kept games' and the account's modules the page asked for first, once it
    asked for both."""
    for _ in range(300):
        names = [n for n in asked if n.startswith(("split_kept", "split_account"))]
        if {n.split("-")[0] for n in names} == {"split_kept", "split_account"}:
            return names[0].split("-")[0]
        page.wait_for_timeout(100)
    raise AssertionError(f"not both asked for: {asked}")


def test_the_reader_of_kept_games_comes_first_only_on_a_device_that_keeps_one(browser, base_url):
    """A guest's likely next screen is the account: its module goes first, and the kept games'
    reader after it, unless the device keeps a game, where a reload on that game's screen
    waits for the reader. A series ended and left for the choice of a rival keeps nothing."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR", service_workers="block")
    page = context.new_page()
    asked = []
    page.on("request", lambda r: asked.append(r.url.rsplit("/", 1)[-1]))
    page.goto(base_url)
    assert first_asked(page, asked) == "split_account", "a fresh device"
    page.click("[data-game=classic]")
    page.click("[data-rival=nino]")
    page.click("[data-cell=b2]")
    wait_for_person(page)
    asked.clear()
    page.reload()
    assert first_asked(page, asked) == "split_kept", "a device with a game in progress"
    page.wait_for_selector("[data-cell]", timeout=30000)
    page.click("[data-action=stop]")
    page.click("[data-action=confirm-stop]")
    page.click("text=Escolha o adversário")
    page.wait_for_selector("[data-rival=nino]")
    asked.clear()
    page.reload()
    assert first_asked(page, asked) == "split_account", "nothing left to go back to"
    page.wait_for_selector("[data-rival=nino]", timeout=30000)
    context.close()


def hint_after_reload(phone, timeout=10000):
    """Asks a hint, reloads the page: the cell hinted, the same and ringed before and after."""
    phone.click("[data-action=hint]")
    before = phone.wait_for_selector("[data-hint]", timeout=timeout).get_attribute("data-hint")
    assert phone.get_attribute(f"[data-cell={before}]", "class") == "cell hinted"
    phone.reload()
    after = phone.wait_for_selector("[data-hint]", timeout=30000).get_attribute("data-hint")
    assert phone.get_attribute(f"[data-cell={after}]", "class") == "cell hinted"
    assert after == before, "the hint used is still shown"
    return after


def test_ana_10_a_reload_gives_no_hint_back_and_keeps_the_one_shown(phone):
    phone.click("[data-game=classic]")
    phone.click("[data-rival=nino]")
    after = hint_after_reload(phone)
    assert phone.get_attribute("[data-action=hint]", "data-hints-left") == "2"
    shot(phone, "hint-classic-reloaded")
    # A move makes it stale, and another reload does not bring it back.
    phone.click(f"[data-cell={after}]")
    wait_for_person(phone)
    assert phone.query_selector("[data-hint]") is None
    phone.reload()
    phone.wait_for_selector("[data-action=hint][data-hints-left='2']:enabled", timeout=30000)
    assert phone.query_selector("[data-hint]") is None, "the hint was for the position before"
    # The next game has three again.
    play_until_over(phone)
    phone.click("[data-action=another]")
    wait_for_person(phone)
    assert phone.get_attribute("[data-action=hint]", "data-hints-left") == "3"


def test_ana_10_a_super_hint_shown_is_kept_across_a_reload(phone):
    phone.click("[data-game=super]")
    phone.click("[data-starter=X]")
    phone.click("[data-rival=hard]")
    phone.wait_for_selector("[data-action=hint][data-hints-left='3']:enabled", timeout=10000)
    hint_after_reload(phone, timeout=30000)
    assert phone.get_attribute("[data-action=hint]", "data-hints-left") == "2"
    shot(phone, "hint-super-reloaded")
