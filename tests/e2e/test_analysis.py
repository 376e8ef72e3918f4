"""The post-game analysis on a phone (docs/rules/analysis.md): a finished room game of Jogo da
Velha and a cube match, each replayed at 360×640 and analysed on the device — a progress bar,
then the graph of X's winning chance with the faults marked, a tap on a mark going to that
move; no long task over 50 ms while the device judges the game; analysed again at once from
what the device kept."""

from conftest import record, shot
from test_app import play_until_over
from test_online import meet, play_to_x_line
from test_rooms import new_room, phone
from test_served import CSP_WATCH

# Every task longer than 50 ms the page runs from now on (the browser's own measure).
WATCH_LONG_TASKS = """() => {
  window.__longTasks = [];
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) window.__longTasks.push(Math.round(entry.duration));
  }).observe({ type: "longtask" });
}"""


def analyse(page):
    """Taps "Analisar" once the analysis module is here and waits for the analysis; the long
    tasks seen meanwhile, and whether the progress bar showed."""
    page.wait_for_selector("[data-action=analyse]:enabled", timeout=30000)
    page.evaluate(WATCH_LONG_TASKS)
    started = page.evaluate("performance.now()")
    page.click("[data-action=analyse]")
    page.wait_for_selector("[data-analysis=done]", timeout=120000)
    took = page.evaluate("performance.now()") - started
    return page.evaluate("window.__longTasks"), took


def marks(page):
    return {m.get_attribute("data-mark"): m.get_attribute("data-verdict")
            for m in page.query_selector_all("[data-mark]")}


def test_ana_09_a_room_game_of_jogo_da_velha_is_analysed_exactly_on_the_phone(browser, server):
    ana, path = new_room(browser, server, "quelonia")
    bia = phone(browser, server, path)
    bia.wait_for_selector("[data-action=join-room]", timeout=30000)
    bia.click("[data-pick=nino]")
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    # X a1; O b1 (loses: only b2 holds the velha); X a2; O b2 (a3 was the block); X a3.
    for mover, cell in [(ana, "a1"), (bia, "b1"), (ana, "a2"), (bia, "b2"), (ana, "a3")]:
        mover.wait_for_selector("[data-status=your-turn]", timeout=15000)
        mover.click(f"[data-cell={cell}]:enabled")
    bia.wait_for_selector("[data-status=lost]", timeout=15000)
    bia.click("[data-action=watch-replay]")
    bia.wait_for_selector("[data-steps='5']", timeout=15000)

    long_tasks, took = analyse(bia)
    assert long_tasks == [], f"long tasks while analysing: {long_tasks} ms"
    # Nine cells judged exactly: O's b1 threw the velha away, O's b2 lost sooner than a3.
    assert marks(bia) == {"1": "blunder", "3": "inaccuracy"}
    points = bia.get_attribute(".graph-line", "points").split()
    assert len(points) == 6, "the start and each move"
    assert points[-1].endswith(",0.0"), "X won: the line ends at the top"
    assert bia.inner_text("[data-decided]") == "A partida foi decidida no lance 2."
    assert bia.inner_text("[data-summary=O]").split() == ["O", "1", "0", "1"]
    assert "Análise exata" in bia.inner_text("[data-analysis]")
    shot(bia, "analysis-classic")

    bia.click("[data-mark='1'] .graph-hit")
    bia.wait_for_selector("[data-step='2']", timeout=5000)
    said = bia.inner_text(".analysis-move")
    assert "Lance 2 · O: erro grave · Melhor: b2" in said, said
    assert "O: velha → perde em 5 lances" in said, said
    assert bia.get_attribute("[data-cell=b1]", "aria-label") == "b1, O", "the board is at that move"
    shot(bia, "analysis-classic-mark")

    # Opened again: the device kept it, no need to analyse again.
    bia.reload()
    bia.wait_for_selector("[data-analysis=done]", timeout=30000)
    assert marks(bia) == {"1": "blunder", "3": "inaccuracy"}
    record("analysis.json", "classic_room", {"analysis_ms": round(took), "long_tasks": long_tasks})
    for page in (ana, bia):
        page.context.close()


def test_ana_08_a_cube_match_is_analysed_on_the_phone_without_freezing_it(browser, server):
    ana, bia = meet(browser, server)
    play_to_x_line(ana, bia)
    url = ana.get_attribute("[data-replay-url]", "data-replay-url")
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  bypass_csp=False)
    # Under the server's Content-Security-Policy, which refuses inline style attributes: the
    # bar must not need one.
    context.add_init_script(CSP_WATCH)
    caio = context.new_page()
    caio.goto(url)
    caio.wait_for_selector("[data-steps='5']", timeout=30000)

    caio.wait_for_selector("[data-action=analyse]:enabled", timeout=30000)
    # The cube's painter may still be starting on a slow machine: its WebGL context holds the
    # page while the GPU process creates it (about a second on software GL), which is not
    # the analysis's doing.
    caio.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    caio.evaluate(WATCH_LONG_TASKS)
    started = caio.evaluate("performance.now()")
    caio.click("[data-action=analyse]")
    # The Velha judges each position for a while: the bar shows how far she is.
    bar = caio.wait_for_selector("[role=progressbar]", timeout=10000)
    assert bar.get_attribute("aria-valuemax") == "6"
    shot(caio, "analysis-cube-running")
    caio.wait_for_selector("[data-analysis=done]", timeout=120000)
    took = caio.evaluate("performance.now()") - started
    long_tasks = caio.evaluate("window.__longTasks")
    assert long_tasks == [], f"long tasks while analysing: {long_tasks} ms"
    violations = caio.evaluate("window.__violations")
    assert violations == [], violations

    # O turned row 3 instead of blocking c1, and X's line came at once.
    found = marks(caio)
    assert found.get("3") == "blunder", found
    caio.click("[data-mark='3'] .graph-hit")
    caio.wait_for_selector("[data-step='4']", timeout=5000)
    said = caio.inner_text(".analysis-move")
    assert "Lance 4 · O: erro grave · Melhor:" in said, said
    assert caio.get_attribute("[data-best]", "data-best"), said
    assert "Chance de vitória de O:" in said
    shot(caio, "analysis-cube-mark")
    record("analysis.json", "cube_match", {"analysis_ms": round(took), "long_tasks": long_tasks})
    for page in (ana, bia, caio):
        page.context.close()


def test_ana_10_three_hints_a_game_against_vo_quelonia_and_in_super(phone):
    phone.click("[data-game=classic]")
    phone.click("[data-rival=quelonia]")
    for left in (3, 2, 1):
        phone.wait_for_selector(f"[data-action=hint][data-hints-left='{left}']:enabled", timeout=10000)
        phone.click("[data-action=hint]")
        cell = phone.wait_for_selector("[data-hint]").get_attribute("data-hint")
        assert phone.get_attribute(f"[data-cell={cell}]", "class") == "cell hinted"
        if left == 3:
            assert cell in ("a1", "c1", "a3", "c3", "b2"), "the solved game's first moves"
            shot(phone, "hint-classic")
        phone.click(f"[data-cell={cell}]")
    phone.wait_for_selector("[data-action=hint][data-hints-left='0']", timeout=10000)
    assert phone.is_disabled("[data-action=hint]")
    # Used up, the button looks it; the board's cells, disabled on the Velha's turn or at
    # the end, keep their look.
    opacity = "e => getComputedStyle(e).opacity"
    assert phone.eval_on_selector("[data-action=hint]", opacity) == "0.6"
    assert phone.eval_on_selector(".board3 .cell:disabled", opacity) == "1"
    shot(phone, "hint-used-up")

    phone.click("[data-action=back]")
    phone.click("[data-game=super]")
    phone.click("[data-starter=X]")
    phone.click("[data-rival=hard]")
    phone.wait_for_selector("[data-action=hint][data-hints-left='3']:enabled", timeout=10000)
    phone.click("[data-action=hint]")
    cell = phone.wait_for_selector("[data-hint]", timeout=30000).get_attribute("data-hint")
    assert phone.get_attribute(f"[data-cell={cell}]", "class") == "cell hinted"
    shot(phone, "hint-super")
    phone.click(f"[data-cell={cell}]")
    phone.wait_for_selector("[data-action=hint][data-hints-left='2']", timeout=30000)
    assert phone.query_selector("[data-hint]") is None, "the hint was for the position before"
    assert phone.eval_on_selector(".small-board .cell:disabled", opacity) == "1"


def lose_to_quelonia(phone):
    """Jogo da Velha against Vó Quelônia until she wins: X always takes the first free cell,
    and a velha starts another game."""
    phone.click("[data-game=classic]", timeout=30000)
    phone.click("[data-rival=quelonia]")
    for _ in range(6):
        while phone.query_selector("[data-action=another]") is None:
            phone.wait_for_selector("[data-cell]:enabled", timeout=10000)
            phone.click("[data-cell]:enabled >> nth=0")
            phone.wait_for_timeout(200)
        if phone.get_attribute("[data-status]", "data-status") == "win O":
            break
        phone.click("[data-action=another]")
    assert phone.get_attribute("[data-status]", "data-status") == "win O"


def test_ana_11_where_did_i_go_wrong_after_a_game_lost_to_vo_quelonia(phone):
    lose_to_quelonia(phone)
    live = [phone.get_attribute(f"[data-cell={c}]", "aria-label") for c in ("a1", "b2", "c3")]
    phone.evaluate(WATCH_LONG_TASKS)
    phone.click("[data-action=where-wrong]")
    phone.wait_for_selector("[data-analysis=done]", timeout=30000)
    assert phone.evaluate("window.__longTasks") == []
    steps = int(phone.get_attribute("[data-review] [data-steps]", "data-steps"))
    found = marks(phone)
    assert "blunder" in found.values(), found
    blunder = min(int(m) for m, v in found.items() if v == "blunder")
    shot(phone, "review-classic")
    phone.click(f"[data-mark='{blunder}'] .graph-hit")
    phone.wait_for_selector(f"[data-review] [data-step='{blunder + 1}']", timeout=5000)
    said = phone.inner_text(".analysis-move")
    assert f"Lance {blunder + 1} · X: erro grave · Melhor:" in said, said
    assert phone.locator("[data-cell] svg.mark").count() == blunder + 1, "the board at that move"
    shot(phone, "review-classic-mark")
    phone.click("[data-action=step-forward]")
    phone.wait_for_selector(f"[data-review] [data-step='{blunder + 2}']")
    assert blunder + 2 <= steps
    phone.click("[data-action=close-review]")
    assert phone.query_selector("[data-review]") is None
    assert [phone.get_attribute(f"[data-cell={c}]", "aria-label") for c in ("a1", "b2", "c3")] == live


def test_ana_08_the_analysis_module_that_could_not_be_fetched_is_tried_again(browser, base_url):
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  service_workers="block")
    context.route("**/split_analysis-*", lambda route: route.abort())
    phone = context.new_page()
    phone.goto(base_url)
    lose_to_quelonia(phone)
    phone.click("[data-action=where-wrong]")
    # No signal for the analysis: it says so and offers to try again, the game still there.
    phone.wait_for_selector("[data-action=retry-analysis]", timeout=30000)
    assert phone.inner_text("[data-action=retry-analysis]") == "Analisar · Tentar de novo"
    assert phone.inner_text("[data-problem]") == "A análise não carregou. Verifique a conexão."
    shot(phone, "analysis-not-fetched")
    context.unroute("**/split_analysis-*")
    phone.click("[data-action=retry-analysis]")
    phone.wait_for_selector("[data-analysis=done]", timeout=30000)
    assert "blunder" in marks(phone).values()
    context.close()


def test_ana_08_a_super_game_lost_to_the_computer_is_analysed_without_freezing_the_phone(phone):
    """Records how long a whole Super game takes to analyse on this machine's browser
    ($E2E_SHOTS/analysis.json): a figure, not a timed test."""
    phone.click("[data-game=super]")
    phone.click("[data-starter=X]")
    phone.click("[data-rival=hard]")
    for _ in range(4):
        if play_until_over(phone) == "win O":
            break
        phone.click("[data-action=another]")
    assert phone.get_attribute("[data-status]", "data-status") == "win O"
    phone.evaluate(WATCH_LONG_TASKS)
    started = phone.evaluate("performance.now()")
    phone.click("[data-action=where-wrong]")
    phone.wait_for_selector("[role=progressbar]", timeout=10000)
    phone.wait_for_selector("[data-analysis=done]", timeout=300000)
    took = phone.evaluate("performance.now()") - started
    long_tasks = phone.evaluate("window.__longTasks")
    assert long_tasks == [], f"long tasks while analysing: {long_tasks} ms"
    moves = int(phone.get_attribute("[data-review] [data-steps]", "data-steps"))
    # A loss by many small slips can leave no single mark (ANA-03 judges each move's drop):
    # what every lost game has is the move that decided it (ANA-07).
    decided = int(phone.get_attribute(".analysis-decided", "data-decided"))
    assert 1 <= decided <= moves, (decided, moves)
    marks = int(phone.get_attribute(".analysis-graph", "data-marks"))
    shot(phone, "review-super")
    record("analysis.json", "super_lost_to_hard", {"moves": moves, "marks": marks,
                                                   "analysis_ms": round(took),
                                                   "long_tasks": long_tasks})
