"""How long a phone waits for the app: loads the real server's web app at 360×640 in Chromium
under three networks (none, 9 Mbps / 85 ms, 1.6 Mbps / 150 ms — "slow 4G"), cold (empty
cache, no service worker) and warm (loaded again once the service worker holds the app), and
prints the time until the home screen answers a tap, the bytes that crossed the network by then,
and when the cube's painter (a wasm module fetched after the first screen) is ready; and, cold,
how long the two online screens a new player reaches first (the account from home, in the
account's module, fetched after the first screen; online play from the cube's screen, whose
gate is the app's own since 6db4392, so it needs no module: kept to compare with older runs)
take to open when tapped as soon as they can be, the worst case, the lobby a
subscriber whose session the device kept reaches the same way (the lobby's module; the app
asks about the session and the gate opens the live connection while it downloads), the
cube's rules from home (how to play, a module of its own), the cube against the Velha from
home (drawn flat at once, then in 3D once its painter came; and chosen a second after its
screen showed, as a player reading it does), Super from home (the app's own,
as every local game: a measure of what a split of the games would cost) and a signed-in
player's password and devices from the account (the settings' module, fetched last).
A bench, not a test: it prints figures and asserts nothing about time.

Times are read on the page's own clock, from the start of navigation: the page taps "Jogar"
one frame after the home screen appears and notes when the classic game opens. (Playwright's
waits poll at up to 500 ms intervals, which would measure the harness.)

Usage: python3 tests/bench/load.py [--server PATH] [--runs N]
(build first: bash scripts/build-web.sh && cargo build -p velha-server)"""

import argparse
import base64
import contextlib
import hashlib
import json
import os
import pathlib
import secrets
import ssl
import statistics
import subprocess
import sys
import tempfile
import urllib.request

from playwright.sync_api import sync_playwright

ROOT = pathlib.Path(__file__).resolve().parents[2]
TARGET = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/velha/target"))
ARGS = ["--no-sandbox", "--use-angle=swiftshader", "--enable-unsafe-swiftshader",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run"]
# (name, download bytes/s, upload bytes/s, round trip ms); None: no throttling.
NETWORKS = [("no throttling", None, None, 0),
            ("9 Mbps / 85 ms", 9_000_000 / 8, 3_000_000 / 8, 85),
            ("1.6 Mbps / 150 ms", 1_600_000 / 8, 750_000 / 8, 150)]


def serve(binary, data):
    env = {**os.environ, "RUST_LOG": "warn"}
    env.pop("DATABASE_URL", None)
    server = subprocess.Popen([binary, "--listen", "127.0.0.1:0", "--web-root", str(ROOT / "dist"),
                               "--data-dir", data, "--argon2-memory-kib", "256"],
                              stdout=subprocess.PIPE, text=True, env=env)
    line = server.stdout.readline().strip()
    assert line.startswith("velha-server listening on "), line
    return server, line.removeprefix("velha-server listening on ") + "/"


def spki_pin(cert_pem):
    """The certificate's public-key pin: Chromium trusts it by this, so the browser's cache and
    the service worker behave as with a real certificate (a certificate error disables both)."""
    public = subprocess.run(["openssl", "x509", "-pubkey", "-noout", "-in", cert_pem],
                            capture_output=True, check=True).stdout
    der = subprocess.run(["openssl", "pkey", "-pubin", "-outform", "der"], input=public,
                         capture_output=True, check=True).stdout
    return base64.b64encode(hashlib.sha256(der).digest()).decode()


# In every page before its scripts: once the home screen is painted, tap "Jogar" and resolve
# with the time the classic game's screen appears.
TAP_WHEN_READY = """
window.__answered = new Promise((resolve) => {
  let tapped = false;
  const watch = new MutationObserver(() => {
    const play = document.querySelector("[data-game=classic]");
    if (play && !tapped) {
      tapped = true;
      requestAnimationFrame(() => setTimeout(() => play.click(), 0));
    }
    if (document.querySelector("[data-rival=friend]")) {
      watch.disconnect();
      resolve(performance.now());
    }
  });
  watch.observe(document, { childList: true, subtree: true });
});
"""
# Cold only, in a context of its own: tap each of `taps` as soon as it shows (the last one
# `pause_ms` later, a player reading the screen), and resolve with the seconds from the last
# tap until `shown` shows.
def tap_through(taps, shown, pause_ms=0):
    return """
window.__opened = new Promise((resolve) => {
  const taps = %s;
  let next = 0, tapped;
  const watch = new MutationObserver(() => {
    const button = next < taps.length && document.querySelector(taps[next]);
    if (button && tapped !== null) {
      next += 1;
      tapped = null;
      requestAnimationFrame(() => setTimeout(() => {
        tapped = next === taps.length ? performance.now() : undefined;
        button.click();
      }, next === taps.length ? %d : 0));
    }
    if (tapped && document.querySelector(%r)) {
      watch.disconnect();
      resolve((performance.now() - tapped) / 1000);
    }
  });
  // Attributes too: the flat drawing's size and the painter's state change no children.
  watch.observe(document, { childList: true, subtree: true, attributes: true,
                            attributeFilter: ["width", "data-painter"] });
});
""" % (repr(list(taps)), pause_ms, shown)


# The two online screens a new player reaches first: the account from home (its sign-in form),
# and online play from the cube's screen (which asks a guest to sign in; the app's own).
ACCOUNT = tap_through(["[data-action=account]"], "[data-form]")
ONLINE_PLAY = tap_through(["[data-game=cube]", "[data-mode=online]"], "[data-action=sign-in]")
# The cube's rules from home (how to play is a module of its own).
HOW_TO = tap_through(["[data-howto=cube]"], "article.howto h2")
# The cube against the Velha from home, the same way: drawn flat at once (the app's own), in
# 3D once its painter has come (a module of its own, which the modules fetched ahead of need
# then wait for).
# The flat drawing has drawn once its canvas has a size of its own (src/platform/sketch_web.rs);
# a painter that came first draws before it ever does.
CUBE_DRAWN = tap_through(["[data-game=cube]", "[data-mode='1-velha']"],
                         "#cube-sketch[width], .cube-stage[data-painter=ready]")
CUBE_3D = tap_through(["[data-game=cube]", "[data-mode='1-velha']"],
                      ".cube-stage[data-painter=ready]")
# The same, chosen a second after the cube's screen showed (the screen asks for the painter
# while the player chooses).
CUBE_3D_CHOSEN = tap_through(["[data-game=cube]", "[data-mode='1-velha']"],
                             ".cube-stage[data-painter=ready]", pause_ms=1000)
# Super from home, the same way: a local game's screen is the app's own and opens at once.
SUPER = tap_through(["[data-game=super]"], "[data-starter=coin]")
# A subscriber whose session the device kept: online play shows the lobby, its list of open
# matches come over the live connection.
LOBBY = tap_through(["[data-game=cube]", "[data-mode=online]"], "[data-lobby]") + """
localStorage.setItem("cubo-da-velha.signed-in", "1");
"""
# A signed-in player's password and devices, from the account as soon as it shows: the
# settings' module, fetched last after the first screen, so the worst case of a later screen.
SECURITY = tap_through(["[data-action=account]", "[data-action=security]"],
                       "ul.sessions li") + """
localStorage.setItem("cubo-da-velha.signed-in", "1");
"""
PAINTER_READY = """() => performance.getEntriesByType("resource")
  .filter((e) => e.name.includes("velha_cube_paint_bg")).map((e) => e.responseEnd)[0] ?? null"""


def load(page, cdp, url):
    """Seconds from navigation until the home screen answered a tap on "Jogar" (the classic
    game opened), the bytes received by then, and seconds until the painter's wasm arrived."""
    received = []
    cdp.on("Network.loadingFinished", lambda e: received.append(e["encodedDataLength"]))
    page.goto(url, wait_until="commit")
    answered = page.evaluate("window.__answered") / 1000
    bytes_then = sum(received)
    painter = page.wait_for_function(PAINTER_READY, timeout=120_000).json_value() / 1000
    return answered, bytes_then, painter


def phone(browser, script, down, up, rtt):
    """A fresh phone (360×640, touch, pt-BR, empty cache) running `script` on every page, on
    this network: its context, page and DevTools session."""
    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                  has_touch=True, locale="pt-BR", ignore_https_errors=True,
                                  bypass_csp=True)
    context.add_init_script(script)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    if down:
        cdp.send("Network.emulateNetworkConditions", {
            "offline": False, "latency": rtt, "downloadThroughput": down, "uploadThroughput": up})
    return context, page, cdp


def subscriber(binary, data, served):
    """A new account with a subscription on the running server: its session token."""
    tls = ssl.create_default_context(cafile=os.path.join(data, "dev-cert.pem"))
    name = "Sub" + secrets.token_hex(4)
    request = urllib.request.Request(
        served + "api/accounts", method="POST", headers={"content-type": "application/json"},
        data=json.dumps({"email": f"{name.lower()}@example.com", "password": "cubo-gira-9",
                         "name": name, "region": "pt-BR"}).encode())
    token = json.loads(urllib.request.urlopen(request, context=tls).read())["token"]
    subprocess.run([binary, "--data-dir", data, "admin", "subscription", "grant", name,
                    "--until", "2099-01-01"], check=True, capture_output=True)
    return token


def opens(browser, url, script, down, up, rtt, session=None):
    """Seconds from the last tap of `script` (made as soon as each screen answers, on a cold
    load) until its online screen shows; signed in with `session` when given."""
    context, page, _ = phone(browser, script, down, up, rtt)
    if session:
        context.add_cookies([{"name": "__Host-velha-session", "value": session, "url": url,
                              "secure": True, "httpOnly": True, "sameSite": "Strict"}])
    page.goto(url, wait_until="commit")
    opened = page.evaluate("window.__opened")
    context.close()
    return opened


@contextlib.contextmanager
def serving(binary):
    """The server `binary` on a fresh data folder serving the built app, and a browser that
    trusts its certificate: the folder, the app's address and the browser."""
    with tempfile.TemporaryDirectory() as data, sync_playwright() as p:
        server, url = serve(binary, data)
        pin = spki_pin(os.path.join(data, "dev-cert.pem"))
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=ARGS + [f"--ignore-certificate-errors-spki-list={pin}"])
        try:
            yield data, url, browser
        finally:
            browser.close()
            server.terminate()
            server.wait(timeout=30)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.path.join(TARGET, "debug", "velha-server"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with serving(args.server) as (data, url, browser):
        session = subscriber(args.server, data, url)
        print(f"{'network':<20} {'cold s':>7} {'cold bytes':>11} {'cube ready s':>13} "
              f"{'warm s':>7} {'warm bytes':>11} {'cube ready s':>13} {'account s':>10} "
              f"{'online play s':>14} {'lobby s':>8} {'how to s':>9} {'super s':>8} "
              f"{'security s':>11} {'cube s':>7} {'cube 3D s':>10} {'chosen 3D s':>12}"
              "   (medians)")
        for name, down, up, rtt in NETWORKS:
            (cold, warm, account, online, lobby, how_to, ultimate, security, cube, cube_3d,
             chosen_3d) = ([] for _ in range(11))
            for _ in range(args.runs):
                cube.append(opens(browser, url, CUBE_DRAWN, down, up, rtt))
                cube_3d.append(opens(browser, url, CUBE_3D, down, up, rtt))
                chosen_3d.append(opens(browser, url, CUBE_3D_CHOSEN, down, up, rtt))
                account.append(opens(browser, url, ACCOUNT, down, up, rtt))
                online.append(opens(browser, url, ONLINE_PLAY, down, up, rtt))
                lobby.append(opens(browser, url, LOBBY, down, up, rtt, session))
                security.append(opens(browser, url, SECURITY, down, up, rtt, session))
                how_to.append(opens(browser, url, HOW_TO, down, up, rtt))
                ultimate.append(opens(browser, url, SUPER, down, up, rtt))
                context, page, cdp = phone(browser, TAP_WHEN_READY, down, up, rtt)
                cold.append(load(page, cdp, url))
                # Once the service worker holds the app, as on a player's second visit.
                page.wait_for_function("() => navigator.serviceWorker.controller !== null",
                                       timeout=120_000)
                warm.append(load(page, cdp, url))
                context.close()
            median = lambda runs, i: statistics.median(r[i] for r in runs)
            print(f"{name:<20} {median(cold, 0):>7.2f} {int(median(cold, 1)):>11} "
                  f"{median(cold, 2):>13.2f} {median(warm, 0):>7.2f} {int(median(warm, 1)):>11} "
                  f"{median(warm, 2):>13.2f} {statistics.median(account):>10.2f} "
                  f"{statistics.median(online):>14.2f} {statistics.median(lobby):>8.2f} "
                  f"{statistics.median(how_to):>9.2f} {statistics.median(ultimate):>8.2f} "
                  f"{statistics.median(security):>11.2f} {statistics.median(cube):>7.2f} "
                  f"{statistics.median(cube_3d):>10.2f} {statistics.median(chosen_3d):>12.2f}",
                  flush=True)


if __name__ == "__main__":
    sys.exit(main())
