// Starts the app. A file of its own, not an inline script, so the Content-Security-Policy can
// allow only the site's own scripts.
import init from "./pkg/cubo-da-velha.js";

const started = init();
if ("serviceWorker" in navigator) {
  // Offline play is a bonus: a browser that refuses the worker (a certificate it does not
  // trust, a private window) still runs the app. It registers once the app runs, so its copy
  // of every file never competes with the first load (and then comes from the HTTP cache).
  started.then(() =>
    navigator.serviceWorker.register("sw.js").catch((e) => console.warn("no offline copy:", e))
  );
}
