#!/usr/bin/env bash
# Every test of the workspace, installing what is missing. Called by .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."

# One build cache outside the clone, shared by CI runs and sessions.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

step "toolchain"
command -v cargo >/dev/null || { echo "cargo is missing: install Rust with rustup" >&2; exit 1; }
if ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy

# The cube's render tests draw on a software Vulkan device when there is no GPU.
if ! ls /usr/share/vulkan/icd.d/lvp_icd*.json >/dev/null 2>&1; then
  step "installing mesa-vulkan-drivers (software Vulkan for the render tests)"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq mesa-vulkan-drivers libvulkan1 >/dev/null
fi
# Without a desktop session the Vulkan loader complains about this on every device it opens.
export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"

# The browser tests: Debian's chromium driven by Playwright (Python), never a downloaded browser.
if ! command -v chromium >/dev/null; then
  step "installing chromium"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null
fi
# The native build's smoke test: a real X window on Xvfb, driven by xdotool, seen by import.
if ! command -v Xvfb >/dev/null || ! command -v xdotool >/dev/null || ! command -v import >/dev/null; then
  step "installing xvfb, xdotool and imagemagick"
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq xvfb xdotool imagemagick >/dev/null
fi
python3 -c "import playwright, pytest, PIL" 2>/dev/null || python3 -m pip install -q playwright pytest pillow
# The server's tests run on SQLite and on this PostgreSQL.
source scripts/test-postgres.sh
step "PostgreSQL for the server's tests"
start_test_postgres

step "format"
cargo fmt --all --check

step "lint"
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo clippy -p cubo-da-velha --target wasm32-unknown-unknown --locked -- -D warnings

# One build of the workspace with its features unified, which the tests, the load bench and
# the native smoke test all reuse.
step "build"
cargo build --workspace --locked

step "tests"
cargo test --workspace --locked

step "the server's load bench, small: 50 matches over real WebSockets"
"$CARGO_TARGET_DIR/debug/velha-load" --matches 50 --moves 30 --argon2-memory-kib 256

step "the rules, the opponents, the cube view and the API types build for the browser"
cargo check -p velha-rules -p velha-ai -p velha-cube-view -p velha-api --lib --target wasm32-unknown-unknown --locked

step "web build"
bash scripts/build-web.sh

step "browser tests (phone size, touch)"
E2E_SHOTS="$CARGO_TARGET_DIR/e2e-shots" python3 -m pytest -q tests/e2e

step "native app under Xvfb (software Vulkan): click and drag on the cube"
python3 tests/native/smoke.py "$CARGO_TARGET_DIR/debug/cubo-da-velha" "$CARGO_TARGET_DIR/debug/cube-view" "$CARGO_TARGET_DIR/native-shots"

step "done"
