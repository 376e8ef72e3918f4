#!/usr/bin/env bash
# Builds the web app into dist/: wasm (the size-tuned `web` profile), the wasm-bindgen glue
# at exactly the version in Cargo.lock, wasm-opt from npm's binaryen, the static shell;
# every built asset renamed with its content hash (served as immutable), a service worker
# versioned by this build, and .br/.gz copies beside every text asset for the server.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"
# npm's binaryen: Debian 12's wasm-opt (108) cannot read what Rust 1.95 emits.
BINARYEN=132.0.0
TOOLS="$HOME/.cache/velha/npm"

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "installing wasm-bindgen-cli $want"
  cargo install wasm-bindgen-cli --version "$want"
fi
if ! command -v npm >/dev/null; then
  echo "installing nodejs and npm"
  sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
fi
# The splitter of the online screens' module, at the version that reads what the app's
# wasm_split_helpers (Cargo.lock) marks.
SPLIT_CLI=0.2.4
if ! cargo install --list | grep -qx "wasm_split_cli_support v$SPLIT_CLI:"; then
  echo "installing wasm-split-cli $SPLIT_CLI (wasm_split_cli_support)"
  cargo install --locked wasm_split_cli_support --version "$SPLIT_CLI" --features build-binary
fi
wasm_opt="$TOOLS/node_modules/.bin/wasm-opt"
if ! "$wasm_opt" --version 2>/dev/null | grep -q "version ${BINARYEN%%.*} "; then
  echo "installing binaryen $BINARYEN (npm)"
  npm install --silent --no-audit --no-fund --prefix "$TOOLS" "binaryen@$BINARYEN"
fi

# The app; its online screens, how to play and the analysis (src/lazy.rs), split off the app's wasm before
# wasm-bindgen, from the linker's relocations, and fetched right after the first screen or when
# one of them opens first; and the cube's painter (WebGL2), which the page fetches after the
# first screen answers (assets/boot.js).
cargo build --profile web --locked --target wasm32-unknown-unknown -p velha-cube-paint
cargo rustc --profile web --locked --target wasm32-unknown-unknown -p cubo-da-velha --bin cubo-da-velha \
  -- -C link-arg=--emit-relocs
rm -rf dist
mkdir -p dist/pkg
split=$CARGO_TARGET_DIR/wasm-split
rm -rf "$split"
wasm-split-cli --target web --out-name cubo-da-velha \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/web/cubo-da-velha.wasm" "$split"
# -O3, not -Oz: the Velha's and the tree search's speed is what the player waits for. The
# wasm features are read from the module itself (all features would let binaryen use ones
# browsers do not have).
opt() { "$wasm_opt" -O3 --strip-debug --strip-producers -o "$1.opt" "$1" && mv "$1.opt" "$1"; }
# The app keeps the linker's exports (its function table): the split modules import them.
wasm-bindgen --target web --no-typescript --keep-lld-exports --out-dir dist/pkg "$split/cubo-da-velha.wasm"
wasm-bindgen --target web --no-typescript --out-dir dist/pkg \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/web/velha_cube_paint.wasm"
opt dist/pkg/cubo-da-velha_bg.wasm
opt dist/pkg/velha_cube_paint_bg.wasm
# The split modules, and their loader (the glue imports it).
for module in "$split"/*.wasm; do
  [ "$(basename "$module")" = cubo-da-velha.wasm ] && continue
  cp "$module" dist/pkg/
  opt "dist/pkg/$(basename "$module")"
done
cp "$split/__wasm_split.js" dist/pkg/
# The splitter's many small shared chunks joined into a few files, each a request less.
node scripts/pack-chunks.mjs dist/pkg "$wasm_opt"
cp -r assets/index.html assets/boot.js assets/style.css assets/manifest.webmanifest assets/icons dist/

# Content-hashed names, innermost first: the glue names the wasm, boot.js imports the glue,
# index.html loads boot.js and the style sheet. Each rewrite must find what it rewrites.
hashed() { # FILE NAME_IN_REFERRER REFERRER...: renames FILE to name-HASH.ext and fixes each REFERRER
  local file=$1 old=$2 hash stem ext new referrer
  shift 2
  hash=$(sha256sum "$file" | cut -c1-12)
  stem=${old%.*} ext=${old##*.}
  new="$stem-$hash.$ext"
  mv "$file" "$(dirname "$file")/$(basename "${new}")"
  for referrer in "$@"; do
    grep -qF "$old" "$referrer" || { echo "build-web: $referrer does not name $old" >&2; exit 1; }
    sed -i "s|$old|$new|" "$referrer"
  done
}
hashed dist/pkg/cubo-da-velha_bg.wasm "cubo-da-velha_bg.wasm" dist/pkg/cubo-da-velha.js
# The loader fetches each split module by its name.
for module in dist/pkg/*.wasm; do
  case "$module" in *_bg-*.wasm | *_bg.wasm) continue ;; esac
  name=$(basename "$module")
  hashed "$module" "./$name" dist/pkg/__wasm_split.js
done
# The glue imports the loader; the loader finds the glue's exports through boot.js, not by an
# import of the glue, so every file's hash covers what it names (no cycle).
line='import { initSync } from "./cubo-da-velha.js";'
grep -qxF "$line" dist/pkg/__wasm_split.js || { echo "build-web: the loader does not import the glue as expected" >&2; exit 1; }
sed -i "s|^import { initSync } from \"./cubo-da-velha.js\";\$|const initSync = (...args) => globalThis.velhaApp.initSync(...args);|" dist/pkg/__wasm_split.js
# Only the glue's import names the file: its imports object keeps the wasm's module name.
hash=$(sha256sum dist/pkg/__wasm_split.js | cut -c1-12)
mv dist/pkg/__wasm_split.js "dist/pkg/__wasm_split-$hash.js"
grep -q '^import \* as [a-z0-9_]* from "./__wasm_split.js"$' dist/pkg/cubo-da-velha.js \
  || { echo "build-web: the glue does not import the loader as expected" >&2; exit 1; }
sed -i "s|^\(import \* as [a-z0-9_]* from \)\"./__wasm_split.js\"\$|\1\"./__wasm_split-$hash.js\"|" dist/pkg/cubo-da-velha.js
hashed dist/pkg/cubo-da-velha.js "./pkg/cubo-da-velha.js" dist/boot.js
# boot.js fetches the painter's wasm beside its glue.
hashed dist/pkg/velha_cube_paint_bg.wasm "velha_cube_paint_bg.wasm" dist/pkg/velha_cube_paint.js dist/boot.js
hashed dist/pkg/velha_cube_paint.js "./pkg/velha_cube_paint.js" dist/boot.js
hashed dist/boot.js "boot.js" dist/index.html
hashed dist/style.css "style.css" dist/index.html
# The glue and the wasm are fetched with the page, not one round trip after another.
glue=$(cd dist && ls pkg/cubo-da-velha-*.js) wasm=$(cd dist && ls pkg/cubo-da-velha_bg-*.wasm)
sed -i "s|</head>|  <link rel=\"modulepreload\" href=\"$glue\">\n  <link rel=\"preload\" href=\"$wasm\" as=\"fetch\" type=\"application/wasm\" crossorigin>\n</head>|" dist/index.html

build=$(cat dist/pkg/*.wasm dist/pkg/*.js dist/*.js dist/*.css dist/index.html | sha256sum | cut -c1-12)
files=$(cd dist && find . -type f ! -name sw.js | sed 's|^\./||' | sort | sed 's/.*/"&"/' | paste -sd, -)
sed -e "s/__BUILD__/$build/" -e "s|__FILES__|$files|" assets/sw.js > dist/sw.js
node scripts/precompress.mjs dist
for wasm in dist/pkg/*.wasm; do
  echo "$(basename "$wasm"): $(stat -c %s "$wasm") bytes, $(stat -c %s "$wasm.br") brotli"
done
echo "built dist/ ($(du -sh --exclude='*.br' --exclude='*.gz' dist | cut -f1)), build $build"
