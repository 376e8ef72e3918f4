"""Online play in two browsers against the real server (online.md ON-M01 … ON-M05): two
phones sign up, get subscriptions, meet in a Nacional level-2 lobby that updates itself, and
play a whole match to a line."""

import os
import tempfile

import pytest

from conftest import Served, record, server_fails, shot
from test_account import fresh_name, sign_up, subscribed_phone
from test_app import sticker_centres, touch_drag


@pytest.fixture(scope="module")
def quick(server):
    """A second server with 4-second moves and 3 seconds to come back, under the first one's
    certificate (which the test browser trusts); its own database (SQLite: two servers on one
    database are not supported yet)."""
    with tempfile.TemporaryDirectory() as data:
        quick = Served(data, ["--move-time-ms", "4000", "--reconnect-grace-ms", "3000",
                              "--tls-cert", os.path.join(server.data, "dev-cert.pem"),
                              "--tls-key", os.path.join(server.data, "dev-key.pem")], postgres=False)
        yield quick
        quick.stop()


def subscriber(browser, server, name):
    page = subscribed_phone(browser, server, name)
    page.click("[data-action=account]")
    page.click("[data-action=play-online]")
    page.wait_for_selector("[data-scope]")
    return page


def started_again(browser, page):
    """The phone of `page` started again: `page`'s context closed, and a new one that kept its
    session, without a service worker (so that a test may hold the app's modules)."""
    cookies = page.context.cookies()
    page.context.close()
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    context.add_cookies(cookies)
    context.add_init_script('localStorage.setItem("cubo-da-velha.signed-in", "1")')
    return context


def test_on_m01_a_kept_session_connects_while_the_lobby_downloads_and_waits_for_nothing_else(
        browser, server):
    # The lobby is a module of its own (src/lazy.rs), and the player's match another: a
    # subscriber whose session the device kept reaches the lobby though neither the match's
    # module nor that of rooms, rankings and the rest has come. Online play's gate opens the
    # live connection while the lobby's module downloads, and the lobby takes that one.
    context = started_again(browser, subscribed_phone(browser, server, fresh_name()))
    context.route("**/split_online-*", lambda route: route.abort())
    held = {"lobby": [], "match": []}
    context.route("**/split_lobby-*", lambda route: held["lobby"].append(route))
    context.route("**/split_live_match-*", lambda route: held["match"].append(route))
    page = context.new_page()
    sockets, asked = [], []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    page.on("request", lambda request: asked.append(request.url.split("/", 3)[3]))
    page.goto(server.url)
    page.click("[data-game=cube]")
    page.click("[data-mode=online]")
    page.wait_for_timeout(1500)
    assert held["lobby"], "the app asked for the lobby's module"
    assert page.query_selector("[data-lobby]") is None
    assert [url.split("/", 3)[3] for url in sockets] == ["api/live"], sockets
    assert "api/me" in asked, "the session is asked about while the lobby's module downloads"
    for route in held["lobby"]:
        route.continue_()
    page.wait_for_selector("[data-lobby]", timeout=30000)
    assert len(sockets) == 1, f"the lobby opened a connection of its own: {sockets}"
    # The match's module is still held: the lobby did not wait for it, a match does.
    page.click("[data-action=create-match]")
    page.wait_for_selector("[data-loading=screen]", timeout=15000)
    assert held["match"], "the app asked for the match's module"
    for route in held["match"]:
        route.continue_()
    page.wait_for_selector("[data-waiting]", timeout=15000)
    # Withdrawn, so the other tests' lobbies do not list it.
    page.click("[data-action=cancel-match]")
    page.wait_for_selector("[data-action=create-match]", timeout=15000)
    assert len(sockets) == 1, sockets
    context.close()


def status(page):
    return page.get_attribute("[data-status]", "data-status")


def player(page, seat):
    """The name in `seat` (X or O) as the match's header shows it."""
    return page.inner_text(f"[data-player={seat}]").split("· ", 1)[1]


def test_on_m02_two_phones_meet_in_the_lobby_and_play_to_a_line(browser, server):
    names = fresh_name(), fresh_name()
    ana, bia = (subscriber(browser, server, n) for n in names)
    for page in (ana, bia):
        page.click("[data-scope=nacional]")
        page.click("[data-level='2']")
    bia.wait_for_selector("[data-lobby=empty]", timeout=15000)
    ana.click("[data-action=create-match]")
    ana.wait_for_selector("[data-waiting]")
    shot(ana, "online-waiting")
    # The lobby changes by itself (ON-M01: no reload, no polling).
    bia.wait_for_selector(f"[data-join='{names[0]}']", timeout=15000)
    shot(bia, "online-lobby")
    bia.click(f"[data-join='{names[0]}']")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert ana.inner_text("[data-clock]").startswith(("1:00", "0:5")), "the minute of ON-M03"
    # Taps and drags on the cube itself (level 2: a drag that starts on a sticker turns its
    # layer either way on a player's first counted turn, CUBE-V03).
    for page in (ana, bia):
        page.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    box = ana.locator("#cube-canvas").bounding_box()
    assert box == bia.locator("#cube-canvas").bounding_box()
    centres = sticker_centres(round(box["width"]), round(box["height"]), level=2)
    at = lambda name: (box["x"] + centres[name][0], box["y"] + centres[name][1])

    def tap(page, sticker):
        page.touchscreen.tap(*at(sticker))

    def drag_left(page, sticker):
        x, y = at(sticker)
        touch_drag(page, (x, y), (x - 60, y))

    # X: a1; O turns row 3 (D+); X: b1; O: a3; X turns row 3 (D+), O's a3 leaves side 1;
    # O: a3 again; X: c1, the line a1 b1 c1.
    moves = [(ana, tap, "F1", {"a1": "X"}), (bia, drag_left, "F9", {}),
             (ana, tap, "F2", {"b1": "X"}), (bia, tap, "F7", {"a3": "O"}),
             (ana, drag_left, "F8", {"a3": "vazio"}), (bia, tap, "F7", {"a3": "O"}),
             (ana, tap, "F3", {})]
    for i, (mover, gesture, sticker, seen) in enumerate(moves):
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        # The view has settled (the previous move's animation).
        mover.wait_for_timeout(400)
        gesture(mover, sticker)
        waiter = bia if mover is ana else ana
        # Software WebGL on a loaded machine can drop a touch gesture's frames; a gesture that
        # made no move (the mover still to play, nothing pending) is made once more.
        landed = "[data-status=your-turn]" if i + 1 < len(moves) else "[data-status=won]"
        try:
            (waiter if i + 1 < len(moves) else mover).wait_for_selector(landed, timeout=8000)
        except Exception:
            assert status(mover) == "your-turn", (i, status(mover))
            gesture(mover, sticker)
        if i + 1 < len(moves):
            waiter.wait_for_selector("[data-status=your-turn]", timeout=15000)
            for cell, mark in seen.items():
                assert waiter.get_attribute(f"[data-cell={cell}]", "aria-label") == f"{cell}, {mark}", (i, cell)
        if i == 1:
            shot(ana, "online-match")
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    assert ana.inner_text("[data-status]") == "Você venceu com uma linha no lado 1."
    assert bia.inner_text("[data-status]") == f"Você perdeu: {names[0]} ficou com uma linha no lado 1."
    shot(bia, "online-lost")
    bia.click("[data-action=lobby]")
    bia.wait_for_selector("[data-action=create-match]")
    for page in (ana, bia):
        page.context.close()


def play_to_x_line(x, o):
    """A level-1 match from its first move to X's line, by the buttons: X a1; O a3; X b1; O
    turns row 3 (D+), taking her a3 off side 1; X c1."""
    for mover, action in [(x, "[data-cell=a1]"), (o, "[data-cell=a3]"), (x, "[data-cell=b1]"),
                          (o, "[data-action='D+']"), (x, "[data-cell=c1]")]:
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        mover.click(f"{action}:enabled")
    x.wait_for_selector("[data-status=won]", timeout=15000)


def meet(browser, server, scope="mundial", level="1"):
    """Two subscribers in a live match: the creator (X) and the one who joined (O)."""
    names = fresh_name(), fresh_name()
    ana, bia = (subscriber(browser, server, n) for n in names)
    for page in (ana, bia):
        page.click(f"[data-scope={scope}]")
        page.click(f"[data-level='{level}']")
    ana.click("[data-action=create-match]")
    ana.wait_for_selector("[data-waiting]")
    bia.click(f"[data-join='{names[0]}']", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    for page in (ana, bia):
        page.click("[data-action=buttons]")
    return ana, bia


def test_cube_r11_the_loser_reads_whose_line_ended_the_match(browser, server):
    """Ana reads Portuguese, Bia English: the winner reads that the line was hers, the loser
    whose it was, by name."""
    names = fresh_name(), fresh_name()
    ana = subscribed_phone(browser, server, names[0])
    bia = subscribed_phone(browser, server, names[1], locale="en-US")
    for page in (ana, bia):
        page.click("[data-action=account]")
        page.click("[data-action=play-online]")
        page.click("[data-scope=mundial]")
        page.click("[data-level='1']")
    ana.click("[data-action=create-match]")
    ana.wait_for_selector("[data-waiting]")
    bia.click(f"[data-join='{names[0]}']", timeout=15000)
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert bia.inner_text("[data-status]") == f"{names[0]}'s turn"
    for page in (ana, bia):
        page.click("[data-action=buttons]")
    play_to_x_line(ana, bia)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    assert ana.inner_text("[data-status]") == "Você venceu com uma linha no lado 1."
    assert bia.inner_text("[data-status]") == f"You lost: {names[0]} got a line on side 1."
    shot(bia, "online-lost-line-en")
    for page in (ana, bia):
        page.context.close()


def test_on_m04_a_phone_cut_off_for_5_s_comes_back_to_the_same_ply(browser, server):
    ana, bia = meet(browser, server)
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.context.set_offline(True)
    bia.wait_for_selector("[data-link=down]", timeout=15000)
    ana.wait_for_selector("[data-away]", timeout=15000)
    shot(bia, "online-reconnecting")
    shot(ana, "online-opponent-away")
    bia.wait_for_timeout(5000)
    bia.context.set_offline(False)
    bia.wait_for_selector("[data-status=your-turn]:not([data-link])", timeout=20000)
    bia.wait_for_selector("[data-link]", state="detached", timeout=20000)
    assert bia.get_attribute("[data-cell=a1]", "aria-label") == "a1, X", "the same match, the same ply"
    bia.click("[data-cell=c3]:enabled")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.wait_for_selector("[data-away]", state="detached", timeout=15000)
    assert ana.get_attribute("[data-cell=c3]", "aria-label") == "c3, O"
    for page in (ana, bia):
        page.context.close()


def test_on_m04_a_phone_whose_network_comes_back_at_16_s_reconnects_at_once(browser, server):
    """Cut off for 16 s, the app's waits between tries have grown to 8 s: the next one would
    come past the 20 s the match waits. The app tries again as soon as the browser says the
    network is back, so the match goes on."""
    ana, bia = meet(browser, server)
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.context.set_offline(True)
    bia.wait_for_selector("[data-link=down]", timeout=15000)
    bia.wait_for_timeout(16000)
    assert bia.query_selector("[data-link=down]"), "still down while offline"
    bia.context.set_offline(False)
    # The waits would have its next try some 7 s away.
    bia.wait_for_selector("[data-link]", state="detached", timeout=5000)
    assert status(bia) == "your-turn", "still Bia's match to play, not lost by abandonment"
    bia.click("[data-cell=c3]:enabled")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.get_attribute("[data-cell=c3]", "aria-label") == "c3, O"
    for page in (ana, bia):
        page.context.close()


def test_on_m04_the_match_goes_on_when_the_server_restarts_mid_match(browser, server):
    """The server stops mid-match (a deploy) and starts again on the same address and
    database: both phones reconnect by themselves and the match resumes at the same ply."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    with tempfile.TemporaryDirectory() as data:
        options = ["--tls-cert", cert, "--tls-key", key]
        first = Served(data, options, postgres=False)
        address = first.url.removeprefix("https://").rstrip("/")
        ana, bia = meet(browser, first)
        ana.click("[data-cell=a1]:enabled")
        bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
        first.stop()
        for page in (ana, bia):
            page.wait_for_selector("[data-link=down]", timeout=15000)
        shot(bia, "online-server-restarting")
        again = Served(data, options, postgres=False, listen=address)
        try:
            for page in (ana, bia):
                page.wait_for_selector("[data-link]", state="detached", timeout=30000)
            bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
            assert bia.get_attribute("[data-cell=a1]", "aria-label") == "a1, X", "the same ply"
            bia.click("[data-cell=c3]:enabled")
            ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
            assert ana.get_attribute("[data-cell=c3]", "aria-label") == "c3, O"
            for page in (ana, bia):
                page.context.close()
        finally:
            again.stop()


def test_on_m04_leaving_asks_first_and_loses_by_abandonment(browser, server):
    ana, bia = meet(browser, server)
    bia.click("[data-action=leave]")
    assert "derrota por abandono" in bia.inner_text("[role=alertdialog]")
    bia.click("[data-action=confirm-leave]")
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    assert ana.inner_text("[data-status]") == f"Você venceu: {player(ana, 'O')} abandonou a partida."
    assert bia.inner_text("[data-status]") == "Você perdeu por abandono."
    for page in (ana, bia):
        page.context.close()


def test_on_m03_the_side_to_move_loses_when_its_time_runs_out(browser, quick):
    ana, bia = meet(browser, quick)
    # The server's 4-second clock, already counting: how far it has run down depends on how
    # long the two phones took to meet on a busy machine, not on the rule.
    clock = ana.get_attribute("[data-clock]", "data-clock")
    assert clock in ("0:04", "0:03", "0:02", "0:01", "0:00"), clock
    ana.wait_for_selector("[data-status=lost]", timeout=15000)
    bia.wait_for_selector("[data-status=won]", timeout=15000)
    assert ana.inner_text("[data-status]") == "Você perdeu: o seu tempo acabou."
    assert bia.inner_text("[data-status]") == f"Você venceu: o tempo de {player(bia, 'X')} acabou."
    shot(ana, "online-lost-on-time")
    for page in (ana, bia):
        page.context.close()


def test_on_m04_a_phone_cut_off_for_longer_loses_by_abandonment(browser, quick):
    ana, bia = meet(browser, quick)
    ana.click("[data-cell=b2]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.context.set_offline(True)
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    assert ana.inner_text("[data-status]") == f"Você venceu: {player(ana, 'O')} abandonou a partida."
    bia.context.set_offline(False)
    bia.wait_for_selector("[data-status=lost]", timeout=30000)
    for page in (ana, bia):
        page.context.close()


SEEN_MY_TURN = """() => { window.__myTurn = new Promise((resolve) => {
  const check = () => {
    const status = document.querySelector("[data-status]");
    if (status && status.dataset.status === "your-turn") { watch.disconnect(); resolve(Date.now()); }
  };
  const watch = new MutationObserver(check);
  watch.observe(document.body, { subtree: true, childList: true, attributes: true,
                                 attributeFilter: ["data-status"] });
}); }"""


def test_a_move_reaches_the_other_phone_figures(browser, server):
    """Not a timed test: records how long a move takes from the tap's click event on one phone
    to the other phone showing it is its turn (both phones on this machine, so one clock), over
    24 moves, in $E2E_SHOTS/online.json. From the click event, not from Playwright's click: on
    this machine's software GPU, two animating WebGL canvases can hold Playwright's "stable"
    check for seconds while both pages' main threads are idle."""
    import statistics
    ana, bia = meet(browser, server)
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.click("[data-cell=c3]:enabled")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    took = []
    mover, waiter = ana, bia
    for _ in range(24):
        # Level 1 turns one way only: four turns of the top row bring it back, no line forms.
        waiter.evaluate(SEEN_MY_TURN)
        mover.evaluate("document.addEventListener('click', () => { window.__clicked = Date.now(); },"
                       " {capture: true, once: true})")
        mover.click("[data-action='U+']:enabled")
        took.append(waiter.evaluate("window.__myTurn") - mover.evaluate("window.__clicked"))
        mover, waiter = waiter, mover
    took.sort()
    figures = {"moves": len(took), "median_ms": statistics.median(took),
               "p95_ms": took[int(0.95 * (len(took) - 1))], "max_ms": took[-1]}
    record("online.json", "move_to_other_phone", figures)
    for page in (ana, bia):
        page.context.close()


CLICKED_AT = """() => document.addEventListener("click", () => { window.__clicked = Date.now(); },
  { capture: true, once: true })"""
SHOWN_AT = """(selector) => new Promise((resolve) => {
  const check = () => { if (document.querySelector(selector)) { watch.disconnect(); resolve(Date.now()); } };
  const watch = new MutationObserver(check);
  watch.observe(document.body, { subtree: true, childList: true, attributes: true });
  check();
})"""


def test_from_entrar_to_the_lobby_figures(browser, server):
    """Not a timed test: records, on this machine, how long the app takes from the tap on
    ENTRAR to the profile (signing in), and from the tap on "Jogar online" to the lobby's list
    (the live connection opened, hello, the list watched), in $E2E_SHOTS/online.json."""
    name = fresh_name()
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR")
    page = context.new_page()
    page.goto(server.url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    sign_up(page, name)
    server.admin("subscription", "grant", name, "--until", "2099-01-01")
    figures = {"sign_in_ms": [], "lobby_ms": []}
    for _ in range(5):
        page.click("[data-action=sign-out]")
        page.wait_for_selector("[data-form=sign-in]")
        page.fill("[data-form] input[name=email]", f"{name.lower()}@example.com")
        page.fill("[data-form] input[name=password]", "cubo-gira-9")
        page.evaluate(CLICKED_AT)
        page.click("[data-action=submit]")
        shown = page.evaluate(SHOWN_AT, "[data-action=play-online]")
        figures["sign_in_ms"].append(shown - page.evaluate("window.__clicked"))
        page.evaluate(CLICKED_AT)
        page.click("[data-action=play-online]")
        shown = page.evaluate(SHOWN_AT, "[data-lobby]")
        figures["lobby_ms"].append(shown - page.evaluate("window.__clicked"))
        page.click("[data-action=back]")
        page.click("[data-action=account]")
    record("online.json", "entrar_to_lobby", figures)
    context.close()


def test_on_p01_a_cube_match_replays_in_a_fresh_browser_with_no_account(browser, server):
    ana, bia = meet(browser, server)
    play_to_x_line(ana, bia)
    url = ana.get_attribute("[data-replay-url]", "data-replay-url")
    assert "/partida/" in url

    # Someone with only the link: a new browser context, no account, no session. No service
    # worker, whose fetches page.route below would not see.
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    caio = context.new_page()
    caio.goto(url)
    caio.wait_for_selector("[data-steps='5']", timeout=30000)
    assert caio.get_attribute("[data-step]", "data-step") == "0"
    assert caio.inner_text("[data-step]") == "Início da partida"
    assert caio.get_attribute("[data-cell=a1]", "aria-label") == "a1, vazio"
    assert caio.is_disabled("[data-cell=a1]"), "a replay is watched, never played"

    def step_to(n):
        caio.wait_for_selector(f"[data-step='{n}']", timeout=15000)

    for n in (1, 2, 3):
        caio.click("[data-action=step-forward]")
        step_to(n)
    assert caio.get_attribute("[data-cell=a3]", "aria-label") == "a3, O"
    caio.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    caio.click("[data-action=step-forward]")
    step_to(4)
    assert caio.inner_text("[data-step]") == "Lance 4 de 5"
    assert caio.get_attribute("[data-cell=a3]", "aria-label") != "a3, O", "D+ took it off side 1"
    shot(caio, "replay-cube-turn")
    caio.click("[data-action=to-last]")
    step_to(5)
    assert caio.get_attribute("[data-cell=c1]", "aria-label") == "c1, X"
    names = ana.inner_text("[data-player=X]").split("· ", 1)[1]
    assert caio.inner_text("[data-result]") == f"{names} (X) venceu com uma linha no lado 1."
    shot(caio, "replay-cube-end")
    # Back to the start, then played through at double speed by itself.
    caio.click("[data-action=to-first]")
    step_to(0)
    caio.click("[data-speed='2×']")
    caio.click("[data-action=play]")
    step_to(5)
    caio.wait_for_selector("[data-action=play]", timeout=15000)
    caio.click("[data-action=step-back]")
    step_to(4)
    assert caio.get_attribute("[data-cell=c1]", "aria-label") == "c1, vazio"

    # Shared: this browser has no share sheet, so the link is copied, said so, and shown.
    context.grant_permissions(["clipboard-read", "clipboard-write"])
    caio.click("[data-action=share-replay]")
    assert caio.wait_for_selector("[data-shared-url]").inner_text() == url
    caio.wait_for_selector("text=Link da partida pronto para enviar.")
    assert caio.evaluate("navigator.clipboard.readText()") == url
    shot(caio, "replay-shared")
    # Where the browser will not copy it, nothing claims it was sent: the link shows to copy.
    ana.evaluate("() => { navigator.clipboard.writeText = () => Promise.reject(new Error('no')); }")
    ana.click("[data-action=share-replay]")
    assert ana.wait_for_selector("[data-shared-url]").inner_text() == url
    assert ana.locator("text=Link da partida pronto para enviar.").count() == 0

    # The server failing for a moment offers Tentar de novo; a damaged record does not.
    def answered(code, message):
        caio.unroute("**/api/replays/**")
        server_fails(caio, "**/api/replays/**", code, message)
        caio.reload()
        return caio.wait_for_selector("[data-problem]", timeout=30000).inner_text()

    assert answered("damaged_record", "this game's record is damaged") == \
        "O registro desta partida está danificado."
    assert caio.locator("[data-action=retry]").count() == 0, "asking again would not mend it"
    assert answered("a_code_of_a_later_version", "later") == \
        "O servidor não conseguiu atender agora. Tente de novo."
    assert answered("internal", "storage failed") == \
        "O servidor não conseguiu atender agora. Tente de novo."
    shot(caio, "replay-server-failed")
    # The server is back: the button shows the game, with no reload.
    caio.unroute("**/api/replays/**")
    caio.click("[data-action=retry]")
    caio.wait_for_selector("[data-steps='5']", timeout=30000)
    for page in (ana, bia, caio):
        page.context.close()
