"""A deploy under a page left open: a phone keeps the app for days, and every content-hashed
file of the build it runs is gone from the server after a deploy (a new build has new names)."""

import os
import re
import shutil
import tempfile

from conftest import DIST, Served, shot
from test_analysis import lose_to_quelonia


def deploy(root):
    """What a deploy does to the web root, as the server sees it: the analysis module (which a
    page fetches only when a panel first shows) renamed, so the old name is gone, a service
    worker of a new build listing the new files, and a shell that says which build it is."""
    pkg = os.path.join(root, "pkg")
    for name in os.listdir(pkg):
        if name.startswith("split_analysis-"):
            os.rename(os.path.join(pkg, name),
                      os.path.join(pkg, name.replace("split_analysis-", "split_analysis-new")))
    with open(os.path.join(root, "sw.js")) as f:
        worker = f.read()
    worker, builds = re.subn(r'const CACHE = "cubo-da-velha-[0-9a-f]+";',
                             'const CACHE = "cubo-da-velha-deployed";', worker)
    assert builds == 1
    worker = worker.replace('"pkg/split_analysis-', '"pkg/split_analysis-new')
    with open(os.path.join(root, "index.html")) as f:
        shell = f.read()
    shell = shell.replace("<head>", '<head>\n  <meta name="build" content="deployed">', 1)
    for name, text in (("sw.js", worker), ("index.html", shell)):
        with open(os.path.join(root, name), "w") as f:
            f.write(text)
        # The server sends a precompressed copy first: the old build's would still go.
        for packed in (".br", ".gz"):
            os.remove(os.path.join(root, name + packed))


def test_a_page_open_across_a_deploy_still_opens_the_screens_it_fetches_later(browser, server):
    """The page keeps running its build: the new service worker takes it over but keeps the
    build before's files, so a module the page fetches after the deploy (here the analysis,
    after a game lost) still comes; a reload runs the new build's shell."""
    with tempfile.TemporaryDirectory() as root, tempfile.TemporaryDirectory() as data:
        shutil.copytree(DIST, root, dirs_exist_ok=True)
        served = Served(data, ["--tls-cert", os.path.join(server.data, "dev-cert.pem"),
                               "--tls-key", os.path.join(server.data, "dev-key.pem")],
                        postgres=False, web_root=root)
        context = browser.new_context(viewport={"width": 360, "height": 640},
                                      device_scale_factor=2, is_mobile=True, has_touch=True,
                                      locale="pt-BR")
        try:
            phone = context.new_page()
            phone.goto(served.url)
            phone.evaluate("navigator.serviceWorker.ready.then(() => true)")
            if phone.evaluate("navigator.serviceWorker.controller === null"):
                phone.reload()
            phone.wait_for_function("navigator.serviceWorker.controller !== null",
                                    timeout=20000)
            lose_to_quelonia(phone)
            deploy(root)
            # The new worker takes the page over as it starts its activation; it has sorted the
            # caches once activated.
            phone.evaluate("""window.__taken = new Promise((resolve) => navigator.serviceWorker
                .addEventListener("controllerchange", resolve, { once: true }));
                navigator.serviceWorker.getRegistration().then((r) => r.update())""")
            phone.evaluate("""window.__taken.then(() => {
                const worker = navigator.serviceWorker.controller;
                return worker.state === "activated" || new Promise((resolve) => worker
                    .addEventListener("statechange", () => worker.state === "activated"
                        && resolve(true)));
            })""")
            assert len(phone.evaluate("caches.keys()")) == 2, "the build before is kept"
            # Only the worker's caches may answer: the browser's HTTP cache holds what the
            # worker fetched to fill its cache.
            context.new_cdp_session(phone).send("Network.clearBrowserCache")
            phone.click("[data-action=where-wrong]")
            phone.wait_for_selector("[data-analysis=done], [data-action=retry-analysis]",
                                    timeout=30000)
            shot(phone, "analysis-after-a-deploy")
            assert phone.locator("[data-analysis=done]").count() == 1, \
                phone.inner_text("[data-problem]")
            # The game's screen again (a reload opens the screen it was on), in the new build.
            phone.reload()
            phone.wait_for_selector("[data-cell]", timeout=30000)
            assert phone.locator("meta[name=build][content=deployed]").count() == 1, \
                "the new build's shell, not the build before's"
        finally:
            context.close()
            served.stop()
