"""Turn notices with the app closed (docs/push.md, CLASSIC-R09) in Chromium: the page asks for
notifications at the player's tap and subscribes through the push manager; the server's notice
goes to a stand-in push service (tests/standins/webpush.py, which checks VAPID and decrypts
it); the notice it took is delivered to the app's service worker through the DevTools protocol
(`ServiceWorker.deliverPushMessage`) while no page of the app is open; the worker shows it, and
its click leads the app's window to the room.

Chromium here reaches no push service of its own, so the push manager's `subscribe` is stood in
at the edge: it answers a subscription the stand-in service made, as a browser's would be."""

import json
import os
import tempfile
import ssl
import urllib.error
import urllib.request

import pytest

from conftest import Served, shot, wait_for
from standins.webpush import PushStandIn
from test_rooms import new_room, phone

# The page's notifications and push manager: the permission is asked once, at the tap; the
# subscription is the stand-in service's, made for the key the page subscribes with.
PUSH_STUB = """
const kept = (name, fallback) => localStorage.getItem("__stub_" + name) ?? fallback;
const keep = (name, value) => localStorage.setItem("__stub_" + name, value);
window.__asked = () => Number(kept("asked", 0));
window.__unsubscribed = () => Number(kept("unsubscribed", 0));
const RealNotification = window.Notification;
class AskedNotification extends RealNotification {
    static get permission() { return kept("permission", "default"); }
    static requestPermission() {
        keep("asked", window.__asked() + 1);
        keep("permission", window.__answer || "granted");
        return Promise.resolve(kept("permission"));
    }
}
window.Notification = AskedNotification;
const subscription = (options) => ({
    options,
    toJSON: () => JSON.parse(window.__standin_subscription),
    unsubscribe: async () => {
        keep("unsubscribed", window.__unsubscribed() + 1);
        localStorage.removeItem("__stub_subscribed");
        return true;
    },
});
PushManager.prototype.getSubscription = async function () {
    return kept("subscribed", null) ? subscription({}) : null;
};
PushManager.prototype.subscribe = async function (options) {
    if (kept("permission") !== "granted") throw new DOMException("denied", "NotAllowedError");
    const key = btoa(String.fromCharCode(...new Uint8Array(options.applicationServerKey)))
        .replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, "");
    keep("subscribed", key);
    return subscription(options);
};
"""


# The test server's certificate is its own.
UNCHECKED = ssl._create_unverified_context()


@pytest.fixture(scope="module")
def pushing(server):
    """The stand-in push service and a server that sends to it (under the first server's
    certificate, which the test browser trusts)."""
    cert, key = (os.path.join(server.data, f) for f in ("dev-cert.pem", "dev-key.pem"))
    standin = PushStandIn()
    with tempfile.TemporaryDirectory() as data:
        served = Served(data, ["--push-services", standin.url, "--tls-cert", cert,
                               "--tls-key", key, "--signups-per-address-per-hour", "100000"],
                        postgres=False)
        yield standin, served
        served.stop()
    standin.close()


def server_key(served):
    with urllib.request.urlopen(served.url + "api/push/key", context=UNCHECKED) as answer:
        return json.load(answer)["public_key"]


def delete(served, subscription):
    """`DELETE /api/push/subscriptions/<id>`: its status."""
    request = urllib.request.Request(served.url + f"api/push/subscriptions/{subscription}",
                                     method="DELETE")
    try:
        with urllib.request.urlopen(request, context=UNCHECKED) as answer:
            return answer.status
    except urllib.error.HTTPError as e:
        return e.code


def bia_joins(browser, served, path, ana):
    """Bia's phone, in the room of `path` as O; Ana's page shows her turn."""
    bia = phone(browser, served, path)
    bia.click("[data-pick=rabisco]", timeout=30000)
    bia.fill("#room-name", "Bia")
    bia.click("[data-action=join-room]")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    return bia


def plays(page, cell):
    page.click(f"[data-cell={cell}]:enabled", timeout=15000)
    page.wait_for_selector("[data-status=their-turn]", timeout=15000)


def room_with_bia(browser, served, standin, answer="granted", locale="pt-BR"):
    """Ana's room with Bia in it, Ana having played a1 and waiting; Ana's subscription.
    `answer`: what Ana answers when the page asks for notifications."""
    subscription = standin.subscribe(server_key(served))
    stub = (PUSH_STUB + f"window.__answer = {json.dumps(answer)};"
            + f"window.__standin_subscription = {json.dumps(json.dumps(subscription))};")
    ana, path = new_room(browser, served, "nino", init_script=stub, locale=locale)
    # The worker, which the push will reach, controls the page once it is ready.
    ana.context.grant_permissions(["notifications"])
    bia = bia_joins(browser, served, path, ana)
    plays(ana, "a1")
    return ana, bia, path, subscription


def worker_of(context):
    return wait_for(lambda: next(iter(context.service_workers), None), timeout=30)


def test_classic_r09_a_closed_app_is_told_of_its_turn_and_the_notice_opens_the_room(browser, pushing):
    standin, served = pushing
    ana, bia, path, subscription = room_with_bia(browser, served, standin)
    room = path.rsplit("/", 1)[1]
    context = ana.context
    # Never asked unprompted: only the tap asks, once. It comes within the 2 s wait of the
    # notice of Bia's joining, and the app closes and Bia moves within it too: that notice is
    # old news by then (Ana played since), and only Bia's move is told.
    assert ana.evaluate("window.__asked()") == 0
    ana.click("[data-action=allow-alerts]")
    ana.wait_for_selector("[data-push=on]", timeout=15000)
    assert ana.evaluate("window.__asked()") == 1
    assert ana.evaluate("localStorage.getItem('__stub_subscribed')") == server_key(served)
    assert ana.query_selector("[data-action=allow-alerts]") is None
    shot(ana, "push-on")
    worker = worker_of(context)
    # A push reaches only an active worker: the page may be quicker than its first install.
    wait_for(lambda: worker.evaluate("self.registration.active?.state === 'activated'"))

    # Ana closes the app: no page of it is open. Bia plays; the server tells Ana's device.
    ana.close()
    bia.click("[data-cell=b1]:enabled", timeout=15000)
    told = wait_for(lambda: standin.messages(subscription["endpoint"]))
    assert len(told) == 1, told
    notice = told[0]["payload"]
    assert notice == {"title": "Sua vez!", "body": "Bia jogou no Jogo da Velha.",
                      "url": path, "tag": f"room-{room}"}
    assert not standin.refused()

    # The push service hands the notice to the browser: the worker shows it, with no page of
    # the app open. (A page of another origin holds the DevTools session.)
    blank = context.new_page()
    cdp = context.new_cdp_session(blank)
    registrations = []
    cdp.on("ServiceWorker.workerRegistrationUpdated",
           lambda e: registrations.extend(e["registrations"]))
    cdp.send("ServiceWorker.enable")
    origin = served.url.rstrip("/")
    registration = wait_for(lambda: next((r for r in registrations
                                          if r["scopeURL"].startswith(origin) and not r["isDeleted"]), None),
                            page=blank)
    cdp.send("ServiceWorker.deliverPushMessage", {
        "origin": origin, "registrationId": registration["registrationId"],
        "data": json.dumps(notice)})
    shown = wait_for(lambda: worker.evaluate(
        "self.registration.getNotifications().then(all => all.map(n => ({title: n.title, "
        "body: n.body, tag: n.tag, icon: n.icon, badge: n.badge, url: n.data.url})))"))
    assert shown == [{"title": "Sua vez!", "body": "Bia jogou no Jogo da Velha.",
                      "tag": f"room-{room}", "icon": origin + "/icons/icon-192.png",
                      "badge": origin + "/icons/badge-96.png", "url": path}]
    blank.close()

    # Ana comes back to the app's first screen, and taps the notice: the window is led to the
    # room, where it is her turn after Bia's b1.
    again = context.new_page()
    again.goto(served.url)
    again.wait_for_selector("[data-game=classic]", timeout=30000)
    wait_for(lambda: again.evaluate("navigator.serviceWorker.controller !== null"))
    worker.evaluate(
        "self.registration.getNotifications().then(([n]) => "
        "self.dispatchEvent(new NotificationEvent('notificationclick', {notification: n})))")
    again.wait_for_url(f"**{path}", timeout=15000)
    again.wait_for_selector("[data-status=your-turn]", timeout=15000)
    assert again.get_attribute("[data-cell=b1]", "aria-label") == "b1, O"
    assert worker.evaluate("self.registration.getNotifications().then(n => n.length)") == 0
    shot(again, "push-opened-room")

    # The settings row turns notices off: the browser unsubscribes and the server forgets the
    # device, so Bia's next move tells nobody.
    kept = json.loads(again.evaluate("localStorage.getItem('push-subscription')"))
    again.click("[data-action=push-off]")
    again.wait_for_selector("[data-push=on]", state="detached", timeout=5000)
    assert again.evaluate("window.__unsubscribed()") == 1
    assert again.evaluate("localStorage.getItem('push-subscription')") is None
    assert delete(served, kept["id"]) == 404, "the server forgot the device already"
    context.close()
    bia.context.close()


def test_classic_r09_a_refused_permission_is_told_not_silent(browser, pushing):
    standin, served = pushing
    ana, bia, _, _ = room_with_bia(browser, served, standin, answer="denied", locale="en-US")
    ana.click("[data-action=allow-alerts]")
    said = ana.wait_for_selector("[data-push=refused]", timeout=5000).inner_text()
    assert said == ("Notifications are blocked in this browser. To be told, allow this site's "
                    "notifications in the browser's settings.")
    assert ana.query_selector("[data-push=on]") is None
    assert ana.evaluate("window.__asked()") == 1
    shot(ana, "push-refused")
    ana.context.close()
    bia.context.close()


def test_classic_r09_the_page_open_when_the_guest_joins_is_not_told(browser, pushing):
    """A device already subscribed (from an earlier room) opens a new room: the page open on
    it is looking, so neither the guest's joining nor the guest's move, each left unanswered
    past its notice's wait, tells it anything; closed, it is told."""
    standin, served = pushing
    ana, bia, _, subscription = room_with_bia(browser, served, standin)
    endpoint = subscription["endpoint"]
    ana.click("[data-action=allow-alerts]")
    ana.wait_for_selector("[data-push=on]", timeout=15000)
    bia.context.close()
    ana, path = new_room(browser, served, "nino", page=ana)
    room = path.rsplit("/", 1)[1]
    # The room opened tells the server of its seat.
    wait_for(lambda: room in (ana.evaluate("localStorage.getItem('push-subscription')") or ""),
             page=ana)
    told_before = len(standin.messages(endpoint))

    # Bia joins: Ana's turn, which she leaves unplayed past the notice's wait; her page is open.
    bia = bia_joins(browser, served, path, ana)
    ana.wait_for_timeout(3500)
    assert standin.messages(endpoint)[told_before:] == []
    # Bia moves: again Ana's turn, again unplayed past the wait.
    plays(ana, "a1")
    plays(bia, "b1")
    ana.wait_for_selector("[data-status=your-turn]", timeout=15000)
    ana.wait_for_timeout(3500)
    assert standin.messages(endpoint)[told_before:] == []

    # Ana closes the app; Bia's next move is told.
    plays(ana, "a2")
    ana.context.close()
    bia.click("[data-cell=b2]:enabled", timeout=15000)
    told = wait_for(lambda: standin.messages(endpoint)[told_before:])
    assert [m["payload"]["body"] for m in told] == ["Bia jogou no Jogo da Velha."]
    assert told[0]["payload"]["url"] == path
    bia.context.close()
