// Keeps the app shell so local play works offline. The build writes its own version into
// CACHE, so a new build replaces the old files instead of mixing with them.
const CACHE = "cubo-da-velha-__BUILD__";
// Every file of the build (the build script lists them), so nothing is fetched offline.
const SHELL = ["./", __FILES__];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((keys) => Promise.all(keys.filter((k) => k !== CACHE).map((k) => caches.delete(k))))
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
  if (event.request.mode === "navigate") {
    event.respondWith(caches.match("./").then((hit) => hit || fetch(event.request)));
    return;
  }
  event.respondWith(
    caches.match(event.request, { ignoreSearch: true }).then((hit) => hit || fetch(event.request))
  );
});
