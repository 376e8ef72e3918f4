"""How long a phone waits for the app: loads the real server's web app at 360×640 in Chromium
under three networks (none, 9 Mbps / 85 ms, 1.6 Mbps / 150 ms — "slow 4G"), cold (empty
cache, no service worker) and warm (loaded again once the service worker holds the app), and
prints the time until the home screen answers a tap and the bytes that crossed the network.
A bench, not a test: it prints figures and asserts nothing about time.

Usage: python3 tests/bench/load.py [--server PATH] [--runs N]
(build first: bash scripts/build-web.sh && cargo build -p velha-server)"""

import argparse
import base64
import hashlib
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

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


def load(page, cdp, url):
    """Seconds until the home screen answers a tap on "Jogar" (the classic game opens), and
    the bytes received meanwhile."""
    received = []
    cdp.on("Network.loadingFinished", lambda e: received.append(e["encodedDataLength"]))
    start = time.perf_counter()
    page.goto(url, wait_until="commit")
    page.click("[data-game=classic]", timeout=120_000)
    page.wait_for_selector("[data-rival=friend]", timeout=120_000)
    return time.perf_counter() - start, sum(received)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.path.join(TARGET, "debug", "velha-server"))
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as data, sync_playwright() as p:
        server, url = serve(args.server, data)
        pin = spki_pin(os.path.join(data, "dev-cert.pem"))
        browser = p.chromium.launch(executable_path="/usr/bin/chromium",
                                    args=ARGS + [f"--ignore-certificate-errors-spki-list={pin}"])
        print(f"{'network':<20} {'cold s (median)':>16} {'cold bytes':>11} {'warm s (median)':>16} {'warm bytes':>11}")
        try:
            for name, down, up, rtt in NETWORKS:
                cold, warm = [], []
                for _ in range(args.runs):
                    context = browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                                  has_touch=True, locale="pt-BR", ignore_https_errors=True,
                                                  bypass_csp=True)
                    page = context.new_page()
                    cdp = context.new_cdp_session(page)
                    cdp.send("Network.enable")
                    if down:
                        cdp.send("Network.emulateNetworkConditions", {
                            "offline": False, "latency": rtt, "downloadThroughput": down,
                            "uploadThroughput": up})
                    cold.append(load(page, cdp, url))
                    # Once the service worker holds the app, as on a player's second visit.
                    page.wait_for_function("() => navigator.serviceWorker.controller !== null",
                                           timeout=120_000)
                    warm.append(load(page, cdp, url))
                    context.close()
                median = lambda runs, i: statistics.median(r[i] for r in runs)
                print(f"{name:<20} {median(cold, 0):>16.2f} {int(median(cold, 1)):>11} "
                      f"{median(warm, 0):>16.2f} {int(median(warm, 1)):>11}", flush=True)
        finally:
            browser.close()
            server.terminate()
            server.wait(timeout=30)


if __name__ == "__main__":
    sys.exit(main())
