"""The app in a phone browser: every game to the end, the score kept on the device,
offline play."""

import re

from conftest import ROOT, record, shot, wait_for

MAX_CLICKS = 400


def status(page):
    return page.get_attribute("[data-status]", "data-status")


def wait_for_person(page, selector="[data-cell]:enabled"):
    """Waits while the computer thinks (it thinks between frames): until the person can
    act or the game is over."""
    page.wait_for_function(
        """selector => !document.querySelector('[data-status]').dataset.status.startsWith('ongoing')
                       || document.querySelector(selector) !== null""",
        arg=selector, timeout=30000)


def play_until_over(page, selector="[data-cell]:enabled"):
    """Clicks the first enabled cell (or action) until the game ends."""
    for _ in range(MAX_CLICKS):
        wait_for_person(page, selector)
        if not status(page).startswith("ongoing"):
            return status(page)
        page.locator(selector).first.click()
    raise AssertionError(f"no end after {MAX_CLICKS} clicks: {status(page)}")


def series_total(page):
    return sum(int(page.get_attribute(f"[data-series={k}]", "data-count"))
               for k in ("wins", "draws", "losses"))


def test_home_shows_the_four_games_and_the_velha_score(phone):
    for game in ("cube", "classic", "super", "v2"):
        assert phone.locator(f"[data-game={game}]").is_visible()
    assert phone.inner_text("[data-score=wins]") == "0"
    shot(phone, "home")
    phone.click("[data-howto=cube]")
    assert "Nível 1" in phone.inner_text("article.howto")
    shot(phone, "howto-cube")


ABOUT = {"rabisco": "Brinca mais do que joga", "nino": "não enxerga a jogada dupla",
         "quelonia": "nunca perde"}
# What each says after the person's win, a draw, the character's win.
SAYS = {"rabisco": ("Ih, perdi!", "Foi quase", "Oba, fechei a linha!"),
        "nino": ("Essa eu não vi", "Tampei tudo!", "Fica de olho"),
        "quelonia": ("você me pegou", "isso já é vitória", "atacar vem antes de tampar")}


def test_classic_series_against_each_character(phone):
    for character in ("rabisco", "nino", "quelonia"):
        phone.click("[data-game=classic]")
        pick = phone.locator(f"[data-rival={character}]")
        assert pick.locator("img[data-avatar]").bounding_box()["width"] >= 48, "a face to pick"
        assert ABOUT[character] in pick.inner_text()
        if character == "rabisco":
            shot(phone, "classic-choose")
        pick.click()
        assert phone.locator(f"[data-opponent={character}] img[data-avatar]").is_visible()
        assert status(phone) == "ongoing X", "the person (X) starts the first game"
        assert phone.get_attribute("[data-cell=a1]", "aria-label") == "a1, vazio"
        result = play_until_over(phone)
        shot(phone, f"classic-{character}-end")
        if character == "quelonia":
            assert result != "win X", "Vó Quelônia never loses"
        said = {"win X": 0, "draw": 1, "win O": 2}[result]
        assert SAYS[character][said] in phone.inner_text(f"[data-says={character}]")
        assert series_total(phone) == 1
        phone.click("[data-action=another]")
        # CLASSIC-R05: the computer starts the second game, so one O is already down.
        assert phone.locator("[data-cell] svg.mark.o").count() == 1
        play_until_over(phone)
        phone.click("[data-action=stop]")
        assert series_total(phone) == 2
        shot(phone, f"classic-{character}-series")
        phone.click("text=Escolha o adversário")
        phone.click("[data-action=back]")


# The green of the line that won, as the cube rings its own (palette::WIN).
WIN_GREEN = "rgb(60, 240, 110)"


def test_classic_r03_two_players_on_one_device_see_the_line_that_won(phone):
    phone.click("[data-game=classic]")
    phone.click("[data-rival=friend]")
    for cell in ("a1", "b1", "a2", "b2"):
        phone.click(f"[data-cell={cell}]")
    assert phone.locator("[data-cell].winning").count() == 0, "no line yet"
    phone.click("[data-cell=a3]")
    assert status(phone) == "win X"
    assert "X venceu!" in phone.inner_text("[data-status]")
    assert phone.get_attribute("[data-cell=b2]", "aria-label") == "b2, O"
    winners = [c.get_attribute("data-cell") for c in phone.locator("[data-cell].winning").element_handles()]
    assert winners == ["a1", "a2", "a3"]
    assert WIN_GREEN in phone.eval_on_selector("[data-cell=a1]", "e => getComputedStyle(e).boxShadow")
    assert phone.eval_on_selector("[data-cell=b1]", "e => getComputedStyle(e).boxShadow") == "none"
    shot(phone, "classic-won-line")


# Two people's Super game whose 25th move, X's h6, wins board 6 and with it boards 4, 5 and 6,
# the big board's middle row (SUPER-R02).
SUPER_MIDDLE_ROW = ("g6 a8 c4 i2 i6 h8 d6 b8 d4 b2 f4 g1 c1 g2 c5 h5 d5 a5 c6 i9 g7 a3 a7 c2 "
                    "h6").split()


def test_super_r02_the_boards_of_the_line_that_won_are_ringed(phone):
    phone.click("[data-game=super]")
    phone.click("[data-starter=X]")
    phone.click("[data-rival=friend]")
    for cell in SUPER_MIDDLE_ROW[:-1]:
        phone.click(f"[data-cell={cell}]")
    assert status(phone) == "ongoing X"
    assert phone.locator(".small-board.winning").count() == 0, "no line of boards yet"
    phone.click(f"[data-cell={SUPER_MIDDLE_ROW[-1]}]")
    assert status(phone) == "win X"
    ringed = [b.get_attribute("data-board") for b in phone.locator(".small-board.winning").element_handles()]
    assert ringed == ["4", "5", "6"]
    assert phone.eval_on_selector(".small-board.winning", "e => getComputedStyle(e).backgroundColor") \
        == WIN_GREEN
    shot(phone, "super-won-line")


def phone_in(browser, base_url, locale):
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale)
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    return page


# The series of two people before a game, after X won one, and after X won again (O started).
SERIES = {"pt-BR": ("0 vitórias · 0 velhas · 0 derrotas", "1 vitória · 0 velhas · 0 derrotas",
                    "2 vitórias · 0 velhas · 0 derrotas"),
          "en-US": ("0 wins · 0 draws · 0 losses", "1 win · 0 draws · 0 losses",
                    "2 wins · 0 draws · 0 losses")}


def test_classic_r07_the_series_score_counts_in_words(browser, base_url):
    for locale, (before, after_one, after_two) in SERIES.items():
        page = phone_in(browser, base_url, locale)
        page.click("[data-game=classic]")
        page.click("[data-rival=friend]")
        assert page.inner_text(".series") == before
        for cell in ("a1", "b1", "a2", "b2", "a3"):
            page.click(f"[data-cell={cell}]")
        assert page.inner_text(".series") == after_one
        page.click("[data-action=another]")
        # CLASSIC-R05: O starts the second game; X's column a again.
        for cell in ("c1", "a1", "c2", "a2", "b3", "a3"):
            page.click(f"[data-cell={cell}]")
        assert status(page) == "win X"
        page.click("[data-action=stop]")
        assert page.inner_text("[data-series=final] .series") == after_two
        shot(page, f"classic-series-words-{locale}")
        page.context.close()


# The coin's line, and the buttons that agree on a starter instead.
COIN = {"pt-BR": ("Cara ou coroa: {} começa", "O começa", ["Cara ou coroa", "X começa", "O começa"]),
        "en-US": ("Coin toss: {} starts", "O starts", ["Coin toss", "X starts", "O starts"])}


def pressed(page):
    """The starter buttons shown as chosen."""
    return [b.get_attribute("data-starter")
            for b in page.query_selector_all("[data-starter][aria-pressed=true].selected")]


def test_super_r05_the_coin_toss_names_who_starts(browser, base_url):
    for locale, (tossed, agreed, buttons) in COIN.items():
        page = phone_in(browser, base_url, locale)
        page.click("[data-game=super]")
        first = page.get_attribute("[data-coin]", "data-coin")
        assert page.inner_text("[data-coin]") == tossed.format(first)
        assert [b.inner_text() for b in page.query_selector_all("[data-starter]")] == buttons
        assert pressed(page) == ["coin"]
        # Agreed, not tossed: the line no longer says the coin chose, and the choice shows.
        page.click("[data-starter=O]")
        assert page.inner_text("[data-coin]") == agreed
        assert pressed(page) == ["O"]
        page.click("[data-starter=coin]")
        assert page.inner_text("[data-coin]") == tossed.format(page.get_attribute("[data-coin]", "data-coin"))
        assert pressed(page) == ["coin"]
        shot(page, f"super-coin-{locale}")
        page.context.close()


def test_super_to_the_end_against_easy(phone):
    phone.click("[data-game=super]")
    assert re.fullmatch(r"Cara ou coroa: [XO] começa", phone.inner_text("[data-coin]"))
    # The players may agree instead of tossing: O starts, so easy (O) moves first.
    phone.click("[data-starter=O]")
    assert phone.get_attribute("[data-coin]", "data-coin") == "O"
    phone.click("[data-rival=easy]")
    wait_for_person(phone)
    assert phone.locator("[data-cell] svg.mark.o").count() == 1
    shot(phone, "super-start")
    assert phone.locator("[data-cell]").count() == 81
    result = play_until_over(phone)
    assert result in ("win X", "win O", "draw")
    shot(phone, "super-end")


def test_v2_to_the_end_against_medium_with_points(phone):
    phone.click("[data-game=v2]")
    phone.click("[data-rival=medium]")
    phone.click("[data-cell=e5]")
    wait_for_person(phone)
    assert phone.get_attribute(".small-board.sent", "data-board") is not None
    play_until_over(phone)
    shot(phone, "v2-end")
    assert phone.locator("[data-points=X]").is_visible()


def players(page):
    """The names beside X and O, as the screen shows them."""
    return [page.inner_text(f"[data-player={s}]").strip() for s in ("X", "O")]


def test_v2_r08_another_game_swaps_the_symbols_so_x_starts(phone):
    phone.click("[data-game=v2]")
    phone.click("[data-rival=friend]")
    assert players(phone) == ["X · Jogador 1", "O · Jogador 2"]
    assert status(phone) == "ongoing X"
    play_until_over(phone)
    # The finished game keeps its names until the next one starts.
    assert players(phone) == ["X · Jogador 1", "O · Jogador 2"]
    shot(phone, "v2-swap-end")
    phone.click("[data-action=another]")
    # Jogador 2 would start the second game, so Jogador 2 plays X: X always starts.
    assert players(phone) == ["X · Jogador 2", "O · Jogador 1"]
    assert status(phone) == "ongoing X"
    assert phone.locator("[data-cell] svg.mark").count() == 0
    assert series_total(phone) == 1
    shot(phone, "v2-swap-second")


def test_v2_r08_against_the_computer_the_second_game_is_its_to_start_as_x(phone):
    phone.click("[data-game=v2]")
    phone.click("[data-rival=easy]")
    assert players(phone) == ["X · Você", "O · Computador"]
    assert status(phone) == "ongoing X"
    result = play_until_over(phone)
    said = phone.inner_text("[data-status]")
    assert said == {"win X": "Você venceu!", "win O": "Você perdeu.", "draw": "Deu velha!"}[result]
    phone.click("[data-action=another]")
    assert players(phone) == ["X · Computador", "O · Você"]
    # The computer (X) starts; then the person plays O.
    wait_for_person(phone)
    assert status(phone) == "ongoing O"
    assert phone.locator("[data-cell] svg.mark.x").count() == 1
    shot(phone, "v2-swap-computer")
    result = play_until_over(phone)
    said = phone.inner_text("[data-status]")
    assert said == {"win O": "Você venceu!", "win X": "Você perdeu.", "draw": "Deu velha!"}[result]
    phone.click("[data-action=stop]")


def test_v2_clock_takes_the_turn_away(browser, base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True, locale="pt-BR")
    page = context.new_page()
    page.goto(base_url + "?clock=2")
    page.click("[data-game=v2]")
    page.click("[data-rival=friend]")
    page.click("[data-cell=e5]")
    assert status(page) == "ongoing O"
    page.wait_for_selector("[data-lost-turn=O]", timeout=5000)
    assert status(page) == "ongoing X", "O lost the turn; X moves, anywhere"
    assert page.get_attribute("[data-sent]", "data-sent") == "0"
    shot(page, "v2-lost-turn")
    context.close()


def test_on_k05_cube_controls_refusals_and_the_velha_score_kept_on_the_phone(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-velha']")
    phone.click("[data-action=buttons]")
    assert phone.get_attribute("[data-cell=b2]", "aria-label") == "b2, vazio"
    phone.click("[data-cell=b2]")
    wait_for_person(phone)
    assert status(phone) == "ongoing X", "the Velha answered"
    # Its answer may have turned the X away; whatever it did, every cell says what it holds.
    for cell in ("a1", "b2", "c3"):
        assert re.fullmatch(rf"{cell}, (vazio|X|O|\*)", phone.get_attribute(f"[data-cell={cell}]", "aria-label"))
    phone.click("[data-action='L-']")
    assert phone.inner_text("[data-refusal]") == "Nas colunas, só para baixo ↓"
    shot(phone, "cube-level1")
    # The first cell that is not the Velha's (tapping hers is refused, CUBE-R06), else a turn.
    result = play_until_over(phone, "[data-cell]:enabled:not([aria-label$=', O']), [data-action$='+']:enabled")
    shot(phone, "cube-end")
    phone.click("[data-action=stop]")
    wins, losses = int(phone.inner_text("[data-score=wins]")), int(phone.inner_text("[data-score=losses]"))
    assert (wins, losses) == ((1, 0) if result == "win X" else (0, 1))
    phone.reload()
    phone.wait_for_selector("[data-game=classic]")
    assert int(phone.inner_text("[data-score=losses]")) == losses, "the score survives a reload"
    phone.click("[data-action=reset-score]")
    phone.click("[data-action=confirm-reset]")
    assert phone.inner_text("[data-score=losses]") == "0"


# The next counted turn's kind at level 2, as the seed words it and in English; the line above
# the cube says whose turn it is.
GIRO = {"pt-BR": ("Giro: livre", "Giro: sentido único", "Vez do"),
        "en-US": ("Rotation: either way", "Rotation: one way", "Turn:")}


def test_cube_v03_level2_names_the_next_turn_kind_apart_from_whose_turn(browser, base_url):
    for locale, (free, one_way, whose) in GIRO.items():
        page = phone_in(browser, base_url, locale)
        page.click("[data-game=cube]")
        page.click("[data-mode='2-friend']")
        page.click("[data-action=buttons]")
        assert page.get_attribute("[data-giro]", "data-giro") == "free"
        assert page.inner_text("[data-giro]") == free
        assert page.inner_text("[data-status]") == f"{whose} X"
        page.click("[data-action='L-']")
        page.click("[data-action='U-']")
        assert page.get_attribute("[data-giro]", "data-giro") == "one-way"
        assert page.inner_text("[data-giro]") == one_way
        # One word for one thing: the pill does not begin as whose turn it is does.
        assert page.inner_text("[data-giro]").split()[0] != \
            page.inner_text("[data-status]").split()[0], locale
        page.evaluate("window.scrollTo(0, 0)")
        shot(page, f"cube-level2-{locale}")
        page.context.close()


# The cube's English words for a layer's rotation, never "turn", which is a player's: the
# tagline, the buttons' heading, and the refusals of a second free rotation and of a wrong way.
ROTATION_EN = ("Tic-tac-toe on side 1 of a rotating cube.", "Rotations",
               "Only one free rotation per turn.", "Columns rotate only down ↓")


def test_cube_v04_english_says_rotation_for_a_layer_and_turn_for_a_player(browser, base_url):
    tagline, heading, second_free, wrong_way = ROTATION_EN
    page = phone_in(browser, base_url, "en-US")
    assert page.inner_text("li.game-card:has([data-howto=cube]) p") == tagline
    page.click("[data-game=cube]")
    page.click("[data-mode='1-friend']")
    page.click("[data-action=buttons]")
    assert page.inner_text("section.turns h2") == heading
    assert page.get_attribute("section.turns", "aria-label") == heading
    page.click("[data-action='S+']")
    page.click("[data-action='B+']")
    assert page.inner_text("[data-refusal]") == second_free
    assert page.inner_text("[data-status]") == "Turn: X", "the free rotation kept X's turn"
    page.click("[data-action='L-']")
    assert page.inner_text("[data-refusal]") == wrong_way
    shot(page, "cube-rotation-words-en-US")
    page.context.close()


def test_it_installs_and_plays_offline(browser, base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True)
    page = context.new_page()
    page.goto(base_url)
    manifest = page.get_attribute("link[rel=manifest]", "href")
    assert manifest == "manifest.webmanifest"
    # Wait for an active worker, then reload once if its claim missed this page: a reload
    # started before activation would load uncontrolled for good (claim runs only once).
    page.evaluate("navigator.serviceWorker.ready.then(() => true)")
    if page.evaluate("navigator.serviceWorker.controller === null"):
        page.reload()
    page.wait_for_function("navigator.serviceWorker.controller !== null", timeout=20000)
    # Only the service worker's cache may answer: the browser's HTTP cache goes first.
    page.context.new_cdp_session(page).send("Network.clearBrowserCache")
    context.set_offline(True)
    page.reload()
    page.wait_for_selector("[data-game=classic]", timeout=20000)
    page.click("[data-game=classic]")
    page.click("[data-rival=nino]")
    page.click("[data-cell=b2]")
    assert page.locator("[data-cell] svg.mark").count() == 2
    # The cube's painter, a module of its own, was kept too.
    page.click("[data-action=back]")
    page.click("[data-game=cube]")
    page.click("[data-mode='1-friend']")
    page.wait_for_selector(".cube-stage[data-painter=ready]", timeout=20000)
    context.close()


def sticker_centres(width, height, level=1):
    """Sticker centres of an empty cube in a canvas of this size, from the cube-view binary
    (the same camera and projection the app uses)."""
    import json
    import os
    import subprocess
    import tempfile
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    binary = os.path.join(target, "debug", "cube-view")
    state = "." * 54 + f" X L{level} - x=0 o=0"
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([binary, "snapshot", "--state", state, "--size", f"{width}x{height}",
                              "--out", os.path.join(tmp, "c.png")], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


def touch_drag(page, start, end, steps=6):
    """A finger drag, as touch events (pointer events of type touch reach the app)."""
    cdp = page.context.new_cdp_session(page)
    (x0, y0), (x1, y1) = start, end
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
    for i in range(1, steps + 1):
        x, y = x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [{"x": x, "y": y}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


def test_cube_canvas_taps_and_turns_by_touch(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-friend']")
    phone.wait_for_timeout(800)
    box = phone.locator("#cube-canvas").bounding_box()
    centres = sticker_centres(round(box["width"]), round(box["height"]))
    at = lambda name: (box["x"] + centres[name][0], box["y"] + centres[name][1])
    phone.touchscreen.tap(*at("F1"))
    assert phone.get_attribute("[data-cell=a1]", "aria-label") == "a1, X", "a tap on F1 marks a1"
    assert status(phone) == "ongoing O"
    x, y = at("F1")
    touch_drag(phone, (x, y), (x, y + 60))
    assert status(phone) == "ongoing X", "a drag down on F1 turned column a (L+)"
    assert phone.get_attribute("[data-cell=a1]", "aria-label") == "a1, vazio", "the X went down"
    touch_drag(phone, (x, y), (x, y - 60))
    assert phone.inner_text("[data-refusal]") == "Nas colunas, só para baixo ↓", "level 1 refuses the other way"
    phone.wait_for_timeout(300)
    shot(phone, "cube-canvas")


def canvas_frame(page):
    """The canvas's box and what it shows, in CSS pixels, with the page scrolled to its top
    (the buttons below the cube scroll it)."""
    import io
    from PIL import Image
    page.evaluate("window.scrollTo(0, 0)")
    box = page.locator("#cube-canvas").bounding_box()
    picture = Image.open(io.BytesIO(page.screenshot(clip=box, scale="css"))).convert("RGB")
    return box, picture


def glowing(picture, centre, pitch):
    """Pixels of the winning ring's green (`palette::WIN`) around a sticker's centre: out past
    its edge, not into its neighbours' margins."""
    import colorsys
    r = int(pitch * 0.45)
    count = 0
    for dy in range(-r, r + 1):
        for dx in range(-r, r + 1):
            rgb = picture.getpixel((round(centre[0] + dx), round(centre[1] + dy)))
            h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
            count += 100 / 360 <= h < 170 / 360 and s > 0.5 and v > 80 / 255
    return count


def test_cube_v04_the_wrong_way_warning_names_the_way_and_covers_nothing(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-friend']")
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    phone.wait_for_timeout(300)
    before, _ = canvas_frame(phone)
    centres = sticker_centres(round(before["width"]), round(before["height"]))
    at = lambda name: (before["x"] + centres[name][0], before["y"] + centres[name][1])
    top_face = [at(f"U{i}") for i in range(1, 10)]
    for sticker, (dx, dy), sentence in [
        ("F1", (0, -60), "Nas colunas, só para baixo ↓"),
        ("F3", (60, 0), "Nas fileiras, só para a esquerda ←"),
        ("U8", (-60, 0), "Frente, meio e trás, só no sentido horário ↻"),
    ]:
        x, y = at(sticker)
        touch_drag(phone, (x, y), (x + dx, y + dy))
        assert phone.inner_text("[data-refusal]") == sentence, sticker
        assert status(phone) == "ongoing X", "nothing turned"
        warning = phone.locator("[data-refusal]").bounding_box()
        canvas = phone.locator("#cube-canvas").bounding_box()
        assert canvas == before, "the cube did not move when the warning came"
        assert warning["y"] + warning["height"] <= canvas["y"], "the warning is above the cube, not on it"
        assert not any(warning["x"] <= ux <= warning["x"] + warning["width"]
                       and warning["y"] <= uy <= warning["y"] + warning["height"] for ux, uy in top_face)
    shot(phone, "cube-wrong-way")
    phone.click("[data-action=buttons]")
    phone.click("[data-cell=a1]")
    assert phone.locator("[data-refusal]").count() == 0, "a legal move takes the warning away"
    assert canvas_frame(phone)[0] == before, "and the cube stays where it was"


def test_cube_v01_the_browser_painter_draws_what_the_wgpu_renderer_draws(browser, base_url):
    """The browser's painter is WebGL2 itself, not wgpu: the picture it draws of a position
    seen from an orbited view is the one the native wgpu renderer (the `cube-view` binary, on
    lavapipe) draws of the same frame, but for the edges' antialiasing."""
    import io
    import os
    import struct
    import subprocess
    import tempfile
    from PIL import Image, ImageChops
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    # Keeps the last frame the app handed the painter.
    context.add_init_script("""
let asked;
Object.defineProperty(window, "velhaPainter", {
  configurable: true,
  get: () => asked && (() => asked().then((m) => {
    if (!m.Painter.prototype.recorded) {
      const draw = m.Painter.prototype.draw;
      m.Painter.prototype.draw = function (width, height, line) {
        window.lastFrame = { width, height, line };
        return draw.call(this, width, height, line);
      };
      m.Painter.prototype.recorded = true;
    }
    return m;
  })),
  set: (f) => { asked = f; },
});""")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url)
    page.click("[data-game=cube]")
    page.click("[data-mode='2-friend']")
    page.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    page.wait_for_timeout(300)
    box, _ = canvas_frame(page)
    centres = sticker_centres(round(box["width"]), round(box["height"]), level=2)
    for facelet, cell, mark in (("F5", "b2", "X"), ("F1", "a1", "O"), ("F9", "c3", "X")):
        page.touchscreen.tap(box["x"] + centres[facelet][0], box["y"] + centres[facelet][1])
        assert page.get_attribute(f"[data-cell={cell}]", "aria-label") == f"{cell}, {mark}"
    x, y = box["x"] + 8, box["y"] + box["height"] - 8
    touch_drag(page, (x, y), (x + 110, y - 70), steps=10)
    page.locator("[data-action=front-view]").wait_for()
    page.wait_for_timeout(600)
    frame = page.evaluate("window.lastFrame")
    state, camera, spin = frame["line"].split(";")
    assert spin == "-", "a still picture"
    level, yaw, pitch = camera.split(" ")
    angle = lambda bits: repr(struct.unpack(">f", bytes.fromhex(bits))[0])
    page.evaluate("window.scrollTo(0, 0)")
    browser_picture = Image.open(io.BytesIO(page.screenshot(clip=box, scale="device"))).convert("RGB")
    width, height = frame["width"], frame["height"]
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "wgpu.png")
        subprocess.run([os.path.join(target, "debug", "cube-view"), "snapshot", "--state", state,
                        "--yaw", angle(yaw), "--pitch", angle(pitch), "--size", f"{width}x{height}",
                        "--out", out], capture_output=True, text=True, check=True)
        wgpu_picture = Image.open(out).convert("RGB")
    # The canvas may sit at a fraction of a device pixel (here 190.4375 CSS pixels down, at a
    # device scale of 2), which the compositor and the screenshot's clip round apart: the
    # pictures are compared at each shift of a pixel at most.
    w, h = min(width, browser_picture.width) - 1, min(height, browser_picture.height) - 1
    compared = []
    for dx in (-1, 0, 1):
        for dy in (-1, 0, 1):
            ours = browser_picture.crop((max(dx, 0), max(dy, 0), max(dx, 0) + w, max(dy, 0) + h))
            wgpu = wgpu_picture.crop((max(-dx, 0), max(-dy, 0), max(-dx, 0) + w, max(-dy, 0) + h))
            difference = ImageChops.difference(ours, wgpu).tobytes()
            differing = sum(1 for i in range(0, len(difference), 3) if max(difference[i:i + 3]) > 40)
            compared.append((differing, sum(difference) / len(difference), (dx, dy)))
    differing, mean, shift = min(compared)
    record("painter-parity.json", "orbited, X O X", {
        "pixels": w * h, "differing_by_more_than_40": differing, "mean_difference": round(mean, 3),
        "shift": shift, "unshifted": compared[4][:2]})
    if os.environ.get("E2E_SHOTS"):
        browser_picture.save(os.path.join(os.environ["E2E_SHOTS"], "painter-webgl2.png"))
        wgpu_picture.save(os.path.join(os.environ["E2E_SHOTS"], "painter-wgpu.png"))
    assert differing < w * h / 500, f"{differing} of {w * h} pixels differ"
    assert mean < 0.5, f"mean difference {mean:.2f}"
    context.close()
    assert not errors, errors


def test_cube_v03_front_view_brings_an_orbited_cube_back(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='2-friend']")
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    phone.wait_for_timeout(300)
    box, front = canvas_frame(phone)
    assert phone.locator("[data-action=front-view]").count() == 0, "at the front, no button"
    # A drag that starts off the cube (a corner of the canvas) orbits it.
    x, y = box["x"] + 8, box["y"] + box["height"] - 8
    touch_drag(phone, (x, y), (x + 150, y - 90), steps=10)
    button = phone.locator("[data-action=front-view]")
    button.wait_for()
    assert button.inner_text() == "Ver de frente"
    phone.wait_for_timeout(300)
    moved, orbited = canvas_frame(phone)
    assert moved == box, "the button came without moving the cube"
    assert orbited.tobytes() != front.tobytes(), "the orbit turned the view"
    shot(phone, "cube-orbited")
    button.click()
    phone.wait_for_timeout(800)
    assert phone.locator("[data-action=front-view]").count() == 0
    _, back = canvas_frame(phone)
    from PIL import ImageChops
    difference = ImageChops.difference(back, front).tobytes()
    differing = sum(1 for i in range(0, len(difference), 3) if max(difference[i:i + 3]) > 24)
    assert differing < back.width * back.height / 200, f"{differing} pixels differ from the front view"
    # The front view's stickers are where a tap finds them.
    centres = sticker_centres(round(box["width"]), round(box["height"]), level=2)
    phone.touchscreen.tap(box["x"] + centres["F1"][0], box["y"] + centres["F1"][1])
    phone.click("[data-action=buttons]")
    assert phone.get_attribute("[data-cell=a1]", "aria-label") == "a1, X", "a tap on F1 marks a1"
    shot(phone, "cube-front-again")


def test_cube_r11_the_winning_line_glows_at_the_end(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-friend']")
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    phone.click("[data-action=buttons]")
    # X: a1 c3 b1 c1, O: a2 b3 c2. X's top row wins; c3 is an X on no line.
    for cell in ("a1", "a2", "c3", "b3", "b1", "c2", "c1"):
        phone.click(f"[data-cell={cell}]")
    assert status(phone) == "win X"
    phone.wait_for_timeout(300)
    box, picture = canvas_frame(phone)
    centres = sticker_centres(round(box["width"]), round(box["height"]))
    pitch = min(abs(centres["F5"][0] - centres["F4"][0]), abs(centres["F5"][1] - centres["F2"][1]))
    ring = {name: glowing(picture, centres[name], pitch) for name in ("F1", "F2", "F3", "F9")}
    assert min(ring["F1"], ring["F2"], ring["F3"]) > pitch * pitch * 0.05, ring
    assert ring["F9"] == 0, ring
    winners = [c.get_attribute("data-cell") for c in phone.locator("[data-cell].winning").element_handles()]
    assert winners == ["a1", "b1", "c1"], "the buttons' board rings the same cells"
    shot(phone, "cube-won-glows")


def hue_at(picture, point):
    """The hue (degrees), saturation and value (0–1) of a canvas picture's pixel."""
    import colorsys
    rgb = picture.getpixel((round(point[0]), round(point[1])))
    h, s, v = colorsys.rgb_to_hsv(*(c / 255 for c in rgb))
    return h * 360, s, v


def is_blank(picture, point):
    """A blank sticker's pale grey (`palette::BLANK`, lit)."""
    _, s, v = hue_at(picture, point)
    return s < 0.15 and v > 0.6


def is_x(picture, point):
    """An X's blue (`palette::X_MARK`, lit)."""
    h, s, v = hue_at(picture, point)
    return 200 <= h <= 250 and s > 0.5 and v > 0.3


def is_o(picture, point):
    """An O's red (`palette::O_MARK`, lit): its ring or its pale red disc."""
    h, s, v = hue_at(picture, point)
    return (h >= 340 or h <= 15) and s > 0.2 and v > 0.3


def is_spent(picture, point):
    """A spent sticker's yellow (`palette::SPENT`, lit)."""
    h, s, v = hue_at(picture, point)
    return 35 <= h <= 60 and s > 0.5 and v > 0.3


def test_the_cubes_screen_asks_for_its_painter_while_the_player_chooses_how_to_play(
        browser, base_url):
    """Every way on from the cube's screen but the account draws the cube: the painter's glue
    and wasm are asked for together as soon as the screen opens, before a choice, so a player
    who takes a moment to choose finds the cube in 3D at once."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR")
    asked = []
    context.route("**/pkg/velha_cube_paint*",
                  lambda route: (asked.append(route.request.url), route.abort()))
    # A slow network: the modules fetched ahead of need, which the painter follows, never end.
    held = []
    context.route("**/pkg/split_*", lambda route: held.append(route))
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=cube]")
    wait_for(lambda: held, 10, page, "the modules ahead of need are on their way")
    assert not asked, "home alone does not ask for the painter before them"
    page.click("[data-game=cube]")
    page.wait_for_selector("[data-mode='1-velha']")
    wait_for(lambda: len(asked) >= 2, 5, page, "the painter is asked for")
    names = sorted(url.rsplit("/", 1)[1].split("-")[0] for url in asked)
    assert names == ["velha_cube_paint", "velha_cube_paint_bg"], asked
    context.close()


def test_a_signed_in_players_cube_screen_asks_for_the_painter_after_the_lobbys_modules(
        browser, base_url):
    """A signed-in player's online play is the lobby's and the match's modules first: the
    cube's screen waits for them before asking for the painter, so they do not share the
    network with it."""
    from test_account import fresh_name, sign_up
    phone = dict(viewport={"width": 360, "height": 640}, is_mobile=True, has_touch=True,
                 locale="pt-BR")
    first = browser.new_context(**phone)
    page = first.new_page()
    page.goto(base_url)
    sign_up(page, fresh_name())
    cookies = first.cookies()
    first.close()
    context = browser.new_context(**phone)
    context.add_cookies(cookies)
    context.add_init_script('localStorage.setItem("cubo-da-velha.signed-in", "1")')
    asked = []
    context.route("**/pkg/velha_cube_paint*",
                  lambda route: (asked.append(route.request.url), route.abort()))
    held = []
    context.route("**/pkg/split_lobby-*", lambda route: held.append(route))
    page = context.new_page()
    page.goto(base_url)
    page.click("[data-game=cube]", timeout=30000)
    page.wait_for_selector("[data-mode='1-velha']")
    wait_for(lambda: held, 10, page, "the lobby's module is on its way")
    page.wait_for_timeout(1000)
    assert not asked, "the painter waits for the lobby's module"
    for route in held:
        route.continue_()
    context.unroute("**/pkg/split_lobby-*")
    wait_for(lambda: len(asked) >= 2, 10, page, "the painter is asked for")
    # (The page may ask again after them: the modules ahead of need are free to come now.)
    names = {url.rsplit("/", 1)[1].split("-")[0] for url in asked}
    assert names == {"velha_cube_paint", "velha_cube_paint_bg"}, asked
    context.close()


def test_the_cube_is_drawn_and_played_before_its_painter_and_after_it_failed(browser, base_url):
    """The cube's painter is a second wasm module fetched after the first screen (seconds on a
    slow network): until it draws, the cube is drawn flat where the painter would draw it
    (src/platform/sketch_web.rs) and plays by touch; a failed fetch is a sentence above the
    cube that moves nothing, the painter is asked for again while it fails, and when the
    connection comes back it draws in 3D on the same screen, the game kept."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    held = []

    def hold(route):
        held.append(route)

    context.route("**/pkg/velha_cube_paint*", hold)
    # The modules fetched ahead of need never come, so the page does not ask for the painter
    # after them: only the cube's screen and canvas ask.
    ahead = []
    context.route("**/pkg/split_*", lambda route: ahead.append(route))
    page = context.new_page()
    page.goto(base_url)
    page.click("[data-game=cube]")
    page.click("[data-mode='1-friend']")
    assert page.get_attribute(".cube-stage", "data-painter") == "loading"
    assert page.inner_text(".cube-loading") == "Preparando o cubo em 3D…"
    page.wait_for_timeout(300)
    box, picture = canvas_frame(page)
    centres = sticker_centres(round(box["width"]), round(box["height"]))
    side1 = [f"F{i}" for i in range(1, 10)]
    assert all(is_blank(picture, centres[f]) for f in side1), \
        "side 1's stickers are drawn where the painter draws them"
    above = picture.getpixel((round(box["width"] / 2), 8))
    assert max(abs(a - b) for a, b in zip(above, (0x1D, 0x23, 0x3B))) <= 3, \
        f"above the cube, the drawing's background: {above}"
    stop = page.locator("[data-action=stop]").bounding_box()
    shot(page, "cube-painter-loading")
    at = lambda name: (box["x"] + centres[name][0], box["y"] + centres[name][1])
    page.touchscreen.tap(*at("F5"))
    assert page.get_attribute("[data-cell=b2]", "aria-label") == "b2, X", "a tap on the drawing plays"
    x, y = at("F1")
    touch_drag(page, (x, y), (x, y + 60))
    assert status(page) == "ongoing X", "a drag down on F1 turned column a"
    page.wait_for_timeout(400)
    _, picture = canvas_frame(page)
    assert is_x(picture, centres["F5"]), "the X is drawn at the centre"
    assert held, "the painter was asked for"
    # No signal: every ask fails from now on.
    refused = []

    def refuse(route):
        refused.append(route.request.url)
        route.abort()

    context.route("**/pkg/velha_cube_paint*", refuse)
    for route in held:
        route.abort()
    context.unroute("**/pkg/velha_cube_paint*", hold)
    page.wait_for_selector(".cube-stage[data-painter=failed]")
    assert page.inner_text("[role=alert]") == (
        "O cubo em 3D não carregou. Ele vai aparecer assim que a conexão voltar.")
    assert page.locator("[data-action=stop]").bounding_box() == stop, "the sentence moves nothing"
    page.touchscreen.tap(*at("F9"))
    assert page.get_attribute("[data-cell=c3]", "aria-label") == "c3, X", "the drawing still plays"
    page.wait_for_timeout(300)
    _, picture = canvas_frame(page)
    assert is_x(picture, centres["F9"]) and is_x(picture, centres["F5"])
    shot(page, "cube-painter-failed")
    # Asked for again 2 s and then 4 s later; the next ask would wait 8 s.
    wait_for(lambda: any("retry=2" in url for url in refused), 30, page, "asked for again twice")
    assert page.get_attribute(".cube-stage", "data-painter") == "failed"
    page.wait_for_timeout(500)
    # The signal comes back: the painter is asked for at once, not 8 s later, and draws in 3D
    # on the same screen, the game kept.
    context.unroute("**/pkg/velha_cube_paint*", refuse)
    page.evaluate("window.dispatchEvent(new Event('online'))")
    page.wait_for_selector(".cube-stage[data-painter=ready]", timeout=5000)
    assert page.locator("#cube-sketch").count() == 0, "the painter draws alone"
    assert page.locator("[role=alert]").count() == 0
    page.wait_for_timeout(300)
    _, picture = canvas_frame(page)
    assert is_x(picture, centres["F5"]) and is_x(picture, centres["F9"]), \
        "the painter draws what the drawing showed"
    assert is_blank(picture, centres["F3"])
    shot(page, "cube-painter-came-late")
    context.close()


def test_the_cube_drawn_flat_while_the_system_holds_its_webgl_and_in_3d_when_given_back(phone):
    """A phone may take the WebGL context back from an app in the background: the painter's
    picture is gone, so the flat drawing takes over at once, says so, and plays; when the
    browser gives the context back the painter draws in 3D again on the same screen, and a
    screen opened again draws in 3D too."""
    phone.click("[data-game=cube]")
    phone.click("[data-mode='1-friend']")
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    assert phone.locator("#cube-sketch").count() == 0
    phone.evaluate("""window.loseWebgl = document.getElementById("cube-canvas")
                      .getContext("webgl2").getExtension("WEBGL_lose_context");
                      window.loseWebgl.loseContext()""")
    phone.wait_for_selector(".cube-stage[data-painter=failed]")
    assert phone.inner_text("[role=alert]") == (
        "O navegador pausou o cubo em 3D. Se ele não voltar sozinho, abra o cubo de novo.")
    phone.wait_for_timeout(300)
    box, picture = canvas_frame(phone)
    centres = sticker_centres(round(box["width"]), round(box["height"]))
    assert all(is_blank(picture, centres[f"F{i}"]) for i in range(1, 10)), "drawn flat"
    phone.touchscreen.tap(box["x"] + centres["F5"][0], box["y"] + centres["F5"][1])
    assert phone.get_attribute("[data-cell=b2]", "aria-label") == "b2, X"
    phone.wait_for_timeout(300)
    _, picture = canvas_frame(phone)
    assert is_x(picture, centres["F5"])
    shot(phone, "cube-webgl-lost")
    phone.evaluate("window.loseWebgl.restoreContext()")
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    assert phone.locator("#cube-sketch").count() == 0
    assert phone.locator("[role=alert]").count() == 0
    phone.wait_for_timeout(300)
    _, picture = canvas_frame(phone)
    assert is_x(picture, centres["F5"]), "in 3D again on the same screen, the game kept"
    assert all(is_blank(picture, centres[f"F{i}"]) for i in (1, 2, 3, 4, 6, 7, 8, 9))
    shot(phone, "cube-webgl-given-back")
    phone.touchscreen.tap(box["x"] + centres["F1"][0], box["y"] + centres["F1"][1])
    assert phone.get_attribute("[data-cell=a1]", "aria-label") == "a1, O"
    phone.wait_for_timeout(300)
    _, picture = canvas_frame(phone)
    assert is_o(picture, centres["F1"]), "the painter given its context back draws the moves"
    phone.evaluate("window.loseWebgl.loseContext()")
    phone.wait_for_selector(".cube-stage[data-painter=failed]")
    phone.click("[data-action=back]")
    phone.click("[data-game=cube]")
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    phone.wait_for_timeout(300)
    _, picture = canvas_frame(phone)
    assert is_x(picture, centres["F5"]) and is_o(picture, centres["F1"]), \
        "in 3D on the screen opened again, the game kept"


def test_a_browser_without_webgl2_plays_the_cube_on_its_flat_drawing(browser, base_url):
    """Without WebGL2 the painter cannot draw: the cube is drawn flat, says why, and plays
    against the Velha by touch."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    context.add_init_script("""
const getContext = HTMLCanvasElement.prototype.getContext;
HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
  return kind === "webgl2" || kind === "webgl" ? null : getContext.call(this, kind, ...rest);
};""")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url)
    page.click("[data-game=cube]")
    page.click("[data-mode='1-velha']")
    page.wait_for_selector(".cube-stage[data-painter=failed]", timeout=30000)
    assert page.inner_text("[role=alert]") == (
        "Este navegador não desenha o cubo em 3D (WebGL2).")
    page.wait_for_timeout(300)
    box, picture = canvas_frame(page)
    centres = sticker_centres(round(box["width"]), round(box["height"]))
    assert all(is_blank(picture, centres[f"F{i}"]) for i in range(1, 10))
    page.touchscreen.tap(box["x"] + centres["F5"][0], box["y"] + centres["F5"][1])
    assert page.get_attribute("[data-cell=b2]", "aria-label") == "b2, X"
    wait_for_person(page)
    page.wait_for_timeout(600)
    _, picture = canvas_frame(page)
    drawn = {"X": is_x, "O": is_o, "vazio": is_blank, "*": is_spent}
    for i in range(1, 10):
        cell = "abc"[(i - 1) % 3] + str((i - 1) // 3 + 1)
        label = page.get_attribute(f"[data-cell={cell}]", "aria-label")
        assert drawn[label.split(", ")[1]](picture, centres[f"F{i}"]), \
            f"the drawing shows what the Velha's answer left at {cell}: {label}"
    shot(page, "cube-without-webgl2")
    context.close()
    assert not errors, errors


def test_classic_r14_help_shows_the_tips_and_the_variations(phone):
    phone.click("[data-howto=classic]")
    text = phone.inner_text("article.howto")
    assert "Dicas para quem está começando" in text
    assert "Variações do jogo da velha" in text
    # The seed's text names another website; the app says it of this game.
    assert "no Cubo da Velha, quem começa simplesmente troca a cada partida" in text
    assert "Selminha" not in text
    shot(phone, "howto-classic")


def test_english_comes_from_the_browser_locale_and_desktop_layout_holds(browser, base_url):
    context = browser.new_context(viewport={"width": 1280, "height": 800}, locale="en-US")
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    assert page.inner_text("[data-game=classic]") == "Play"
    assert "You × Velha" in page.inner_text(".score")
    shot(page, "desktop-home-en")
    page.click("[data-game=super]")
    page.click("[data-rival=friend]")
    box = page.locator(".grid9").bounding_box()
    assert box["width"] <= 520 and box["x"] > 300, "the grid stays phone-sized and centred"
    shot(page, "desktop-super-en")
    context.close()
