"""The web app as the real server serves it, over HTTPS with its Content-Security-Policy:
nothing the app does may be refused by that policy (a policy that blocks the wasm, the cube's
WebGL canvas or a style the app writes would leave players with a blank or broken page)."""

import os
import pathlib
import subprocess
import tempfile

import pytest

from conftest import DIST, ROOT, shot

CSP_WATCH = """
window.__violations = [];
document.addEventListener("securitypolicyviolation",
  (e) => window.__violations.push(e.violatedDirective + " " + e.blockedURI));
"""


@pytest.fixture(scope="module")
def served():
    """`velha-server --web-root dist` on a free loopback port, with a throwaway data folder."""
    target = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
    binary = os.environ.get("VELHA_SERVER_BIN", os.path.join(target, "debug", "velha-server"))
    assert pathlib.Path(binary).exists(), f"build the server first: {binary}"
    with tempfile.TemporaryDirectory() as data:
        env = {**os.environ, "RUST_LOG": "warn"}
        env.pop("DATABASE_URL", None)
        server = subprocess.Popen(
            [binary, "--listen", "127.0.0.1:0", "--web-root", str(DIST), "--data-dir", data,
             "--argon2-memory-kib", "256"],
            stdout=subprocess.PIPE, text=True, env=env)
        line = server.stdout.readline().strip()
        assert line.startswith("velha-server listening on "), line
        yield line.removeprefix("velha-server listening on ") + "/"
        server.terminate()
        server.wait(timeout=30)


def test_the_served_app_runs_under_its_content_security_policy(browser, served):
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR",
                                  ignore_https_errors=True, bypass_csp=False)
    context.add_init_script(CSP_WATCH)
    page = context.new_page()
    console = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    response = page.goto(served)
    headers = response.headers
    assert "script-src 'self' 'wasm-unsafe-eval'" in headers["content-security-policy"]
    assert headers["x-content-type-options"] == "nosniff"
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    # The classic game (Dioxus writes styles and SVG), then the cube (wasm + WebGL canvas).
    page.click("[data-game=classic]")
    page.click("[data-rival=nino]")
    assert page.locator("[data-opponent=nino] img").evaluate("i => i.complete && i.naturalWidth > 0"), \
        "the character's drawing loads under the policy"
    page.click("[data-cell=b2]")
    assert page.locator("[data-cell] svg.mark").count() == 2
    page.goto(served)
    page.wait_for_selector("[data-game=cube]", timeout=30000)
    page.click("[data-game=cube]")
    page.click("[data-mode='1-friend']")
    page.wait_for_timeout(800)
    box = page.locator("#cube-canvas").bounding_box()
    assert box and box["width"] > 100
    page.click("[data-action=buttons]")
    page.locator("[data-cell=a1]").click()
    assert page.get_attribute("[data-cell=a1]", "aria-label") == "a1, X"
    shot(page, "served-cube")
    violations = page.evaluate("window.__violations")
    context.close()
    assert violations == [], violations
    assert not [m for m in console if "Content Security Policy" in m], console
    assert not errors, errors
