"""The computer thinks between frames (issue 12's "the app never freezes"): while the Velha
plays level 2 and while "difícil" plays Super, her thinking runs in slices with the page's
frames between them, never in one block. The figures — the page's long tasks (the goal is none
over 50 ms), the frames per second during her turns — are printed and kept beside the
screenshots (thinking.json); they are the measure, as a test's timing depends on the machine's
load. What the test requires holds on any machine: a turn's thinking is spread over many
tasks, so the longest task is a small part of a turn (a search in one block would be all of
it)."""


from conftest import record, shot
from test_app import status, wait_for_person

# The longest task may take at most this part of an average turn's thinking.
SLICED = 0.25


def assert_sliced(figures):
    per_turn = figures["thinking_ms"] / figures["turns"]
    longest = max(figures["long_tasks_ms"], default=0)
    assert longest <= SLICED * per_turn, f"a task of {longest} ms in turns of {per_turn:.0f} ms: {figures}"

WATCH = """() => {
  window.__long = [];
  new PerformanceObserver(list => {
    for (const e of list.getEntries()) window.__long.push(Math.round(e.duration));
  }).observe({type: 'longtask'});
  // Frames, and the spans when the computer (O) is to move.
  window.__frames = [];
  window.__thinking = [];
  const frame = t => { window.__frames.push(t); requestAnimationFrame(frame); };
  requestAnimationFrame(frame);
  const el = document.querySelector('[data-status]');
  let since = null;
  const note = () => {
    const o = el.dataset.status === 'ongoing O';
    if (o && since === null) since = performance.now();
    if (!o && since !== null) { window.__thinking.push([since, performance.now()]); since = null; }
  };
  new MutationObserver(note).observe(el, {attributes: true});
  note();
}"""

REPORT = """() => {
  const spans = window.__thinking;
  let frames = 0, time = 0, worst = 0;
  for (const [a, b] of spans) {
    const inside = window.__frames.filter(t => t >= a && t <= b);
    frames += inside.length;
    time += b - a;
    for (let i = 1; i < inside.length; i++) worst = Math.max(worst, inside[i] - inside[i - 1]);
  }
  return {long_tasks_ms: window.__long, turns: spans.length, thinking_ms: Math.round(time),
          fps: time ? Math.round(frames * 10000 / time) / 10 : null, worst_frame_gap_ms: Math.round(worst)};
}"""


def play_until_turns(page, turns, person, another):
    """The person plays the first action it may (a quick loser), game after game, until the
    computer has had `turns` turns."""
    for _ in range(200):
        if page.evaluate("window.__thinking.length") >= turns:
            return
        if status(page).startswith("ongoing"):
            page.locator(person).first.click()
        else:
            page.click(another)
        wait_for_person(page, person)
    raise AssertionError("the computer did not get its turns")


def test_cube_v05_the_velha_at_level_2_never_holds_the_page(phone):
    phone.click("[data-game=cube]")
    phone.click("[data-mode='2-velha']")
    phone.click("[data-action=buttons]")
    # The painter's start holds the page while the GPU process makes its WebGL context (about
    # a second on software GL): not the Velha's doing.
    phone.wait_for_selector(".cube-stage[data-painter=ready]", timeout=30000)
    phone.evaluate(WATCH)
    person = "[data-cell]:enabled:not([aria-label$=', O']), [data-action$='+']:enabled"
    play_until_turns(phone, 8, person, "[data-action=another]")
    figures = phone.evaluate(REPORT)
    record("thinking.json", "velha-level2", figures)
    shot(phone, "thinking-velha")
    assert_sliced(figures)


def test_super_r04_hard_never_holds_the_page(phone):
    phone.click("[data-game=super]")
    phone.click("[data-starter=X]")
    phone.click("[data-rival=hard]")
    phone.evaluate(WATCH)
    play_until_turns(phone, 8, "[data-cell]:enabled", "[data-action=another]")
    figures = phone.evaluate(REPORT)
    record("thinking.json", "super-hard", figures)
    assert_sliced(figures)
