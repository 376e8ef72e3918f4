"""Jogo da Velha's "JOGAR COM ALGUÉM" in browsers against the real server (classic.md
CLASSIC-R08 … R13, online.md ON-R01 … ON-R05): no account; Ana makes a room with a character
and a name and gets a link; Bia opens it, takes a character left and plays O; a whole series
with a rematch (the starter alternates) and a resignation asked first; a third phone only
watches; the 51st spectator is refused. Super and 2.0 rooms: names only, the board sent to,
2.0's points and no clock."""

import os
import re
import tempfile
import urllib.request

import pytest

from conftest import Served, free_port, shot
from test_account import fill, fresh_name, open_form, sign_up


def phone(browser, server, path="/", init_script=None, locale="pt-BR"):
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale=locale)
    if init_script:
        context.add_init_script(init_script)
    page = context.new_page()
    page.goto(server.url.rstrip("/") + path)
    return page


def new_room(browser, server, pick, game="classic", init_script=None, name="Ana", locale="pt-BR",
             page=None):
    """Ana's phone (a new one, or `page` back on the first screen) with a room of `game` she
    made (as the character `pick` on the classic board, with none on the others), and the
    room's path (/sala/<id>)."""
    if page:
        ana = page
        ana.goto(server.url)
    else:
        ana = phone(browser, server, init_script=init_script, locale=locale)
    ana.click(f"[data-game={game}]", timeout=30000)
    ana.click("[data-action=play-with-someone]")
    ana.wait_for_selector("#room-name")
    if pick:
        ana.click(f"[data-pick={pick}]")
    else:
        assert ana.query_selector("[data-pick]") is None, "characters are the classic board's"
    if game == "super":
        # Agreed on X, so Ana begins (the coin of SUPER-R05 has a test of its own).
        ana.click("[data-starter=X]")
    ana.fill("#room-name", name)
    ana.click("[data-action=create-room]")
    link = ana.wait_for_selector("[data-link-url]", timeout=15000).get_attribute("data-link-url")
    assert "/sala/" in link
    return ana, "/" + link.split("/", 3)[3]


def status(page):
    return page.get_attribute("[data-status]", "data-status")


def test_classic_r08_a_tap_on_a_character_only_picks_it(browser, server):
    """The characters are buttons in the room's forms: a tap picks one, before the name is
    written or after, and sends nothing (as a submit button it made or joined the room at
    once, or showed the empty name's error before anything was written)."""
    def posts(page):
        sent = []
        page.on("request", lambda r: sent.append(r.url) if r.method == "POST" else None)
        return sent

    def pick_twice(page, first, then, name):
        sent = posts(page)
        page.click(f"[data-pick={first}]")
        page.fill("#room-name", name)
        page.click(f"[data-pick={then}]")
        page.wait_for_timeout(500)
        assert sent == [], sent
        assert page.query_selector("[data-problem]") is None
        assert page.get_attribute(f"[data-pick={then}]", "aria-pressed") == "true"
        assert page.get_attribute(f"[data-pick={first}]", "aria-pressed") == "false"

    ana = phone(browser, server)
    ana.click("[data-game=classic]", timeout=30000)
    ana.click("[data-action=play-with-someone]")
    ana.wait_for_selector("#room-name")
    pick_twice(ana, "quelonia", "rabisco", "Ana")
    assert ana.url.endswith("/sala/nova"), "still the form"
    ana.click("[data-action=create-room]")
    link = ana.wait_for_selector("[data-link-url]", timeout=15000).get_attribute("data-link-url")

    bia = phone(browser, server, "/" + link.split("/", 3)[3])
    bia.wait_for_selector("[data-action=join-room]", timeout=30000)
    pick_twice(bia, "nino", "quelonia", "Bia")
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    for page in (ana, bia):
        page.context.close()


def test_classic_r10_two_phones_play_a_series_in_a_room_with_rematch_and_resign(browser, server):
    ana, path = new_room(browser, server, "quelonia")
    assert status(ana) == "waiting"
    shot(ana, "room-link")

    # Bia opens the link: Vó Quelônia is taken, so two characters are left.
    bia = phone(browser, server, path)
    bia.wait_for_selector("[data-action=join-room]", timeout=30000)
    assert bia.query_selector("[data-pick=quelonia]") is None
    assert bia.get_attribute("[data-host]", "data-host") == "Ana"
    bia.click("[data-pick=nino]")
    bia.fill("#room-name", "Bia")
    shot(bia, "room-join")
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)

    # Caio opens the same link: both seats are taken, so he watches.
    caio = phone(browser, server, path)
    caio.wait_for_selector("[data-watching]", timeout=30000)
    assert caio.query_selector("[data-cell=a1]:enabled") is None, "spectators never play"

    # X: a1, a2, a3 — a line; O: b1, b2. Every move reaches the others live.
    for mover, cell in [(ana, "a1"), (bia, "b1"), (ana, "a2"), (bia, "b2"), (ana, "a3")]:
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        mover.click(f"[data-cell={cell}]:enabled")
        caio.wait_for_selector(f"[data-cell={cell}][aria-label$=', {'X' if mover is ana else 'O'}']",
                               timeout=15000)
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    caio.wait_for_selector("[data-status=over]", timeout=15000)
    shot(bia, "room-lost")
    shot(caio, "room-watching")

    # Rematch: both ask; the second game starts with O (the starter alternates).
    ana.click("[data-action=rematch]")
    ana.wait_for_selector("[data-rematch=asked]", timeout=15000)
    bia.click("[data-action=rematch]")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=their-turn]", timeout=15000)
    bia.click("[data-cell=b2]:enabled")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    # Resigning asks first; the game goes to the other.
    ana.click("[data-action=resign]")
    assert "Desistir mesmo?" in ana.inner_text("[data-asking=resign]")
    shot(ana, "room-resign")
    ana.click("[data-asking=resign] [data-action=confirm]")
    ana.wait_for_selector("[data-status=lost]", timeout=15000)
    bia.wait_for_selector("[data-status=won]", timeout=15000)
    score = [ana.get_attribute(f"[data-series={k}]", "data-count") for k in ("wins", "draws", "losses")]
    assert score == ["1", "0", "1"], score
    # Her rooms are listed on the classic screen from the seats her device keeps (ON-R05); once
    # the third game starts (X first again), the list marks it as her turn.
    bia.click("[data-action=rematch]")
    ana.click("[data-action=back]")
    ana.click("[data-game=classic]")
    line = ana.wait_for_selector("[data-room]", timeout=15000)
    assert "Ana × Bia" in line.inner_text()
    ana.click("[data-room]")
    ana.wait_for_selector("[data-action=rematch]", timeout=15000)
    ana.click("[data-action=rematch]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    ana.click("[data-action=back]")
    ana.click("[data-game=classic]")
    ana.wait_for_selector("[data-your-turn='1']", timeout=15000)
    shot(ana, "room-list")
    for page in (ana, bia, caio):
        page.context.close()


def test_classic_r09_one_room_connection_follows_the_player_from_room_to_room(browser, server):
    """The app keeps one room connection: from room A home, to a new room B and back to A, it
    moves with Ana (`enter`) rather than opening another, and each room shows live what the
    other player does."""
    ana = phone(browser, server)
    sockets = []
    ana.on("websocket", lambda ws: sockets.append(ws.url) if "/api/rooms/" in ws.url else None)
    ana, room_a = new_room(browser, server, "nino", page=ana)
    bia = join(browser, server, room_a, "rabisco", "Bia")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)

    ana.click("[data-action=back]")
    ana.click("[data-game=classic]")
    ana.click("[data-action=play-with-someone]")
    ana.click("[data-pick=nino]")
    ana.fill("#room-name", "Ana")
    ana.click("[data-action=create-room]")
    link = ana.wait_for_selector("[data-link-url]", timeout=15000).get_attribute("data-link-url")
    room_b = "/" + link.split("/", 3)[3]
    assert room_b != room_a
    caio = join(browser, server, room_b, "rabisco", "Caio")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.click("[data-cell=b2]:enabled")
    caio.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.query_selector("[data-cell=a1][aria-label$=', X']") is None, "room B's own board"
    shot(ana, "room-second")

    # Bia moved in room A meanwhile: back there, Ana finds it and her turn.
    bia.click("[data-cell=b1]:enabled")
    ana.click("[data-action=back]")
    ana.click("[data-game=classic]")
    ana.click("[data-room]:has-text('Bia')", timeout=15000)
    ana.wait_for_selector("[data-cell=b1][aria-label$=', O']", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.click("[data-cell=a2]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert len(sockets) == 1, sockets
    for page in (ana, bia, caio):
        page.context.close()


def test_on_r05_a_players_rooms_follow_her_account_and_a_guest_asks_for_none(browser, server):
    """A room Ana made signed in is listed on another phone once she signs in there; a
    guest's list is its own seats', and the app does not ask for an account's list it cannot
    have (the server would answer 401)."""
    name = fresh_name()
    ana = phone(browser, server)
    ana.wait_for_selector("[data-game=classic]", timeout=30000)
    sign_up(ana, name)
    new_room(browser, server, "nino", name="Ana", page=ana)

    other = phone(browser, server)
    other.wait_for_selector("[data-game=classic]", timeout=30000)
    open_form(other, "sign-in")
    fill(other, email=f"{name.lower()}@example.com", password="cubo-gira-9")
    other.click("[data-action=submit]")
    other.wait_for_selector("[data-profile=name]", timeout=15000)
    other.goto(server.url)
    other.click("[data-game=classic]", timeout=30000)
    assert "Ana" in other.wait_for_selector("[data-room]", timeout=15000).inner_text()

    guest = phone(browser, server)
    asked = []
    guest.on("request", lambda r: asked.append(r.url) if r.url.endswith("/api/rooms") else None)
    guest.click("[data-game=classic]", timeout=30000)
    guest.wait_for_selector("[data-action=play-with-someone]")
    guest.wait_for_load_state("networkidle")
    assert asked == [], asked
    for page in (ana, other, guest):
        page.context.close()


def join(browser, server, path, pick, name, locale="pt-BR"):
    """A second phone that opened the room's link and took its O seat."""
    page = phone(browser, server, path, locale=locale)
    if pick:
        page.click(f"[data-pick={pick}]", timeout=30000)
    page.fill("#room-name", name, timeout=30000)
    page.click("[data-action=join-room]")
    page.wait_for_selector("[data-status=their-turn]", timeout=15000)
    return page


def said(page, selector="[data-status]"):
    return page.inner_text(selector)


def test_classic_r08_a_room_waiting_for_its_o_says_so_in_the_free_seat(browser, server):
    for locale, waiting in (("pt-BR", "esperando…"), ("en-US", "waiting…")):
        ana, path = new_room(browser, server, "nino", name="Ana Paula", locale=locale)
        assert said(ana, "[data-player=O]") == f"O · {waiting}"
        assert " ".join(said(ana, ".players").split()) == f"X · Ana Paula × O · {waiting}"
        shot(ana, f"room-waiting-seat-{locale}")
        bia = join(browser, server, path, "rabisco", "Bia")
        ana.wait_for_selector("[data-player=O]:has-text('Bia')", timeout=15000)
        assert " ".join(said(ana, ".players").split()) == "X · Ana Paula × O · Bia"
        for page in (ana, bia):
            page.context.close()


def test_classic_r11_the_resigner_the_winner_and_spectators_each_read_who_resigned(browser, server):
    ana, path = new_room(browser, server, "quelonia")
    bia = join(browser, server, path, "nino", "Bia")
    caio = phone(browser, server, path)
    dana = phone(browser, server, path, locale="en-US")
    for spectator in (caio, dana):
        spectator.wait_for_selector("[data-watching]", timeout=30000)
    assert said(caio, "[data-status]") == "Vez de Ana"
    assert said(dana, "[data-status]") == "Ana's turn"
    ana.click("[data-cell=a1]:enabled", timeout=15000)
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.click("[data-action=resign]")
    ana.click("[data-asking=resign] [data-action=confirm]")
    ana.wait_for_selector("[data-status=lost]", timeout=15000)
    bia.wait_for_selector("[data-status=won]", timeout=15000)
    for spectator in (caio, dana):
        spectator.wait_for_selector("[data-status=over]", timeout=15000)
    assert said(ana) == "Você desistiu."
    assert said(bia) == "Você venceu: Ana desistiu."
    assert said(caio) == "Bia venceu: Ana desistiu."
    assert said(dana) == "Bia won: Ana resigned."
    bia.wait_for_selector("[data-spectators='2']", timeout=15000)
    assert said(caio, "[data-watching]") == "Você e mais 1 pessoa estão assistindo."
    assert said(bia, "[data-spectators]") == "2 pessoas assistindo"
    # Each player counts from their own side; a spectator has none, so the wins are named.
    assert said(bia, ".series") == "1 vitória · 0 velhas · 0 derrotas"
    assert said(ana, ".series") == "0 vitórias · 0 velhas · 1 derrota"
    assert said(caio, ".series") == "Ana: 0 vitórias · Bia: 1 vitória · 0 velhas"
    assert said(dana, ".series") == "Ana: 0 wins · Bia: 1 win · 0 draws"
    shot(ana, "room-resigned")
    shot(caio, "room-resigned-watching")
    for page in (ana, bia, caio, dana):
        page.context.close()


def test_classic_r10_the_other_player_sees_who_wants_another_game(browser, server):
    ana, path = new_room(browser, server, "rabisco")
    bia = join(browser, server, path, "quelonia", "Bia")
    caio = phone(browser, server, path)
    caio.wait_for_selector("[data-watching]", timeout=30000)
    for mover, cell in [(ana, "a1"), (bia, "b1"), (ana, "a2"), (bia, "b2"), (ana, "a3")]:
        mover.click(f"[data-cell={cell}]:enabled", timeout=15000)
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    caio.wait_for_selector("[data-status=over]", timeout=15000)
    assert said(ana) == "Você venceu com uma linha!"
    assert said(bia) == "Você perdeu: Ana ficou com uma linha."
    assert said(caio) == "Ana venceu com uma linha."
    assert said(bia, ".series") == "0 vitórias · 0 velhas · 1 derrota"
    # Ana asks; Bia is told by name, with the button that accepts.
    ana.click("[data-action=rematch]")
    assert said(ana, "[data-rematch]") == "Esperando Bia aceitar outra partida…"
    bia.wait_for_selector("[data-rematch=offered]", timeout=15000)
    assert said(bia, "[data-rematch]") == "Ana quer outra partida."
    assert said(bia, "[data-action=rematch]") == "Aceitar e jogar outra"
    shot(bia, "room-rematch-offered")
    bia.click("[data-action=rematch]")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert said(ana) == "Vez de Bia"
    for page in (ana, bia, caio):
        page.context.close()


def test_on_r05_a_room_link_opened_without_signal_is_read_again_with_a_tap(browser, server):
    ana, path = new_room(browser, server, "rabisco")
    room = path.rsplit("/", 1)[1]
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    bia = context.new_page()
    errors = []
    bia.on("pageerror", lambda e: errors.append(str(e)))
    # The room's read gets no answer, as in a tunnel; the app itself had loaded.
    bia.route(f"**/api/rooms/{room}", lambda route: route.abort("internetdisconnected"))
    bia.goto(server.url.rstrip("/") + path)
    said = bia.wait_for_selector("[data-problem]", timeout=30000)
    assert said.inner_text() == "Sem conexão com o servidor."
    shot(bia, "room-link-offline")
    # The signal is back: the tap reads the room, and Bia takes the free seat.
    bia.unroute(f"**/api/rooms/{room}")
    bia.click("[data-action=retry]")
    bia.click("[data-pick=nino]", timeout=15000)
    assert bia.query_selector("[data-problem]") is None
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    # A link to no room is told so, with no tap: asking again changes nothing.
    bia.goto(server.url.rstrip("/") + "/sala/" + "x" * len(room))
    bia.wait_for_selector("[data-problem]", timeout=30000)
    assert bia.query_selector("[data-action=retry]") is None
    assert not errors, errors
    for page in (ana, bia):
        page.context.close()


def test_classic_r13_the_51st_spectator_is_refused(browser, server):
    ana, path = new_room(browser, server, "rabisco")
    bia = phone(browser, server, path)
    bia.click("[data-pick=nino]", timeout=30000)
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    room = path.rsplit("/", 1)[1]
    # Fifty light pages hold the fifty places; each watches the room's live connection.
    watchers = []
    script = """room => new Promise(done => {
        const ws = new WebSocket(`wss://${location.host}/api/rooms/${room}/live`);
        ws.onopen = () => ws.send(JSON.stringify({type: "hello", credential: ""}));
        ws.onmessage = e => { window.kept = ws; done(JSON.parse(e.data).type === "room"
            ? "room" : JSON.parse(e.data).code); };
        ws.onclose = () => done("closed");
    })"""
    for _ in range(50):
        context = browser.new_context()
        light = context.new_page()
        light.goto(server.url.rstrip("/") + "/api/health")
        assert light.evaluate(script, room) == "room"
        watchers.append(context)
    ana.wait_for_selector("[data-spectators='50']", timeout=15000)
    late = phone(browser, server, path)
    late.wait_for_selector("[data-problem]", timeout=30000)
    assert "50 pessoas assistindo" in late.inner_text("[data-problem]")
    shot(late, "room-full")
    # The place given back is the late one's: its connection kept asking, and it is in. (Ana
    # may see 49 for no longer than that takes: it is no state to wait for.)
    watchers.pop().close()
    late.wait_for_selector("[data-watching]", timeout=30000)
    assert late.query_selector("[data-problem]") is None
    ana.wait_for_selector("[data-spectators='50']", timeout=15000)
    for context in watchers:
        context.close()
    for page in (ana, bia, late):
        page.context.close()


@pytest.mark.parametrize("game", ["super", "v2"])
def test_on_r04_super_and_v2_rooms_take_names_only_and_run_no_clock(browser, server, game):
    ana, path = new_room(browser, server, None, game)

    bia = phone(browser, server, path)
    bia.wait_for_selector("[data-action=join-room]", timeout=30000)
    assert bia.query_selector("[data-pick]") is None
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.locator("[data-cell]").count() == 81
    assert ana.locator("[data-cell]:enabled").count() == 81, "the first move goes anywhere"

    # X in the centre of the centre board sends O to the centre board: nine cells open to Bia.
    ana.click("[data-cell=e5]")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert bia.get_attribute("[data-sent]", "data-sent") == "5"
    assert bia.locator("[data-cell]:enabled").count() == 8
    assert bia.locator("[data-board='5'] [data-cell]:enabled").count() == 8
    assert bia.get_attribute("[data-cell=e5]", "aria-label") == "e5, X"
    # ON-R04: no move clock in a room, whatever the board; 2.0 still shows its points.
    assert bia.query_selector("[data-clock]") is None
    assert (bia.query_selector("[data-points=X]") is not None) == (game == "v2")
    shot(bia, f"room-{game}")
    bia.click("[data-board='5'] [data-cell]:enabled >> nth=0")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.click("[data-action=resign]")
    ana.click("[data-asking=resign] [data-action=confirm]")
    bia.wait_for_selector("[data-status=won]", timeout=15000)
    # ON-P01: the finished game replays, rebuilt from its two moves; the resignation ends it.
    assert bia.get_attribute("[data-replay]", "data-replay") == path.rsplit("/", 1)[1] + "/1"
    bia.click("[data-action=watch-replay]")
    bia.wait_for_selector("[data-steps='2']", timeout=15000)
    assert bia.locator("[data-cell]").count() == 81
    bia.click("[data-action=to-last]")
    assert bia.inner_text("[data-result]") == "Bia (O) venceu porque Ana desistiu."
    assert bia.get_attribute("[data-cell=e5]", "aria-label") == "e5, X"
    shot(bia, f"replay-{game}")
    bia.click("[data-action=back]")
    # The room is listed on its own game's screen, not on the classic one.
    bia.click(f"[data-game={game}]")
    bia.wait_for_selector("[data-room]", timeout=15000)
    bia.click("[data-action=back]")
    bia.click("[data-game=classic]")
    bia.wait_for_selector("[data-action=play-with-someone]")
    bia.wait_for_timeout(1500)
    assert bia.query_selector("[data-room]") is None
    for page in (ana, bia):
        page.context.close()


def super_room(browser, server, starter=None):
    """Ana's phone with a Super room she made, choosing `starter` (the coin when None), what
    her app asked the server for, and the room's path."""
    ana = phone(browser, server)
    asked = []
    ana.on("request", lambda r: asked.append(r.post_data_json)
           if r.method == "POST" and r.url.endswith("/api/rooms") else None)
    ana.click("[data-game=super]", timeout=30000)
    ana.click("[data-action=play-with-someone]")
    ana.wait_for_selector("#room-name")
    if starter:
        ana.click(f"[data-starter={starter}]")
    ana.fill("#room-name", "Ana")
    ana.click("[data-action=create-room]")
    link = ana.wait_for_selector("[data-link-url]", timeout=15000).get_attribute("data-link-url")
    return ana, asked, "/" + link.split("/", 3)[3]


def join_as_bia(browser, server, path):
    bia = phone(browser, server, path)
    bia.wait_for_selector("[data-action=join-room]", timeout=30000)
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    return bia


def test_super_r05_a_super_room_begins_by_the_servers_coin_or_as_agreed(browser, server):
    ana = phone(browser, server)
    ana.click("[data-game=super]", timeout=30000)
    ana.click("[data-action=play-with-someone]")
    ana.wait_for_selector("#room-name")
    assert ana.get_attribute("[data-starter=coin]", "aria-pressed") == "true", "the coin first"
    assert "O servidor joga a moeda" in ana.inner_text("form")
    shot(ana, "room-super-starter")
    ana.context.close()

    # The coin: the app asks for a toss, and the server's answer is who begins.
    ana, asked, path = super_room(browser, server)
    assert [a["starter"] for a in asked] == ["coin_toss"], asked
    tossed = ana.get_attribute("[data-first-starter]", "data-first-starter")
    assert tossed in ("X", "O")
    assert ana.inner_text("[data-first-starter]") == f"Primeira partida: {tossed} começa"
    shot(ana, "room-super-tossed")
    bia = join_as_bia(browser, server, path)
    first, second = (ana, bia) if tossed == "X" else (bia, ana)
    first.wait_for_selector("[data-status=your-turn]", timeout=15000)
    second.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert first.locator("[data-cell]:enabled").count() == 81
    for page in (ana, bia):
        page.context.close()

    # Agreed: O, the guest, begins; Ana stays X.
    ana, asked, path = super_room(browser, server, "O")
    assert [a["starter"] for a in asked] == ["O"], asked
    assert ana.get_attribute("[data-first-starter]", "data-first-starter") == "O"
    bia = join_as_bia(browser, server, path)
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert bia.inner_text("[data-player=O]").strip() == "O · Bia"
    assert ana.query_selector("[data-first-starter]") is None, "told until the guest came"
    shot(bia, "room-super-o-begins")
    for page in (ana, bia):
        page.context.close()


def players(page):
    return [page.inner_text(f"[data-player={s}]").strip() for s in ("X", "O")]


def test_v2_r08_a_2_0_rooms_rematch_swaps_the_symbols_so_x_starts(browser, server):
    ana, path = new_room(browser, server, None, "v2")
    bia = join_as_bia(browser, server, path)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert players(ana) == ["X · Ana", "O · Bia"]
    ana.click("[data-action=resign]")
    ana.click("[data-asking=resign] [data-action=confirm]")
    bia.wait_for_selector("[data-status=won]", timeout=15000)
    ana.click("[data-action=rematch]")
    bia.wait_for_selector("[data-rematch=offered]", timeout=15000)
    bia.click("[data-action=rematch]")
    # Bia would begin the second game, so she plays X now, and X begins.
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.wait_for_selector("[data-status=their-turn]", timeout=15000)
    for page in (ana, bia):
        assert players(page) == ["X · Bia", "O · Ana"]
    # Each keeps their own score: Bia's win stays hers though she changed symbols.
    assert [bia.get_attribute(f"[data-series={k}]", "data-count")
            for k in ("wins", "draws", "losses")] == ["1", "0", "0"]
    bia.click("[data-cell=e5]")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.get_attribute("[data-cell=e5]", "aria-label") == "e5, X"
    shot(ana, "room-v2-swapped")
    for page in (ana, bia):
        page.context.close()


# A stand-in for the browser's notifications, recording what the page asks and shows, and a
# switch for whether the page is hidden (a background tab).
ALERTS_STUB = """
window.__told = []; window.__asked = 0; window.__hidden = false;
class FakeNotification {
    constructor(title, options) { window.__told.push({title, ...options}); }
    static requestPermission() {
        window.__asked += 1; FakeNotification.permission = "granted";
        return Promise.resolve("granted");
    }
}
FakeNotification.permission = "default";
window.Notification = FakeNotification;
Object.defineProperty(document, "hidden", {get: () => window.__hidden, configurable: true});
window.__hide = hidden => { window.__hidden = hidden; document.dispatchEvent(new Event("visibilitychange")); };
"""


def test_classic_r09_a_background_page_is_told_of_its_turn(browser, server):
    ana, path = new_room(browser, server, "nino", init_script=ALERTS_STUB)
    bia = phone(browser, server, path)
    bia.click("[data-pick=rabisco]", timeout=30000)
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    # Never asked unprompted: the offer shows once she waits for Bia, and asks on her tap.
    assert ana.query_selector("[data-action=allow-alerts]") is None
    ana.click("[data-cell=a1]:enabled")
    ana.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert ana.evaluate("window.__asked") == 0
    shot(ana, "room-alert-offer")
    ana.click("[data-action=allow-alerts]")
    ana.wait_for_selector("[data-alerts=on]", timeout=5000)
    assert ana.evaluate("window.__asked") == 1
    # Chromium here reaches no push service: the app says it cannot tell with the app closed,
    # and goes on telling while the page is open (test_push.py has the push service).
    said = ana.wait_for_selector("[data-push=refused]", timeout=15000).inner_text()
    assert said in ("Não foi possível ligar os avisos com o app fechado agora. Tente de novo daqui a pouco.",
                    "Este navegador não avisa com o app fechado."), said
    shot(ana, "room-alert-no-push-service")

    # Her tab goes to the background; Bia's move reaches it and the system tells her.
    ana.evaluate("window.__hide(true)")
    bia.click("[data-cell=b1]:enabled", timeout=15000)
    ana.wait_for_function("window.__told.length === 1", timeout=15000)
    told = ana.evaluate("window.__told[0]")
    assert told["title"] == "Sua vez!"
    assert told["body"] == "Jogo da Velha: Ana × Bia"
    assert told["tag"] == "room-" + path.rsplit("/", 1)[1]
    assert ana.title().startswith("(1) ")
    # Seen again: the count leaves the title. Moves she sees make no notification.
    ana.evaluate("window.__hide(false)")
    ana.wait_for_function("!document.title.startsWith('(')", timeout=5000)
    ana.click("[data-cell=a2]:enabled")
    bia.click("[data-cell=b2]:enabled", timeout=15000)
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert ana.evaluate("window.__told.length") == 1
    for page in (ana, bia):
        page.context.close()


@pytest.fixture(scope="module")
def http2(server):
    """A second server that offers HTTP/2 (`--http2`), under the first one's certificate (which
    the test browser trusts), with its metrics on a port of their own; and that port."""
    port = free_port()
    with tempfile.TemporaryDirectory() as data:
        served = Served(data, ["--http2", "--metrics-listen", f"127.0.0.1:{port}",
                               "--tls-cert", os.path.join(server.data, "dev-cert.pem"),
                               "--tls-key", os.path.join(server.data, "dev-key.pem")],
                        postgres=False)
        yield served, port
        served.stop()


def test_classic_r10_over_http2_a_rooms_live_sockets_are_streams_of_the_pages_connection(browser, http2):
    served, port = http2
    ana, path = new_room(browser, served, "nino")
    bia = phone(browser, served, path)
    bia.click("[data-pick=rabisco]", timeout=30000)
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    for page in (ana, bia):
        assert page.evaluate("performance.getEntriesByType('navigation')[0].nextHopProtocol") == "h2"
    for mover, cell in [(ana, "a1"), (bia, "b1"), (ana, "a2"), (bia, "b2"), (ana, "a3")]:
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        mover.click(f"[data-cell={cell}]:enabled")
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    shot(bia, "room-lost-over-http2")
    # Both phones' sockets were extended CONNECTs (RFC 8441), none an HTTP/1.1 upgrade.
    metrics = urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read().decode()
    sockets = {"CONNECT": 0, "GET": 0}
    for labels, count in re.findall(r'^velha_http_requests_total\{(.*)\} (\d+)$', metrics, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', labels))
        if labels["route"] == "/api/rooms/{id}/live" and labels["method"] in sockets:
            sockets[labels["method"]] += int(count)
    assert sockets["CONNECT"] >= 2 and sockets["GET"] == 0, sockets
    for page in (ana, bia):
        page.context.close()


def test_classic_r12_a_room_left_open_counts_the_absence_down_to_the_claim(browser, server):
    """The time left to end the game for the other's absence reads "48 h 0 min" as the turn
    passes (not "48 h 1 min": the rule's "more than 2 days"), goes down while the room stays
    open with no news (here, on a phone with no signal), gives way to the claim when it runs
    out, and the server's count replaces the device's once the signal is back."""
    ana, path = new_room(browser, server, "rabisco")
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    # The device's clock, which the test moves on; the server's is the real one.
    context.clock.install()
    bia = context.new_page()
    bia.goto(server.url.rstrip("/") + path)
    bia.click("[data-pick=nino]", timeout=30000)
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    said = bia.wait_for_selector("[data-claim-in]", timeout=15000)
    assert said.inner_text() == "Se Ana não jogar, você pode encerrar por ausência em 48 h 0 min."
    # No news can come: the count is the device's alone.
    context.set_offline(True)
    bia.clock.fast_forward("01:30:00")
    bia.wait_for_selector("text=encerrar por ausência em 46 h 30 min", timeout=15000)
    assert bia.query_selector("[data-action=claim]") is None
    shot(bia, "room-absence-counting")
    bia.clock.fast_forward("46:30:00")
    bia.wait_for_selector("[data-action=claim]", timeout=15000)
    assert bia.query_selector("[data-claim-in]") is None
    shot(bia, "room-absence-claimable")
    # Back online, the room as the server sees it: Ana's turn began seconds ago.
    context.set_offline(False)
    bia.wait_for_selector("text=encerrar por ausência em 48 h 0 min", timeout=60000)
    assert bia.query_selector("[data-action=claim]") is None
    for page in (ana, bia):
        page.context.close()
