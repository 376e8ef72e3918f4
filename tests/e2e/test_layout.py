"""Game screens that fit a phone: at 360×640 and 390×844 the board or cube, whose turn, the
counts and, at the end, the result and OUTRA PARTIDA are on screen without scrolling; the
cube's cells and turns stay operable by keyboard; refusals show over the cube and buzz."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from conftest import shot
from test_app import play_until_over, status, wait_for_person
from test_online import meet

PHONES = [(360, 640), (390, 844)]


def on_screen(page, selector):
    """The element's box lies inside the viewport, the page unscrolled."""
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator(selector).first.bounding_box()
    view = page.viewport_size
    assert box is not None, f"{selector} is not shown"
    inside = box["x"] >= 0 and box["y"] >= 0 and box["x"] + box["width"] <= view["width"] + 0.5 \
        and box["y"] + box["height"] <= view["height"] + 0.5
    assert inside, f"{selector} at {box} is outside {view}"


@pytest.fixture(params=PHONES, ids=lambda p: f"{p[0]}x{p[1]}")
def sized(request, browser, base_url):
    width, height = request.param
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    yield page, f"{width}x{height}"
    context.close()


def test_cube_screen_fits_from_start_to_result(sized):
    page, size = sized
    page.click("[data-game=cube]")
    page.click("[data-mode='1-velha']")
    for part in ("#cube-canvas", "[data-status]", "[data-count=X]", "[data-count=O]"):
        on_screen(page, part)
    assert page.locator("#cube-canvas").bounding_box()["width"] >= page.viewport_size["width"] - 40, \
        "the cube as wide as the phone allows"
    shot(page, f"fit-cube-{size}")
    page.click("[data-action=buttons]")
    play_until_over(page, "[data-cell]:enabled:not([aria-label$=', O']), [data-action$='+']:enabled")
    for part in ("#cube-canvas", "[data-status]", "[data-action=another]", "[data-action=stop]"):
        on_screen(page, part)
    shot(page, f"fit-cube-end-{size}")


def test_cube_level2_shows_the_turn_kind_on_screen(sized):
    page, size = sized
    page.click("[data-game=cube]")
    page.click("[data-mode='2-friend']")
    on_screen(page, "[data-giro]")
    shot(page, f"fit-cube2-{size}")


@pytest.mark.parametrize("game,rival", [("classic", "nino"), ("super", "easy"), ("v2", "easy")])
def test_board_games_fit_from_start_to_result(sized, game, rival):
    page, size = sized
    page.click(f"[data-game={game}]")
    page.click(f"[data-rival={rival}]")
    board = ".board3" if game == "classic" else ".grid9"
    for part in (board, "[data-status]"):
        on_screen(page, part)
    play_until_over(page)
    for part in (board, "[data-status]", "[data-action=another]"):
        on_screen(page, part)
    shot(page, f"fit-{game}-end-{size}")


def test_cube_cells_and_turns_work_by_keyboard(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-friend']")
    phone.focus("[data-action=buttons]")
    phone.keyboard.press("Enter")
    reached = set()
    for _ in range(60):
        phone.keyboard.press("Tab")
        reached.add(phone.evaluate("document.activeElement.dataset.cell || document.activeElement.dataset.action || ''"))
    cells = {f"{c}{r}" for c in "abc" for r in "123"}
    turns = {f"{layer}{way}" for layer in "LMRUEDFSB" for way in "+-"}
    assert cells <= reached and turns <= reached, sorted((cells | turns) - reached)
    phone.focus("[data-cell=b2]")
    phone.keyboard.press("Enter")
    assert phone.get_attribute("[data-cell=b2]", "aria-label") == "b2, X"
    assert status(phone) == "ongoing O"
    phone.focus("[data-action='L+']")
    phone.keyboard.press("Space")
    assert status(phone) == "ongoing X", "O turned column a by keyboard"


def test_cube_fits_a_landscape_phone_and_the_desktop(browser, base_url):
    for width, height in ((640, 360), (844, 390), (1280, 800)):
        context = browser.new_context(viewport={"width": width, "height": height}, locale="pt-BR")
        page = context.new_page()
        page.goto(base_url)
        page.wait_for_selector("[data-game=classic]", timeout=30000)
        page.click("[data-game=cube]")
        page.click("[data-mode='2-velha']")
        for part in ("#cube-canvas", "[data-status]", "[data-giro]"):
            on_screen(page, part)
        shot(page, f"fit-cube-{width}x{height}")
        context.close()


def test_a_refused_move_and_a_games_end_buzz(browser, base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR")
    context.add_init_script("navigator.vibrate = ms => ((window.__buzz ||= []).push(ms), true);")
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    page.click("[data-game=cube]")
    page.click("[data-mode='1-friend']")
    page.click("[data-action=buttons]")
    page.click("[data-action='L-']")
    assert page.inner_text("[data-refusal]") == "Nas colunas, só para baixo ↓"
    on_screen(page, "[data-refusal]")
    assert page.evaluate("window.__buzz") == [40], "a short buzz for a refused move"
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    page.click("[data-game=classic]")
    page.click("[data-rival=friend]")
    for cell in ("a1", "b1", "a2", "b2", "a3"):
        page.click(f"[data-cell={cell}]")
    assert status(page) == "win X"
    assert page.evaluate("window.__buzz") == [120], "a longer one when the game ends"
    context.close()


def box_of(page, selector):
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not shown"
    return box


def test_v2_r05_a_lost_turn_moves_no_board(browser, base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    page = context.new_page()
    page.goto(base_url + "?clock=2")
    page.click("[data-game=v2]")
    page.click("[data-rival=friend]")
    page.click("[data-cell=e5]")
    before = box_of(page, ".grid9")
    page.wait_for_selector("[data-lost-turn=O]", timeout=5000)
    assert box_of(page, ".grid9") == before, "the banner pushed the boards"
    shot(page, "v2-lost-turn-floating")
    context.close()


def test_on_m04_the_leave_question_moves_no_cube(browser, server):
    ana, bia = meet(browser, server)
    before = box_of(bia, ".cube-canvas")
    bia.click("[data-action=leave]")
    bia.wait_for_selector("[role=alertdialog]")
    assert box_of(bia, ".cube-canvas") == before, "the question pushed the cube"
    shot(bia, "leave-question-floating")
    for page in (ana, bia):
        page.context.close()


@pytest.mark.parametrize("size", [(568, 320), (640, 360), (844, 390)], ids=lambda s: f"{s[0]}x{s[1]}")
@pytest.mark.parametrize("locale", ["pt-BR", "en-US"])
def test_cube_r08_the_longest_warning_reads_whole_on_a_landscape_phone(browser, base_url, size, locale):
    """Front, middle and back rotate only clockwise at level 1: the longest of the one-way warnings,
    shown whole (no ellipsis, nothing clipped) above a cube that stays on screen."""
    width, height = size
    context = browser.new_context(viewport={"width": width, "height": height}, is_mobile=True,
                                  has_touch=True, locale=locale)
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    page.click("[data-game=cube]")
    page.click("[data-mode='1-friend']")
    page.click("[data-action=buttons]")
    page.evaluate("window.scrollTo(0, 0)")
    before = box_of(page, "#cube-canvas")
    page.click("[data-action='F-']")
    expected = {"pt-BR": "Frente, meio e trás, só no sentido horário ↻",
                "en-US": "Front, middle and back rotate only clockwise ↻"}[locale]
    assert page.inner_text("[data-refusal]") == expected
    clipped = page.eval_on_selector("[data-refusal]", "e => e.scrollWidth > e.clientWidth || e.scrollHeight > e.clientHeight")
    assert not clipped, "the warning is cut"
    on_screen(page, "[data-refusal]")
    on_screen(page, "#cube-canvas")
    assert box_of(page, "#cube-canvas") == before, "the warning moved the cube"
    shot(page, f"cube-warning-{width}x{height}-{locale}")
    context.close()


# Whether the element's box lies inside the viewport as the page is scrolled now.
IN_SIGHT = """selector => { const box = document.querySelector(selector).getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= innerHeight; }"""


def test_on_m02_a_match_played_with_the_buttons_ends_with_its_result_in_sight(browser, server):
    """The buttons under the cube are far below the line that says how the match went: when
    the last move is made down there, the page brings that line up to both players."""
    ana, bia = meet(browser, server)
    # X a1; O a3; X b1; O turns row 3 (D+), taking her a3 off side 1; then X c1 makes a line.
    for mover, action in [(ana, "[data-cell=a1]"), (bia, "[data-cell=a3]"),
                          (ana, "[data-cell=b1]"), (bia, "[data-action='D+']")]:
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        mover.click(f"{action}:enabled")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert not bia.evaluate(IN_SIGHT, "[data-status]"), "down at the turns, the line is above"
    ana.click("[data-cell=c1]:enabled")
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    for page, who in ((ana, "winner"), (bia, "loser")):
        try:
            page.wait_for_function(IN_SIGHT, arg="[data-status]", timeout=5000)
        except PlaywrightTimeout:
            box = page.evaluate("document.querySelector('[data-status]').getBoundingClientRect().toJSON()")
            pytest.fail(f"the {who}'s result line at {box} is out of the {page.viewport_size} view")
        shot(page, f"online-end-in-sight-{who}", full=False)
    for page in (ana, bia):
        page.context.close()


def small_targets(page):
    """The visible buttons (board cells aside: Super's 81 are a grid's ninths) shorter or
    narrower than a thumb's 44 px."""
    return page.evaluate("""() => [...document.querySelectorAll('button:not([data-cell]), summary')]
        .filter(b => b.offsetParent !== null)
        .map(b => [b.dataset.action || b.dataset.starter || b.dataset.rival || b.textContent.trim(),
                   b.getBoundingClientRect()])
        .filter(([_, r]) => r.height < 43.5 || r.width < 43.5)
        .map(([name, r]) => `${name}: ${Math.round(r.width)}×${Math.round(r.height)}`)""")


def test_every_button_of_home_and_the_local_games_is_a_thumbs_width(phone):
    seen = {"home": small_targets(phone)}
    phone.click("[data-game=super]")
    phone.wait_for_selector("[data-starter=coin]")
    seen["super, choosing"] = small_targets(phone)
    # The person starts: before their first move PARAR has nothing to lose and asks nothing.
    phone.click("[data-starter=X]")
    phone.click("[data-rival=easy]")
    phone.wait_for_selector("[data-action=hint]")
    seen["super vs easy"] = small_targets(phone)
    phone.click("[data-action=stop]")
    phone.click("[data-game=classic]")
    phone.click("[data-rival=nino]")
    phone.wait_for_selector("[data-action=hint]")
    seen["classic vs Nino"] = small_targets(phone)
    phone.click("[data-cell=b2]")
    wait_for_person(phone)
    phone.click("[data-action=stop]")
    phone.wait_for_selector("[data-action=confirm-stop]")
    seen["classic, PARAR asking"] = small_targets(phone)
    phone.click("[data-action=confirm-stop]")
    phone.click("[data-action=back]")
    phone.click("[data-game=cube]")
    phone.click("[data-mode='2-friend']")
    phone.click("[data-action=buttons]")
    seen["cube, level 2, with its buttons"] = small_targets(phone)
    assert all(not small for small in seen.values()), seen
