"""Driving the app's window under Xvfb: xdotool input, root-window screenshots, and waiting
for what a screenshot shows."""

import os
import subprocess
import time

from PIL import Image


def tools(env, out):
    """`xdo`, `grab` and `wait_for` on the display in `env`, screenshots saved in `out`."""

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

    return xdo, grab, wait_for
