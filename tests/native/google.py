"""Google sign-in in the native (Blitz) build, as an installed app does it (ON-A01): the app
opens the system browser at the authorization page with a PKCE challenge, waits for the answer
on a loopback port, trades the code and its verifier for an ID token and signs in with it. The
test's stand-in Google is the authorization server and the issuer; the "system browser" is a
script (BROWSER) that follows the redirects with curl, as a person approving would. The first
sign-in asks a name; a refusal on Google's page is a sentence. The session token goes to the
desktop's credential store: a D-Bus session with gnome-keyring's Secret Service runs beside the
app, and the token is found there, not in a file.

Usage: python3 tests/native/google.py APP_BINARY SERVER_BINARY OUT_DIR"""

import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from standins.google import GoogleStandIn  # noqa: E402
from xwindow import sky, tools  # noqa: E402

APP, SERVER, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(OUT, exist_ok=True)
DISPLAY = ":96"
data, home, work = tempfile.mkdtemp(), tempfile.mkdtemp(), tempfile.mkdtemp()
cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert,
                "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost",
                # rustls takes no CA certificate as a server's own.
                "-addext", "basicConstraints=critical,CA:FALSE"],
               check=True, capture_output=True)
standin = GoogleStandIn(cert, key, "velha-web.apps.googleusercontent.com",
                        "velha-desktop.apps.googleusercontent.com")
server_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
server = subprocess.Popen([SERVER, "--listen", "127.0.0.1:0", "--data-dir", data, "--argon2-memory-kib", "256",
                           "--tls-cert", cert, "--tls-key", key, *standin.server_args()],
                          stdout=subprocess.PIPE, text=True, env=dict(server_env, RUST_LOG="warn"))
url = server.stdout.readline().strip().removeprefix("velha-server listening on ")
# The system browser: follows Google's redirect back to the app's loopback port and keeps the
# page the app answered there.
browser = os.path.join(work, "browser")
pages = os.path.join(work, "pages")
with open(browser, "w") as f:
    f.write(f"#!/bin/sh\ncurl -sS --cacert {cert} -L --max-redirs 2 \"$1\" >> {pages} 2>&1 &\n")
os.chmod(browser, 0o755)
env = dict(os.environ, DISPLAY=DISPLAY, XDG_RUNTIME_DIR=tempfile.mkdtemp(), LANG="pt_BR.UTF-8", HOME=home,
           XDG_DATA_HOME=os.path.join(home, "data"), VELHA_SERVER=url, VELHA_SERVER_CA=cert, BROWSER=browser)
# A desktop session's credential store: a session bus and gnome-keyring's Secret Service, its
# login keyring made and unlocked with a password on standard input.
bus = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                     capture_output=True, text=True, check=True).stdout.split()
env["DBUS_SESSION_BUS_ADDRESS"], bus_pid = bus[0], int(bus[1])
subprocess.run(["gnome-keyring-daemon", "--unlock", "--components=secrets"], input="velha", text=True,
               env=env, check=True, capture_output=True, timeout=20)


def kept_in_keyring():
    found = subprocess.run(["secret-tool", "lookup", "service", "cubo-da-velha", "username", "session"],
                           env=env, capture_output=True, text=True, timeout=20)
    return found.stdout
xdo, grab, wait_for, launch = tools(env, OUT)
# The window is 800x600 (style.css at 1x): "Entrar", the Google button's G, the sentence under
# it; the name form's field and button (below the country, ON-A02).
ACCOUNT, GOOGLE, NAME, NAME_SUBMIT = (631, 28), (319, 462), (400, 190), (400, 364)
# The profile's "Ranking" and "Sair da conta" (below "Assinar"); the top bar's "Voltar".
RANKING, SIGN_OUT, BACK = (400, 450), (400, 504), (182, 33)


def white(rgb):
    return min(rgb) > 230


def alert_below_button(image):
    return any(r - b > 30 for y in range(495, 560) for r, g, b in [image.getpixel((200, y))])


def profile(image):
    """The profile's yellow "Jogo online" heading, wherever the rows above put it."""
    return any(r > 200 and g > 150 and b < 100 for y in range(150, 420, 2) for x in range(150, 265, 3)
               for r, g, b in [image.getpixel((x, y))])


def yellow_tab(image):
    """The selected tab's yellow border (Mundial, at the top of the rankings screen)."""
    return any(r > 200 and g > 150 and b < 100 for y in range(60, 130, 2) for x in range(140, 400, 4)
               for r, g, b in [image.getpixel((x, y))])


def start_app():
    return launch(APP, "google-app.log", "google-home")


def browser_pages():
    return open(pages).read() if os.path.exists(pages) else ""


xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1024x768x24"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
time.sleep(1)
app = None
try:
    app = start_app()
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("google-sign-in", lambda im: white(im.getpixel(GOOGLE)))
    # The player says no on Google's page: a sentence, and the browser is told too.
    standin.deny = True
    xdo("mousemove", *GOOGLE, "click", 1)
    wait_for("google-cancelled", alert_below_button)
    assert "O login não foi concluído" in browser_pages(), browser_pages()
    # Yes this time: the code and its verifier become an ID token; the first time asks a name.
    xdo("mousemove", *GOOGLE, "click", 1)
    wait_for("google-choose-name", lambda im: sky(im.getpixel(NAME_SUBMIT)))
    trade = standin.trades[-1]
    assert trade["client_id"] == standin.desktop_client and len(trade["code_verifier"]) == 43, trade
    assert "Pronto! Pode fechar esta aba" in browser_pages(), browser_pages()
    xdo("mousemove", *NAME, "click", 1)
    time.sleep(0.5)
    xdo("type", "--delay", "30", "Gui_nativo")
    xdo("mousemove", *NAME_SUBMIT, "click", 1)
    wait_for("google-profile", profile)
    assert len(kept_in_keyring()) > 20, "the session token is in the credential store"
    assert not os.path.exists(os.path.join(home, "data", "cubo-da-velha", "session")), "and not in a file"
    app.terminate()
    app.wait(timeout=30)
    # The next start is signed in, and a second Google sign-in goes straight in.
    app = start_app()
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("google-profile-after-restart", profile)
    # The rankings screen opens from the profile; this player has no match yet.
    xdo("mousemove", *RANKING, "click", 1)
    wait_for("google-ranking", yellow_tab)
    xdo("mousemove", *BACK, "click", 1)
    wait_for("google-home-again", lambda im: sky(im.getpixel((271, 342))))
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("google-profile-again", lambda im: profile(im) and not yellow_tab(im))
    # Signing out takes it out of the store.
    xdo("mousemove", *SIGN_OUT, "click", 1)
    wait_for("google-signed-out", lambda im: white(im.getpixel(GOOGLE)))
    assert kept_in_keyring() == "", "signing out forgets the token"
    print("native google: 5 passed, 0 failed")
finally:
    if app:
        app.terminate()
    xvfb.terminate()
    server.terminate()
    standin.stop()
    os.kill(bus_pid, 15)
