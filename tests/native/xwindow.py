"""Driving the app's window under Xvfb: xdotool input, root-window screenshots, and waiting
for what a screenshot shows."""

import os
import subprocess
import time

from PIL import Image


def sky(rgb):
    """The sky blue of the app's primary buttons."""
    return rgb[2] > 200 and rgb[0] < 140


def tools(env, out):
    """`xdo`, `grab`, `wait_for` and `start_app` on the display in `env`, screenshots saved in
    `out`."""

    def xdo(*args):
        subprocess.run(["xdotool", *map(str, args)], env=env, check=True)

    def grab(name):
        path = os.path.join(out, f"{name}.png")
        subprocess.run(["import", "-window", "root", path], env=env, check=True)
        return Image.open(path).convert("RGB")

    def wait_for(name, test, seconds=60):
        """Screenshots until `test(image)` holds (software rendering takes seconds a frame)."""
        deadline = time.time() + seconds
        while time.time() < deadline:
            image = grab(name)
            if test(image):
                return image
            time.sleep(1)
        raise AssertionError(f"{name}: the screen never showed what was expected")

    def start_app(binary, log, home="home"):
        """Starts the app (its output appended to `log` in `out`), waits for the home screen
        (screenshot `home`) and gives its window the keyboard."""
        app = subprocess.Popen([binary], env=env, stdout=open(os.path.join(out, log), "a"),
                               stderr=subprocess.STDOUT)
        wait_for(home, lambda im: sky(im.getpixel((271, 342))))
        window = subprocess.run(["xdotool", "search", "--sync", "--name", "Dioxus"], env=env,
                                capture_output=True, text=True).stdout.split()[0]
        # Without a window manager nothing gives the window the keyboard.
        xdo("windowfocus", "--sync", window)
        return app

    return xdo, grab, wait_for, start_app
