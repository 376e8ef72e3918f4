#!/usr/bin/env bash
# Every test of the workspace, installing what is missing. Called by .ci/run.
#
#   bash scripts/test.sh                 everything (format, lint, every stage below)
#   bash scripts/test.sh rules           rules, opponents, engine and API types
#   bash scripts/test.sh server          the server on SQLite and PostgreSQL, its load bench
#   bash scripts/test.sh web             the web build in chromium at phone size
#   bash scripts/test.sh native          the cube view on software Vulkan, the desktop app
set -euo pipefail
cd "$(dirname "$0")/.."

STAGE="${1:-all}"
case "$STAGE" in
  all | rules | server | web | native) ;;
  *) echo "usage: bash scripts/test.sh [rules|server|web|native]" >&2; exit 2 ;;
esac
wants() { [ "$STAGE" = all ] || [ "$STAGE" = "$1" ]; }

# One build cache outside the clone, shared by CI runs and sessions.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"
export CARGO_TERM_COLOR="${CARGO_TERM_COLOR:-never}"

step() { printf '\n== %s (%ss)\n' "$1" "$SECONDS"; }

# Installs the Debian packages of the arguments that are not installed yet, in one apt run.
apt_install() {
  local missing=() package
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ ${#missing[@]} -eq 0 ] && return
  step "installing ${missing[*]}"
  local sudo=""; [ "$(id -u)" = 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

step "toolchain"
command -v cargo >/dev/null || { echo "cargo is missing: install Rust with rustup" >&2; exit 1; }
if { wants web || [ "$STAGE" = all ]; } && ! rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi
rustup component list --installed 2>/dev/null | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed 2>/dev/null | grep -q '^clippy' || rustup component add clippy

# The cube's render tests and the desktop app draw on a software Vulkan device when there is
# no GPU; the desktop app runs in a real X window on Xvfb, driven by xdotool, seen by import.
if wants native; then
  # Google sign-in's test: curl is the "system browser", gnome-keyring the credential store.
  apt_install mesa-vulkan-drivers libvulkan1 xvfb xdotool imagemagick curl openssl dbus \
    gnome-keyring libsecret-tools
  # Without a desktop session the Vulkan loader complains about this on every device it opens.
  export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
fi
# The browser tests: Debian's chromium driven by Playwright (Python), never a downloaded
# browser; the e2e suite also renders the cube with the cube-view binary on software Vulkan.
if wants web; then
  apt_install chromium fonts-dejavu-core mesa-vulkan-drivers libvulkan1
  # The web build's wasm-opt comes from npm; a Node.js from elsewhere (with its own npm) will do.
  command -v npm >/dev/null || apt_install nodejs npm
  export XDG_RUNTIME_DIR="${XDG_RUNTIME_DIR:-$(mktemp -d)}"
  python3 -c "import playwright, pytest, PIL, cryptography" 2>/dev/null \
    || python3 -m pip install -q playwright pytest pillow cryptography
fi
if wants native; then
  python3 -c "import PIL, cryptography" 2>/dev/null || python3 -m pip install -q pillow cryptography
fi
# The server's tests run on SQLite and on this PostgreSQL; its cluster tests start their own
# PostgreSQL and put nginx in front of several server processes.
if wants server; then
  # The payment tests run the Stripe stand-in (tests/standins/stripe.py, standard library only);
  # the push and e-mail tests theirs (webpush.py decrypts with cryptography, smtp.py is aiosmtpd).
  apt_install nginx-light python3
  python3 -c "import cryptography, aiosmtpd" 2>/dev/null || python3 -m pip install -q cryptography aiosmtpd
  source scripts/test-postgres.sh
  step "PostgreSQL for the server's tests"
  start_test_postgres
fi

if [ "$STAGE" = all ]; then
  step "format"
  cargo fmt --all --check

  step "lint"
  cargo clippy --workspace --all-targets --locked -- -D warnings
  cargo clippy -p cubo-da-velha -p velha-cube-paint --target wasm32-unknown-unknown --locked -- -D warnings

  step "no OpenSSL in the app for phones or desktops (rustls only)"
  for target in aarch64-linux-android x86_64-unknown-linux-gnu; do
    if cargo tree --locked -p cubo-da-velha --target "$target" -e normal --prefix none \
      | grep -E '^(openssl-sys|native-tls) '; then
      echo "the app for $target depends on OpenSSL" >&2
      exit 1
    fi
  done

  # The crates a phone build shares compile for Android (the app itself also needs the NDK's C
  # compiler for ring, which Debian does not package; see the README).
  step "the rules, the opponents, the cube view and the API types build for Android"
  if rustup target list --installed 2>/dev/null | grep -qx aarch64-linux-android \
    || rustup target add aarch64-linux-android; then
    cargo check -p velha-rules -p velha-ai -p velha-cube-view -p velha-api --lib \
      --target aarch64-linux-android --locked
  else
    echo "SKIPPED: rustup could not install the aarch64-linux-android target (no network?)" >&2
  fi

  # One build of the workspace with its features unified, which the tests, the load bench
  # and the native smoke test all reuse.
  step "build"
  cargo build --workspace --locked

  step "tests"
  cargo test --workspace --locked
else
  step "build and test: $STAGE"
  case "$STAGE" in
    rules) cargo test --locked -p velha-rules -p velha-ai -p velha-engine -p velha-api ;;
    server) cargo test --locked -p velha-server ;;
    web) cargo build --locked -p velha-server -p velha-cube-view ;;
    native)
      cargo test --locked -p velha-cube-view
      cargo build --locked -p cubo-da-velha -p velha-cube-view -p velha-server
      ;;
  esac
fi

if wants server; then
  step "the server's load bench, small: 50 matches over real WebSockets"
  [ "$STAGE" = all ] || cargo build --locked -p velha-server -p velha-load
  "$CARGO_TARGET_DIR/debug/velha-load" --matches 50 --moves 30 --argon2-memory-kib 256
fi

if wants web; then
  step "the rules, the opponents, the cube view and the API types build for the browser"
  cargo check -p velha-rules -p velha-ai -p velha-cube-view -p velha-api --lib --target wasm32-unknown-unknown --locked

  step "web build"
  bash scripts/build-web.sh

  step "the wasm a phone downloads stays within its budget (scripts/wasm-brotli-budget-kb)"
  python3 scripts/wasm-budget.py

  step "the online screens' texts and the games' rules stay out of the app's first module"
  # A rule of how to play and online texts, of both languages: each must be in some module
  # (else the check looks for nothing) and not in the app's, which every first visit waits for.
  for marker in "Tudo o que você precisa saber" "Everything you need to know" \
    "O login com Google está fora do ar agora" \
    "for every participant: the table, every match played in it"; do
    grep -lqF "$marker" dist/pkg/*.wasm || { echo "no module holds \"$marker\"" >&2; exit 1; }
    if grep -qF "$marker" dist/pkg/cubo-da-velha_bg-*.wasm; then
      echo "the app's first module holds \"$marker\"" >&2
      exit 1
    fi
  done

  step "browser tests (phone size, touch)"
  E2E_SHOTS="$CARGO_TARGET_DIR/e2e-shots" python3 -m pytest -q tests/e2e

  if [ -n "${VELHA_TEST_POSTGRES_URL:-}" ]; then
    step "browser tests of accounts, Google sign-in, online play, the mini ranking, rooms, 2.0 competitive and subscribing, the server on PostgreSQL"
    E2E_DATABASE_URL=$(new_test_database velha_e2e) E2E_SHOTS="$CARGO_TARGET_DIR/e2e-shots-pg" \
      E2E_QUICK_DATABASE_URL=$(new_test_database velha_e2e_quick) \
      E2E_PAYMENTS_DATABASE_URL=$(new_test_database velha_e2e_payments) \
      python3 -m pytest -q tests/e2e/test_account.py tests/e2e/test_google.py tests/e2e/test_online.py \
      tests/e2e/test_groups.py tests/e2e/test_rooms.py tests/e2e/test_competitive.py \
      tests/e2e/test_subscription.py
  fi
fi

if wants native; then
  step "native app under Xvfb (software Vulkan): click and drag on the cube"
  python3 tests/native/smoke.py "$CARGO_TARGET_DIR/debug/cubo-da-velha" "$CARGO_TARGET_DIR/debug/cube-view" "$CARGO_TARGET_DIR/native-shots"

  step "native app under Xvfb: signing in and the lobby against a local server"
  python3 tests/native/online.py "$CARGO_TARGET_DIR/debug/cubo-da-velha" "$CARGO_TARGET_DIR/debug/velha-server" "$CARGO_TARGET_DIR/native-shots"

  step "native app under Xvfb: Google sign-in in the system browser (PKCE), the token in the keyring"
  python3 tests/native/google.py "$CARGO_TARGET_DIR/debug/cubo-da-velha" "$CARGO_TARGET_DIR/debug/velha-server" "$CARGO_TARGET_DIR/native-shots"
fi

step "done"
