"""Real-browser tests of the web build: Debian's chromium driven by Playwright, phone size,
touch on. The app is served from dist/ by a static server on a free loopback port (the real
server serves it once it exists)."""

import functools
import http.server
import os
import pathlib
import socket
import threading

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
DIST = ROOT / "dist"
SHOTS = pathlib.Path(os.environ.get("E2E_SHOTS", ROOT / "target" / "e2e-shots"))

CHROMIUM_ARGS = [
    "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run",
]


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".wasm": "application/wasm", ".webmanifest": "application/manifest+json"}

    def log_message(self, *args):
        pass


@pytest.fixture(scope="session")
def base_url():
    assert (DIST / "index.html").exists(), "build the web app first: bash scripts/build-web.sh"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", port), functools.partial(QuietHandler, directory=str(DIST)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{port}/"
    server.shutdown()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def phone(browser, base_url):
    """A fresh phone-sized page with touch, in Portuguese, failing on any page error."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True, locale="pt-BR")
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(base_url)
    page.wait_for_selector("[data-game=classic]", timeout=30000)
    yield page
    context.close()
    assert not errors, errors


def shot(page, name):
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)
