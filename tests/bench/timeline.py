"""Where one of load.py's screen openings spends its time: runs it once on slow 4G (a kept
session's lobby by default, or how to play) and prints every request's send and finish, the
WebSocket's handshake and frames, in seconds from the last tap. A bench, not a test: it prints
and asserts nothing.

Usage: python3 tests/bench/timeline.py [--server PATH] [--measure lobby|howto] [--runs N]
(build first, as for load.py)"""

import argparse
import os
import sys

from load import HOW_TO, LOBBY, NETWORKS, TARGET, phone, serving, subscriber

# Names the time of every tap on the page's clock, to place the network's events after it.
TAPS = """document.addEventListener("click",
  () => (window.__taps = window.__taps || []).push(performance.now()), true);"""
EVENTS = ["requestWillBeSent", "loadingFinished", "webSocketWillSendHandshakeRequest",
          "webSocketHandshakeResponseReceived", "webSocketFrameSent", "webSocketFrameReceived"]


def timeline(browser, url, script, session):
    _, down, up, rtt = NETWORKS[2]
    context, page, cdp = phone(browser, script, down, up, rtt)
    context.add_init_script(TAPS)
    if session:
        context.add_cookies([{"name": "__Host-velha-session", "value": session, "url": url,
                              "secure": True, "httpOnly": True, "sameSite": "Strict"}])
    events = []
    for name in EVENTS:
        cdp.on("Network." + name, lambda e, name=name: events.append((name, e)))
    page.goto(url, wait_until="commit")
    opened = page.evaluate("window.__opened")
    tap_ms = page.evaluate("window.__taps.at(-1)")
    origin_ms = page.evaluate("performance.timeOrigin")
    context.close()
    # DevTools' timestamps are on another clock: the document's request has both.
    document = next(e for name, e in events if name == "requestWillBeSent")
    tapped = document["timestamp"] + (origin_ms + tap_ms) / 1000 - document["wallTime"]
    print(f"opened {opened:.2f} s after the tap, made {tap_ms / 1000:.2f} s after navigation")
    names = {}
    for name, e in events:
        at = e["timestamp"] - tapped
        if name == "requestWillBeSent":
            names[e["requestId"]] = e["request"]["url"].rsplit("/", 1)[-1][:48] or "/"
            print(f"{at:+7.3f} sent      {names[e['requestId']]}")
        elif name == "loadingFinished":
            print(f"{at:+7.3f} finished  {names.get(e['requestId'], '?')} "
                  f"({e['encodedDataLength']} B)")
        elif name.startswith("webSocketFrame"):
            way = "frame out" if name.endswith("Sent") else "frame in "
            print(f"{at:+7.3f} {way} {e['response']['payloadData'][:64]}")
        else:
            print(f"{at:+7.3f} websocket {name.removeprefix('webSocket')}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--server", default=os.path.join(TARGET, "debug", "velha-server"))
    parser.add_argument("--measure", choices=["lobby", "howto"], default="lobby")
    parser.add_argument("--runs", type=int, default=1)
    args = parser.parse_args()
    with serving(args.server) as (data, url, browser):
        session = subscriber(args.server, data, url) if args.measure == "lobby" else None
        for _ in range(args.runs):
            timeline(browser, url, LOBBY if session else HOW_TO, session)

if __name__ == "__main__":
    sys.exit(main())
