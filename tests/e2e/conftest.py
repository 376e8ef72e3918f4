"""Real-browser tests of the web build: Debian's chromium driven by Playwright, phone size,
touch on. The real server serves the app and its API over HTTPS on a free loopback port, with
a throwaway data folder (SQLite; PostgreSQL when E2E_DATABASE_URL names one). The browser
trusts exactly the server's certificate key (Chromium's SPKI list), so the page is a secure
context as with a real certificate: the service worker registers and cookies are Secure."""

import base64
import hashlib
import json
import os
import pathlib
import socket
import subprocess
import sys
import tempfile
import time

import pytest
from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))
DIST = ROOT / "dist"
SHOTS = pathlib.Path(os.environ.get("E2E_SHOTS", ROOT / "target" / "e2e-shots"))

CHROMIUM_ARGS = [
    "--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--no-first-run",
]


TARGET = os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target"))
SERVER = os.environ.get("VELHA_SERVER_BIN", os.path.join(TARGET, "debug", "velha-server"))


def spki_pin(cert_pem):
    """The certificate's public-key pin, which Chromium is told to trust."""
    public = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", cert_pem],
                            capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public,
                         capture_output=True, check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


def free_port():
    """A loopback port free now, for a listener the server opens itself (its metrics, a
    stand-in's)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    """`velha-server --web-root dist`: its address, data folder, and admin command."""

    def __init__(self, data, extra=(), postgres=True, listen="127.0.0.1:0",
                 database_env="E2E_DATABASE_URL", web_root=DIST):
        """`database_env` names the variable holding this server's PostgreSQL URL (a second
        server needs a database of its own); without it, or with `postgres` false, SQLite."""
        assert (DIST / "index.html").exists(), "build the web app first: bash scripts/build-web.sh"
        assert pathlib.Path(SERVER).exists(), f"build the server first: {SERVER}"
        self.data = data
        self.env = {**os.environ, "RUST_LOG": "warn"}
        self.env.pop("DATABASE_URL", None)
        if postgres and os.environ.get(database_env):
            self.env["DATABASE_URL"] = os.environ[database_env]
        self.process = subprocess.Popen(
            [SERVER, "--listen", listen, "--web-root", str(web_root), "--data-dir", data,
             "--argon2-memory-kib", "256", *extra], stdout=subprocess.PIPE, text=True, env=self.env)
        line = self.process.stdout.readline().strip()
        assert line.startswith("velha-server listening on "), line
        self.url = line.removeprefix("velha-server listening on ") + "/"
        extra = list(extra)
        cert = extra[extra.index("--tls-cert") + 1] if "--tls-cert" in extra else \
            os.path.join(data, "dev-cert.pem")
        self.pin = spki_pin(cert)

    def admin(self, *args):
        """`velha-server admin …` on this server's database; its output."""
        out = subprocess.run([SERVER, "--data-dir", self.data, "admin", *args],
                             capture_output=True, text=True, env=self.env)
        assert out.returncode == 0, out.stdout + out.stderr
        return out.stdout

    def stop(self):
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture(scope="session")
def server():
    with tempfile.TemporaryDirectory() as data:
        # Every test signs its players up from this one address: the limit of new accounts
        # per address is the server tests' to check, not a ceiling on how many tests there are.
        served = Served(data, ["--signups-per-address-per-hour", "100000"])
        yield served
        served.stop()


@pytest.fixture(scope="session")
def base_url(server):
    return server.url


@pytest.fixture(scope="session")
def browser(server):
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path="/usr/bin/chromium",
                              args=CHROMIUM_ARGS + [f"--ignore-certificate-errors-spki-list={server.pin}"])
        # Playwright's waits evaluate strings, which the server's Content-Security-Policy
        # forbids: tests bypass it unless they ask otherwise (test_served.py checks the app
        # under the policy).
        new_context = b.new_context
        b.new_context = lambda **options: new_context(**{"bypass_csp": True, **options})
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


def wait_for(predicate, timeout=20.0, page=None, what="timed out"):
    """`predicate`'s first true value, or an assertion that fails with `what`; `page` waits
    in Playwright's loop, so that events (routes, the DevTools session's) are heard
    meanwhile."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        if page:
            page.wait_for_timeout(100)
        else:
            time.sleep(0.1)
    raise AssertionError(what)


def record(file, name, figures):
    """Keeps `figures` under `name` in $E2E_SHOTS/`file` (a record of figures, not a test of
    speed) and prints them."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / file
    kept = json.loads(path.read_text()) if path.exists() else {}
    kept[name] = figures
    path.write_text(json.dumps(kept, indent=1))
    print(name, figures)


def home(page):
    """Opens the app afresh at its home screen (a reload keeps the screen it is on)."""
    page.goto(page.evaluate("location.origin") + "/")
    page.wait_for_selector("[data-game=classic]", timeout=30000)


def shot(page, name, full=True):
    """The whole page, or with `full` false what the player sees as it is scrolled now."""
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=full)


def server_fails(page, pattern, code="internal", message="storage failed"):
    """The server answers every request matching `pattern` with the API's error `code`, until
    `page.unroute(pattern)`. The page's context must block service workers, whose fetches
    routes do not see."""
    page.route(pattern, lambda route: route.fulfill(
        status=500, content_type="application/json",
        body=json.dumps({"code": code, "message": message})))


def no_retry_for_a_lasting_refusal(page, pattern, problem, code, message):
    """The page read again while the server refuses `pattern` with `code`, which asking again
    cannot change: the screen says why (`data-problem=problem`) and offers no tap to ask again."""
    server_fails(page, pattern, code=code, message=message)
    page.reload()
    page.wait_for_selector(f"[data-problem={problem}]", timeout=30000)
    assert page.query_selector("[data-action=retry]") is None
