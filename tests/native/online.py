"""The native (Blitz) build online against a local server, in a real X window (Xvfb): the
account form typed with xdotool (ON-A01) — a wrong password is a sentence, the right one opens
the profile, the session token is kept in a file only the user reads (there is no credential
store here, and the log says so), the next start is signed in — and, once the player subscribes, the lobby over the live connection (ON-M01): a match
another player opens appears by itself; another player's invitation to a group shows as a badge
on the profile, and the mini ranking accepts it and opens the group's table (ON-G02, ON-G07). The app finds the server by VELHA_SERVER and trusts its
certificate by VELHA_SERVER_CA.

Usage: python3 tests/native/online.py APP_BINARY SERVER_BINARY OUT_DIR"""

import json
import os
import ssl
import stat
import subprocess
import sys
import tempfile
import time
import urllib.request

from xwindow import sky, tools

APP, SERVER, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(OUT, exist_ok=True)
DISPLAY = ":95"
data, home = tempfile.mkdtemp(), tempfile.mkdtemp()
server_env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
server = subprocess.Popen([SERVER, "--listen", "127.0.0.1:0", "--data-dir", data, "--argon2-memory-kib", "256"],
                          stdout=subprocess.PIPE, text=True, env=dict(server_env, RUST_LOG="warn"))
url = server.stdout.readline().strip().removeprefix("velha-server listening on ")
env = dict(os.environ, DISPLAY=DISPLAY, XDG_RUNTIME_DIR=tempfile.mkdtemp(), LANG="pt_BR.UTF-8", HOME=home,
           XDG_DATA_HOME=os.path.join(home, "data"), VELHA_SERVER=url,
           VELHA_SERVER_CA=os.path.join(data, "dev-cert.pem"))
# No desktop session bus, so no credential store: the token goes to a file, and the log says so.
env.pop("DBUS_SESSION_BUS_ADDRESS", None)
# The window is 800x600; the account form's fields and button (style.css, at 1x).
ACCOUNT, EMAIL, PASSWORD, SUBMIT = (631, 28), (400, 152), (400, 231), (400, 288)
# The profile's "Jogar online"; the lobby's "Criar partida" and its first match's "Jogar".
PLAY_ONLINE, CREATE, FIRST_JOIN = (400, 260), (400, 191), (595, 240)
# The lobby's "Voltar"; the profile's "Mini ranking" and its badge; the invitation's "Aceitar";
# then the first group, the own group's "Criar grupo" under it, and the group's "Jogar no grupo".
BACK, MINI_RANKING, BADGE, ACCEPT = (183, 33), (400, 314), (274, 311), (194, 153)
FIRST_GROUP, CREATE_GROUP, PLAY_GROUP = (400, 125), (400, 387), (400, 132)


xdo, grab, wait_for, launch = tools(env, OUT)


def alert(rgb):
    return rgb[0] - rgb[2] > 30


def profile_heading(image):
    """The yellow "Jogo online" heading of the profile."""
    return any(r > 200 and g > 150 and b < 100 for x in range(150, 265) for y in range(208, 228)
               for r, g, b in [image.getpixel((x, y))])


def start_app():
    return launch(APP, "app.log", "home")


def type_into(field, text):
    xdo("mousemove", *field, "click", 1)
    time.sleep(0.5)
    xdo("key", "ctrl+a", "BackSpace")
    xdo("type", "--delay", "30", text)


tls = ssl.create_default_context(cafile=os.path.join(data, "dev-cert.pem"))


def post(path, body, token=None):
    headers = {"content-type": "application/json"}
    if token:
        headers["authorization"] = "Bearer " + token
    answer = urllib.request.urlopen(urllib.request.Request(
        url + path, method="POST", headers=headers, data=json.dumps(body).encode()), context=tls)
    return json.loads(answer.read() or b"null")


def subscribe(name):
    subprocess.run([SERVER, "--data-dir", data, "admin", "subscription", "grant", name, "--until",
                    "2099-01-01"], check=True, capture_output=True, env=server_env)


post("/api/accounts", {"email": "bia@example.com", "password": "cubo-gira-9", "name": "Bia", "region": "pt-BR"})
caio = post("/api/accounts", {"email": "caio@example.com", "password": "cubo-gira-9", "name": "Caio",
                              "region": "pt-BR"})
subscribe("Caio")
xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1024x768x24"], stdout=subprocess.DEVNULL,
                        stderr=subprocess.DEVNULL)
time.sleep(1)
app = None
try:
    app = start_app()
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("form", lambda im: sky(im.getpixel(SUBMIT)))
    type_into(EMAIL, "bia@example.com")
    type_into(PASSWORD, "senha-errada-9")
    xdo("mousemove", *SUBMIT, "click", 1)
    wait_for("wrong-password", lambda im: alert(im.getpixel((160, SUBMIT[1]))))
    type_into(PASSWORD, "cubo-gira-9")
    xdo("mousemove", SUBMIT[0], SUBMIT[1] + 57, "click", 1)  # below the sentence now
    wait_for("profile", profile_heading)
    session = os.path.join(home, "data", "cubo-da-velha", "session")
    mode = stat.S_IMODE(os.stat(session).st_mode)
    assert mode == 0o600 and os.path.getsize(session) > 20, (oct(mode), os.path.getsize(session))
    assert "no credential store" in open(os.path.join(OUT, "app.log")).read()
    app.terminate()
    app.wait(timeout=30)
    app = start_app()
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("profile-after-restart", profile_heading)
    # Subscribed: the profile opens the lobby, which shows a match as soon as it opens.
    subscribe("Bia")
    app.terminate()
    app.wait(timeout=30)
    app = start_app()
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("profile-subscriber", lambda im: sky(im.getpixel(PLAY_ONLINE)))
    xdo("mousemove", *PLAY_ONLINE, "click", 1)
    wait_for("lobby", lambda im: sky(im.getpixel(CREATE)) and not sky(im.getpixel(FIRST_JOIN)))
    post("/api/lobby", {"scope": "mundial", "level": 1}, caio["token"])
    wait_for("lobby-with-caio", lambda im: sky(im.getpixel(FIRST_JOIN)))
    group = post("/api/groups", {"name": "Turma do Caio", "with_velha": True}, caio["token"])
    post(f"/api/groups/{group['id']}/invitations", {"name": "Bia"}, caio["token"])
    xdo("mousemove", *BACK, "click", 1)
    wait_for("home-again", lambda im: sky(im.getpixel((271, 342))))
    xdo("mousemove", *ACCOUNT, "click", 1)
    wait_for("profile-invitation-badge", lambda im: alert(im.getpixel(BADGE)))
    xdo("mousemove", *MINI_RANKING, "click", 1)
    wait_for("groups-invitation", lambda im: sky(im.getpixel(ACCEPT)))
    xdo("mousemove", *ACCEPT, "click", 1)
    wait_for("groups-accepted", lambda im: sky(im.getpixel(CREATE_GROUP)) and not sky(im.getpixel(ACCEPT)))
    xdo("mousemove", *FIRST_GROUP, "click", 1)
    wait_for("group-table", lambda im: sky(im.getpixel(PLAY_GROUP)))
    print("native online: 6 passed, 0 failed")
finally:
    if app:
        app.terminate()
    xvfb.terminate()
    server.terminate()
