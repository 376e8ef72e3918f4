"""The native (Blitz) build in a real X window (Xvfb, software Vulkan): open the cube, tap a
cell with the mouse, then turn its column with a mouse drag, checking the pixels each time;
then, the app opened again on a device that keeps no game (a local game is kept on the device
and would come back), a game against the Velha, who answers a tap (she thinks between
frames).

Usage: python3 tests/native/smoke.py APP_BINARY CUBE_VIEW_BINARY OUT_DIR"""

import json
import os
import subprocess
import sys
import tempfile
import time

from xwindow import tools

APP, CUBE_VIEW, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(OUT, exist_ok=True)
DISPLAY = ":97"
env = dict(os.environ, DISPLAY=DISPLAY, XDG_RUNTIME_DIR=tempfile.mkdtemp(), LANG="pt_BR.UTF-8")


def device():
    """A device of its own: nothing this or an earlier run kept (a game, the score)."""
    home = tempfile.mkdtemp()
    return dict(env, HOME=home, XDG_DATA_HOME=os.path.join(home, "data"))
# The window is 800x600 and the cube canvas fills its top 420 px (style.css, .cube-stage.native).
CANVAS = (800, 420)


xdo, grab, wait_for, _ = tools(env, OUT)


def is_x(rgb):
    r, g, b = rgb
    return b > 120 and b - r > 60


def is_o(rgb):
    r, g, b = rgb
    return r > 170 and g < 110 and b < 110


def is_white(rgb):
    return min(rgb) > 150 and max(rgb) - min(rgb) < 40


state = "." * 54 + " X L1 - x=0 o=0"
snap = subprocess.run([CUBE_VIEW, "snapshot", "--state", state, "--size", f"{CANVAS[0]}x{CANVAS[1]}",
                       "--out", os.path.join(OUT, "reference.png")], capture_output=True, text=True, check=True, env=env)
f1 = [round(v) for v in json.loads(snap.stdout)["F1"]]

xvfb = subprocess.Popen(["Xvfb", DISPLAY, "-screen", "0", "1024x768x24"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
time.sleep(1)
app = subprocess.Popen([APP], env=device(), stdout=open(os.path.join(OUT, "app.log"), "w"),
                       stderr=subprocess.STDOUT)
try:
    # Home → "Jogar" on Cubo da Velha → level 1, two players.
    wait_for("1-home", lambda im: im.getpixel((271, 342))[2] > 200)
    xdo("mousemove", 271, 342, "click", 1)
    time.sleep(3)
    xdo("mousemove", 400, 185, "click", 1)  # the third choice: Nível 1 · Dois jogadores
    cube = wait_for("2-cube", lambda im: is_white(im.getpixel(tuple(f1))))
    # A click on F1 marks a1 with X.
    xdo("mousemove", *f1, "click", 1)
    wait_for("3-tapped", lambda im: is_x(im.getpixel(tuple(f1))))
    # A drag down from F1 turns column a (L+): the X goes down onto D, a blank comes in.
    xdo("mousemove", *f1, "mousedown", 1)
    for step in range(1, 9):
        xdo("mousemove", f1[0], f1[1] + 8 * step)
        time.sleep(0.05)
    xdo("mouseup", 1)
    wait_for("4-turned", lambda im: is_white(im.getpixel(tuple(f1))))
    # The app again on a fresh device, the cube, level 1 against the Velha: she answers X.
    app.terminate()
    app.wait(timeout=10)
    app = subprocess.Popen([APP], env=device(), stdout=open(os.path.join(OUT, "app2.log"), "w"),
                           stderr=subprocess.STDOUT)
    wait_for("5-home", lambda im: im.getpixel((271, 342))[2] > 200)
    xdo("mousemove", 271, 342, "click", 1)
    time.sleep(3)
    xdo("mousemove", 400, 78, "click", 1)  # the first choice: Nível 1 · Contra a Velha
    wait_for("6-velha", lambda im: is_white(im.getpixel(tuple(f1))))
    # On a loaded machine the first frames of the screen may come after the tap: tap again
    # while the sticker is still white (a tap on a taken sticker is refused, harmlessly).
    for attempt in range(3):
        xdo("mousemove", *f1, "click", 1)
        try:
            wait_for("7-tapped", lambda im: is_x(im.getpixel(tuple(f1))), seconds=30)
            break
        except AssertionError:
            if attempt == 2:
                raise
    canvas = [(x, y) for x in range(0, CANVAS[0], 4) for y in range(0, CANVAS[1], 4)]
    wait_for("7-answered", lambda im: is_x(im.getpixel(tuple(f1))) and any(is_o(im.getpixel(p)) for p in canvas))
    print("native smoke: 4 passed, 0 failed")
finally:
    app.terminate()
    xvfb.terminate()
