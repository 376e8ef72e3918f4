"""Jogo da Velha 2.0's competitive mode in two browsers against the real server (online.md
ON-V01, ON-V02; ultimate.md V2-R05, V2-R06): two players signed in without a subscription
find each other in the queue, X plays, O lets her minute run out and loses the turn (both are
told), then leaves; both see the rating change (+30, −20) and the leaderboard. The server runs
5-second turns so the test need not wait a minute."""

import os
import tempfile

import pytest

from conftest import Served, server_fails, shot
from test_account import fresh_name, sign_up


@pytest.fixture(scope="module")
def quick(server):
    """A second server with 5-second moves, pairing every 200 ms, under the first one's
    certificate (which the test browser trusts), on a database of its own."""
    with tempfile.TemporaryDirectory() as data:
        quick = Served(data, ["--move-time-ms", "5000", "--pair-every-ms", "200",
                              "--tls-cert", os.path.join(server.data, "dev-cert.pem"),
                              "--tls-key", os.path.join(server.data, "dev-key.pem")],
                       database_env="E2E_QUICK_DATABASE_URL")
        yield quick
        quick.stop()


def player(browser, quick, name):
    # No service worker, whose fetches page.route would not see.
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    page = context.new_page()
    page.goto(quick.url)
    page.wait_for_selector("[data-game=v2]", timeout=30000)
    sign_up(page, name)
    page.click("[data-action=back]")
    page.click("[data-game=v2]")
    page.click("[data-action=competitive]")
    page.wait_for_selector("[data-rating='1000']", timeout=15000)
    return page


def back_to_the_v2_screen(page):
    page.click("[data-action=back]")
    page.wait_for_selector("[data-game=v2], [data-action=competitive]", timeout=15000)
    if page.query_selector("[data-action=competitive]") is None:
        page.click("[data-game=v2]")


def status(page):
    return page.get_attribute("[data-status]", "data-status")


def test_on_v01_a_rated_match_with_a_lost_turn_and_the_rating_change(browser, quick):
    ana_name, bia_name = fresh_name(), fresh_name()
    ana, bia = player(browser, quick, ana_name), player(browser, quick, bia_name)
    ana.click("[data-action=join-queue]")
    ana.wait_for_selector("[data-queued]")
    assert ana.get_attribute("[data-accepting]", "data-accepting") == "100"
    shot(ana, "competitive-queue")
    bia.click("[data-action=join-queue]")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.wait_for_selector("[data-status=their-turn]", timeout=15000)
    assert ana.locator("[data-cell]:enabled").count() == 81
    assert ana.inner_text("[data-clock]") in ("0:05", "0:04")
    ana.click("[data-cell=e5]")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert bia.get_attribute("[data-sent]", "data-sent") == "5"
    # Bia lets her 5 seconds run out: she loses the turn and Ana may play anywhere (V2-R05).
    ana.wait_for_selector("[data-lost-turn]", timeout=15000)
    assert "sua vez" in ana.inner_text("[data-lost-turn]")
    assert status(ana) == "your-turn"
    bia.wait_for_selector("[data-lost-turn]", timeout=15000)
    assert "você perdeu a vez" in bia.inner_text("[data-lost-turn]")
    shot(bia, "competitive-lost-turn")
    ana.click("[data-cell=a1]:enabled")
    bia.wait_for_selector("[data-status=your-turn]", timeout=15000)
    bia.click("[data-action=leave]")
    bia.click("[data-action=confirm-leave]")
    ana.wait_for_selector("[data-status=won]", timeout=15000)
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    for page, after in ((ana, "1030"), (bia, "980")):
        line = page.wait_for_selector("[data-rating-after]", timeout=15000)
        assert (line.get_attribute("data-rating-before"), line.get_attribute("data-rating-after")) \
            == ("1000", after)
    assert "(+30)" in ana.inner_text("[data-rating-after]")
    assert "(-20)" in bia.inner_text("[data-rating-after]")
    shot(ana, "competitive-won")
    shot(bia, "competitive-lost")
    # The leaderboard: Ana first, Bia second, her own line marked.
    bia.click("[data-action=competitive-home]")
    bia.wait_for_selector("[data-rating='980']", timeout=15000)
    rows = bia.locator("[data-row]")
    assert rows.nth(0).get_attribute("data-row") == ana_name
    assert rows.nth(1).get_attribute("data-row") == bia_name
    shot(bia, "competitive-leaderboard")
    for page in (ana, bia):
        page.context.close()


def test_on_v01_the_english_competitive_screen_calls_the_game_as_english_home_does(browser,
                                                                                  base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="en-US")
    page = context.new_page()
    page.goto(base_url)
    page.wait_for_selector("[data-game=v2]", timeout=30000)
    assert "Tic-tac-toe 2.0" in page.inner_text("main")
    page.click("[data-game=v2]")
    page.click("[data-action=competitive]")
    page.wait_for_selector("[data-action=sign-in]", timeout=30000)
    said = page.inner_text("main")
    assert "Online Tic-tac-toe 2.0 matches with 1 minute a move" in said, said
    assert "Jogo da Velha" not in said, said
    shot(page, "competitive-guest-english")
    context.close()


def test_on_v01_a_rating_the_server_failed_to_send_is_asked_again_with_a_tap(browser, quick):
    page = player(browser, quick, fresh_name())
    # Back on the 2.0 screen, then in again while the server fails: no rating, so no search,
    # and the screen says why instead of loading for ever.
    back_to_the_v2_screen(page)
    server_fails(page, "**/api/competitive/**")
    page.click("[data-action=competitive]")
    assert page.wait_for_selector("[data-problem]", timeout=15000).inner_text() == \
        "O servidor não conseguiu atender agora. Tente de novo."
    assert page.query_selector("[data-action=join-queue]") is None
    assert page.query_selector("[data-rating]") is None
    shot(page, "competitive-server-failed")
    page.unroute("**/api/competitive/**")
    page.click("[data-action=retry]")
    page.wait_for_selector("[data-rating='1000']", timeout=15000)
    page.wait_for_selector("[data-leaderboard]", timeout=15000)
    assert not page.is_disabled("[data-action=join-queue]")
    assert page.query_selector("[data-problem]") is None
    assert "Aguarde" not in page.inner_text("body")

    # Only the leaderboard failing: the search stays, and the failure shows under the
    # leaderboard's heading, not under the search.
    back_to_the_v2_screen(page)
    server_fails(page, "**/api/competitive/leaderboard")
    page.click("[data-action=competitive]")
    page.wait_for_selector("[data-problem]", timeout=15000)
    assert not page.is_disabled("[data-action=join-queue]")
    assert page.evaluate("""() => {
        const heading = [...document.querySelectorAll('h2')].find(h => h.textContent.includes('Ranking'));
        return !!(heading.compareDocumentPosition(document.querySelector('[data-problem]'))
                  & Node.DOCUMENT_POSITION_FOLLOWING);
    }"""), "the failure sits under the leaderboard's heading"
    page.unroute("**/api/competitive/leaderboard")
    page.click("[data-action=retry]")
    page.wait_for_selector("[data-leaderboard]", timeout=15000)
    assert page.query_selector("[data-problem]") is None
    page.context.close()
