#!/usr/bin/env bash
# Builds the web app into dist/: wasm (release), the wasm-bindgen glue at exactly the version
# in Cargo.lock, the static shell, and a service worker versioned by this build.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"

rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown || rustup target add wasm32-unknown-unknown
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/[^0-9.]/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{ print $2 }' || true)
if [ "$have" != "$want" ]; then
  echo "installing wasm-bindgen-cli $want"
  cargo install wasm-bindgen-cli --version "$want"
fi

cargo build --release --locked --target wasm32-unknown-unknown -p cubo-da-velha
rm -rf dist
mkdir -p dist
wasm-bindgen --target web --no-typescript --out-dir dist/pkg \
  "$CARGO_TARGET_DIR/wasm32-unknown-unknown/release/cubo-da-velha.wasm"
# wasm-opt shrinks the bundle when a recent enough one is installed (Debian 12's binaryen 108
# cannot read what Rust 1.95 emits); without it the bundle works, only larger.
if command -v wasm-opt >/dev/null; then
  if wasm-opt -Oz --all-features -o dist/pkg/opt.wasm dist/pkg/cubo-da-velha_bg.wasm 2>/dev/null; then
    mv dist/pkg/opt.wasm dist/pkg/cubo-da-velha_bg.wasm
  else
    rm -f dist/pkg/opt.wasm
    echo "wasm-opt $(wasm-opt --version | awk '{print $3}') cannot read this build; the bundle is not shrunk"
  fi
fi
cp -r assets/index.html assets/boot.js assets/style.css assets/manifest.webmanifest assets/icons dist/
build=$(cat dist/pkg/cubo-da-velha_bg.wasm dist/pkg/cubo-da-velha.js dist/boot.js dist/index.html dist/style.css | sha256sum | cut -c1-12)
files=$(cd dist && find . -type f ! -name sw.js | sed 's|^\./||' | sort | sed 's/.*/"&"/' | paste -sd, -)
sed -e "s/__BUILD__/$build/" -e "s|__FILES__|$files|" assets/sw.js > dist/sw.js
echo "built dist/ ($(du -sh dist | cut -f1)), build $build"
