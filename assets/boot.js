// Starts the app. A file of its own, not an inline script, so the Content-Security-Policy can
// allow only the site's own scripts.
import init, { initSync } from "./pkg/cubo-da-velha.js";

// The online screens are wasm modules of their own (src/lazy.rs) that share the app's memory:
// their loader (pkg/__wasm_split.js) reaches the app's exports through this.
globalThis.velhaApp = { initSync };

// The cube's painter (WebGL2) is a wasm module of its own: fetched once the first screen
// answers, so the first load carries only the app. A failed fetch is tried again when the
// cube's canvas asks again (src/platform/canvas_web.rs asks while it fails).
// (The browser may remember a module that failed to load: a retry asks under a new address.)
// Its wasm is fetched beside its glue, not one round trip after it.
let painter;
let failures = 0;
let came;
const painterCame = new Promise((resolve) => (came = resolve));
const importPainter = () => {
  const wasm = fetch(new URL("./pkg/velha_cube_paint_bg.wasm", import.meta.url));
  // Nobody awaits the wasm when the glue failed first: its failure is not an unhandled one.
  wasm.catch(() => {});
  return import("./pkg/velha_cube_paint.js" + (failures ? `?retry=${failures}` : "")).then(
    async (module) => {
      await module.default({ module_or_path: wasm });
      came();
      return module;
    },
  );
};
const loadPainter = () =>
  (painter ??= importPainter().catch((e) => {
    painter = undefined;
    failures += 1;
    throw e;
  }));
// A canvas whose ask failed waits for this too: the painter may come by another ask.
window.velhaPainterCame = () => painterCame;
// The app calls this when the cube's screen opens and when its canvas needs the painter
// (src/platform/canvas_web.rs). Until what it asked for has come (or failed), the modules the
// app fetches ahead of need wait (`velhaPainterAsked`, src/app.rs): the cube a player opened
// does not share the network with screens nobody opened yet. A download that stalls on a weak
// signal holds them 15 s at most from the start of that download, all of them together.
let asked;
let askedAt = 0;
window.velhaPainter = () => {
  if (painter === undefined) askedAt = performance.now();
  return (asked = loadPainter());
};
window.velhaPainterAsked = () =>
  Promise.race([
    (asked ?? Promise.resolve()).then(
      () => {},
      () => {},
    ),
    new Promise((resolve) => setTimeout(resolve, Math.max(0, askedAt + 15000 - performance.now()))),
  ]);

// The online screens' and how to play's modules go first: the app asks for them as it starts and calls this when
// they have arrived or could not (src/lazy.rs); the painter follows, so they never share the
// network (a player who opens the cube meanwhile asks for the painter at once, and they wait).
let onlineSettled;
const online = new Promise((resolve) => (onlineSettled = resolve));
window.velhaOnlineSettled = () => onlineSettled();

const started = init();
// Offline play is a bonus: a browser that refuses the worker (a certificate it does not trust,
// a private window) still runs the app. It registers once the painter is here, so its copy of
// every file never competes with the first load (and then comes from the HTTP cache).
started
  .then(() => online)
  .then(loadPainter)
  .catch((e) => console.warn("the cube's painter did not load:", e))
  .finally(() => {
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register("sw.js").catch((e) => console.warn("no offline copy:", e));
    }
  });

// Notices while the app is closed (docs/push.md): the push manager of the service worker's
// registration, for src/platform/push_web.rs. `subscribe` answers the subscription's JSON
// (endpoint and keys) or throws a reason the app turns into a sentence.
const pushManager = async () => {
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) throw new Error("unsupported");
  // A worker the browser refused (an untrusted certificate, a private window) is never ready.
  const late = new Promise((_, refuse) => setTimeout(() => refuse(new Error("unsupported")), 10000));
  const registration = await Promise.race([navigator.serviceWorker.ready, late]);
  return registration.pushManager;
};
const fromBase64Url = (text) => {
  const plain = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
  return Uint8Array.from(plain, (c) => c.charCodeAt(0));
};
window.velhaPush = {
  async subscribe(publicKey) {
    const manager = await pushManager();
    const key = fromBase64Url(publicKey);
    let subscription = await manager.getSubscription();
    // A subscription made for another server key would be refused by the push service.
    const same = (s) => {
      const had = s.options && s.options.applicationServerKey;
      return !had || new Uint8Array(had).every((b, i) => b === key[i]);
    };
    if (subscription && !same(subscription)) {
      await subscription.unsubscribe();
      subscription = null;
    }
    subscription ??= await manager.subscribe({ userVisibleOnly: true, applicationServerKey: key });
    return JSON.stringify(subscription.toJSON());
  },
  async unsubscribe() {
    const subscription = await (await pushManager()).getSubscription();
    if (subscription) await subscription.unsubscribe();
  },
};
