"""The rankings screen (online.md ON-K01 … ON-K04) on a server whose history was written
straight into its database before it started: 120 players, a few hundred finished matches. The
server scores them on start (the same recomputation `admin rankings rebuild` runs), and the
phone reads the table page by page as it scrolls, with the player's own place pinned."""

import json
import os
import random
import sqlite3
import ssl
import tempfile
import urllib.request

import pytest

from conftest import Served, server_fails, shot
from test_account import fill, fresh_name

DAY0 = 1_893_456_000_000  # 2030-01-01 UTC
PASSWORD = "cubo-gira-9"
# As long as a name may be (ON-A02): the table must show it whole.
VIEWER = "Veronica_Albuquerque"


def post(served, path, body):
    tls = ssl.create_default_context(cafile=served.cert)
    request = urllib.request.Request(served.url.rstrip("/") + path, method="POST",
                                     headers={"content-type": "application/json"},
                                     data=json.dumps(body).encode())
    return json.loads(urllib.request.urlopen(request, context=tls).read())


@pytest.fixture(scope="module")
def league(server):
    """(server, viewer's name, expected world table as (name, points, wins, losses) best
    first, the viewer's country's names in order)."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    options = ["--tls-cert", cert, "--tls-key", key]
    with tempfile.TemporaryDirectory() as data:
        first = Served(data, options, postgres=False)
        first.cert = cert
        post(first, "/api/accounts", {"email": "vera@example.com", "password": PASSWORD,
                                      "name": VIEWER, "region": "pt-BR"})
        first.stop()
        db = sqlite3.connect(os.path.join(data, "velha.db"))
        (vera,) = db.execute("SELECT id FROM accounts WHERE name = ?", (VIEWER,)).fetchone()
        ids, countries = [vera], {vera: "BR"}
        names = {vera: VIEWER}
        for i in range(119):
            account, country = f"acc{i:03}", "BR" if i % 2 else "PT"
            db.execute("INSERT INTO accounts (id, name, name_key, country, created_at) "
                       "VALUES (?, ?, ?, ?, 0)", (account, f"Jogador{i:03}", f"jogador{i:03}", country))
            ids.append(account)
            countries[account], names[account] = country, f"Jogador{i:03}"
        rng = random.Random(7)
        # points, wins, losses, when the points were reached (first: the first match)
        table = {a: [0, 0, 0, None] for a in ids}
        at = DAY0
        for m in range(400):
            at += 3_600_000 * 7  # never 3 a day between the same two
            x, o = rng.sample(ids, 2)
            winner = rng.choice("XO")
            ending = rng.choice(["line", "both_lines", "time", "abandonment"])
            db.execute(
                "INSERT INTO matches (id, scope, level, x_id, o_id, x_country, o_country, state, "
                "position, ply, winner, ending, created_at, started_at, ended_at) VALUES "
                "(?, 'mundial', 1, ?, ?, ?, ?, 'over', '', 9, ?, ?, ?, ?, ?)",
                (f"m{m:04}", x, o, countries[x], countries[o], winner, ending, at - 9, at - 8, at))
            won, lost = (x, o) if winner == "X" else (o, x)
            for player in (won, lost):
                if table[player][3] is None:
                    table[player][3] = at
            table[won][0] += 3
            table[won][1] += 1
            table[won][3] = at
            loss = 1 if ending in ("line", "both_lines") else 0
            table[lost][0] += loss
            table[lost][2] += 1
            if loss:
                table[lost][3] = at
        db.commit()
        db.close()
        order = sorted((a for a in ids if sum(table[a][:3])),
                       key=lambda a: (-table[a][0], -table[a][1], table[a][2], table[a][3], a))
        world = [(names[a], *table[a][:3]) for a in order]
        national = [names[a] for a in order if countries[a] == "BR"]
        again = Served(data, options, postgres=False)
        yield again, VIEWER, world, national
        again.stop()


def rows(page):
    return [(r.get_attribute("data-name"), int(r.get_attribute("data-rank")))
            for r in page.query_selector_all(".ranking .ranking-row")]


def open_ranking(browser, served):
    """The viewer's phone, signed in, on the ranking with its first page and her place."""
    # No service worker, whose fetches page.route would not see.
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    page = context.new_page()
    page.goto(served.url)
    page.click("[data-action=account]")
    fill(page, email="vera@example.com", password=PASSWORD)
    page.click("[data-form=sign-in] [data-action=submit]")
    page.click("[data-action=ranking]", timeout=15000)
    page.wait_for_selector(".ranking .ranking-row", timeout=15000)
    page.wait_for_selector("[data-mine=ranked]", timeout=15000)
    return page


# The left and right edges of each cell of the header, the table's first row and the pinned row.
COLUMNS = """() => [".ranking-head", ".ranking .ranking-row", ".my-place .ranking-row"].map(row =>
    [...document.querySelector(row).children].map(cell => {
        const box = cell.getBoundingClientRect();
        return [Math.round(box.left), Math.round(box.right)];
    }))"""
# Whether the pinned name shows all of itself: nothing hidden past its box.
WHOLE = """() => { const name = document.querySelector(".my-place .name");
    return name.scrollWidth <= name.clientWidth && name.scrollHeight <= name.clientHeight; }"""


def test_on_k04_my_place_shows_the_whole_name_and_the_columns_line_up(browser, league):
    served, viewer, _, _ = league
    page = open_ranking(browser, served)
    assert page.inner_text(".my-place .name") == viewer
    assert page.evaluate(WHOLE), "the name is cut"
    head, first, mine = page.evaluate(COLUMNS)
    assert head == first == mine, (head, first, mine)
    assert [c.inner_text() for c in page.query_selector_all(".ranking-head span")] == \
        ["#", "Nome de jogador", "Pts", "V", "D"]
    shot(page, "ranking-long-name")
    page.context.close()


def test_on_k04_the_ranking_pages_as_it_scrolls_with_my_place_pinned(browser, league):
    served, viewer, world, national = league
    page = open_ranking(browser, served)
    context = page.context
    assert len(rows(page)) == 50, "the first page"
    mine = [i for i, w in enumerate(world) if w[0] == viewer][0]
    name, points, wins, losses = world[mine]
    pinned = page.query_selector(".my-place .ranking-row")
    assert pinned.get_attribute("data-rank") == str(mine + 1)
    assert pinned.inner_text().split() == [str(mine + 1), name, "BR", str(points), str(wins), str(losses)]
    shot(page, "ranking-world")
    # Scrolling the table to its end loads the next pages until everyone is there.
    for _ in range(10):
        if len(rows(page)) == len(world):
            break
        page.eval_on_selector(".ranking", "el => el.scrollTo(0, el.scrollHeight)")
        page.wait_for_timeout(400)
    assert rows(page) == [(w[0], i + 1) for i, w in enumerate(world)], "the server's order, whole"
    me = page.query_selector(f".ranking .ranking-row[data-name={viewer}]")
    assert "me" in me.get_attribute("class").split()
    assert page.query_selector("[data-action=more]") is None, "nothing more"

    page.click("[data-scope=nacional]")
    page.wait_for_function(
        f"document.querySelectorAll('.ranking .ranking-row').length === {min(50, len(national))}")
    assert [n for n, _ in rows(page)] == national[:50], "Brazil's players only"
    assert page.query_selector(".my-place .ranking-row").get_attribute("data-rank") == \
        str(national.index(viewer) + 1)
    shot(page, "ranking-national")
    page.click("[data-level='2']")
    page.wait_for_selector("[data-ranking-empty]", timeout=15000)
    assert page.get_attribute(".my-place", "data-mine") == "unranked"
    assert "ainda não tem partidas" in page.inner_text(".my-place")
    shot(page, "ranking-empty")
    context.close()


def test_on_k01_a_guest_opening_the_ranking_is_asked_to_sign_in_and_comes_back_to_it(browser,
                                                                                     base_url):
    """The server reads the rankings to signed-in players only: a phone that never signed in
    opening /ranking is asked to sign in (no session of its ended, and the server is asked
    nothing meanwhile), and once signed up it is back on the ranking."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    page = context.new_page()
    asked = []
    page.on("request", lambda r: "/api/rankings" in r.url and asked.append(r.url))
    page.goto(base_url + "ranking")
    page.wait_for_selector("[data-action=sign-in]", timeout=30000)
    said = page.inner_text("main")
    assert "Entre na sua conta para ver os rankings." in said
    assert "sessão" not in said and page.query_selector(".my-place") is None, said
    shot(page, "ranking-guest")
    assert asked == [], "a guest's phone asks for no ranking"
    page.click("[data-action=sign-in]")
    page.wait_for_selector("[data-form=sign-in]", timeout=30000)
    page.click("[data-action=switch-form]")
    name = fresh_name()
    fill(page, name=name, email=f"{name.lower()}@example.com", password=PASSWORD)
    page.click("[data-form=sign-up] [data-action=submit]")
    page.wait_for_selector("[data-mine=unranked]", timeout=15000)
    assert page.evaluate("location.pathname") == "/ranking"
    assert asked, "signed in, the ranking is read"
    context.close()


def test_on_k04_a_ranking_the_server_failed_to_send_is_asked_again_with_a_tap(browser, league):
    served, _, _, national = league
    page = open_ranking(browser, served)
    server_fails(page, "**/api/rankings?*")
    page.click("[data-scope=nacional]")
    assert page.wait_for_selector("[data-problem]", timeout=15000).inner_text() == \
        "O servidor não conseguiu atender agora. Tente de novo."
    assert rows(page) == []
    shot(page, "ranking-server-failed")
    # The server is back: the tap shows the page, with no reload and no other tab.
    page.unroute("**/api/rankings?*")
    page.click("[data-action=retry]")
    page.wait_for_function(
        f"document.querySelectorAll('.ranking .ranking-row').length === {min(50, len(national))}")
    assert [n for n, _ in rows(page)] == national[:50]
    assert page.query_selector("[data-problem]") is None
    assert page.query_selector("[data-action=retry]") is None
    # Her place unread is no place shown, never "no matches count yet".
    page.click("[data-action=back]")
    server_fails(page, "**/api/rankings/me")
    page.wait_for_selector("[data-action=ranking], [data-action=account]", timeout=15000)
    if page.query_selector("[data-action=ranking]") is None:
        page.click("[data-action=account]")
    page.click("[data-action=ranking]")
    page.wait_for_selector(".ranking .ranking-row", timeout=15000)
    assert page.query_selector(".my-place") is None
    assert "ainda não tem partidas" not in page.inner_text("body")
    page.context.close()
