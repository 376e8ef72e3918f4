// Keeps the app shell so local play works offline. The build writes its own version into
// CACHE, so a new build replaces the old files instead of mixing with them.
const CACHE = "cubo-da-velha-__BUILD__";
// Every file of the build (the build script lists them), so nothing is fetched offline.
const SHELL = ["./", __FILES__];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

// The build before this one stays until the next: a page left open across a deploy (a phone
// keeps the app for days) still runs it, and the modules it fetches later have new names now,
// the old ones gone from the server.
self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      // In the order they were made: the last but this one's is the build before.
      .then((keys) => keys.filter((k) => k !== CACHE).slice(0, -1))
      .then((older) => Promise.all(older.map((k) => caches.delete(k))))
      .then(() => self.clients.claim())
  );
});

// The shell from the cache first (it works offline). The API, the live socket and other
// origins (Google's sign-in script) are left to the browser: nothing of theirs is cached.
self.addEventListener("fetch", (event) => {
  if (event.request.method !== "GET") return;
  const url = new URL(event.request.url);
  if (url.origin !== self.location.origin || url.pathname.startsWith("/api/")) return;
  // Every screen has its own address (/cubo, /grupos/<id>, /sala/<id>…), and each is the app
  // shell: a reload of any of them opens the kept one, offline too.
  // This build's shell, not the one before's.
  if (event.request.mode === "navigate") {
    event.respondWith(
      caches.open(CACHE).then((cache) => cache.match("./")).then((hit) => hit || fetch(event.request))
    );
    return;
  }
  // This build's files first (the names it shares with the build before: the icons, the
  // manifest), then the build before's.
  event.respondWith(
    caches
      .open(CACHE)
      .then((cache) => cache.match(event.request, { ignoreSearch: true }))
      .then((hit) => hit || caches.match(event.request, { ignoreSearch: true }))
      .then((hit) => hit || fetch(event.request))
  );
});

// A notice from the server while no page may be open (docs/push.md): the payload is what the
// notification shows and where it leads, nothing more. The badge counts the notices shown.
self.addEventListener("push", (event) => {
  // A push must show something (browsers penalise silent ones): a notice that does not read
  // still opens the app.
  let notice = {};
  try {
    notice = event.data.json() || {};
  } catch {}
  // Only a path of this app: "//elsewhere" would leave it.
  const url = typeof notice.url === "string" && /^\/(?!\/)/.test(notice.url) ? notice.url : "/";
  event.waitUntil(
    self.registration
      .showNotification(String(notice.title || "Cubo da Velha"), {
        body: String(notice.body || ""),
        tag: String(notice.tag || url),
        icon: "/icons/icon-192.png",
        badge: "/icons/badge-96.png",
        renotify: true,
        data: { url },
      })
      .then(() => self.registration.getNotifications())
      .then((shown) => self.navigator.setAppBadge && self.navigator.setAppBadge(shown.length))
      .catch(() => {})
  );
});

// A tap opens the notice's room: in a window of the app already open (brought to the front
// and led there), or a new one.
self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const url = new URL((event.notification.data && event.notification.data.url) || "/", self.location.origin).href;
  event.waitUntil(
    self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(async (windows) => {
      const there = windows.find((w) => w.url === url) || windows.find((w) => new URL(w.url).origin === self.location.origin);
      if (self.navigator.clearAppBadge) {
        const left = await self.registration.getNotifications();
        if (left.length === 0) self.navigator.clearAppBadge().catch(() => {});
        else self.navigator.setAppBadge(left.length).catch(() => {});
      }
      if (there) {
        const focused = await there.focus().catch(() => there);
        if (focused.url === url) return focused;
        // Only a window the worker controls can be led; another gets a window of its own.
        return focused.navigate(url).catch(() => self.clients.openWindow(url));
      }
      return self.clients.openWindow(url);
    })
  );
});
