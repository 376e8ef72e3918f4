// Starts the app. A file of its own, not an inline script, so the Content-Security-Policy can
// allow only the site's own scripts.
import init from "./pkg/cubo-da-velha.js";

// The cube's painter (wgpu on WebGL2) is a wasm module of its own, most of the build's bytes:
// fetched once the first screen answers, so the first load carries only the app. A failed
// fetch is tried again the next time the cube screen opens.
// (The browser may remember a module that failed to load: a retry asks under a new address.)
let painter;
let failures = 0;
const loadPainter = () =>
  (painter ??= import("./pkg/velha_cube_paint.js" + (failures ? `?retry=${failures}` : ""))
    .then(async (module) => {
      await module.default();
      return module;
    })
    .catch((e) => {
      painter = undefined;
      failures += 1;
      throw e;
    }));
// The app calls this when the cube screen opens (src/platform/canvas_web.rs).
window.velhaPainter = loadPainter;

const started = init();
// Offline play is a bonus: a browser that refuses the worker (a certificate it does not trust,
// a private window) still runs the app. It registers once the painter is here, so its copy of
// every file never competes with the first load (and then comes from the HTTP cache).
started
  .then(loadPainter)
  .catch((e) => console.warn("the cube's painter did not load:", e))
  .finally(() => {
    if ("serviceWorker" in navigator) {
      navigator.serviceWorker.register("sw.js").catch((e) => console.warn("no offline copy:", e));
    }
  });
