#!/usr/bin/env bash
# Runs the product: builds the web app and starts the server, which serves it and the API over
# HTTPS at https://localhost:8443/ with SQLite in ./velha-data (a self-signed development
# certificate is made there on the first run: the browser asks to accept it once).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$HOME/.cache/velha/target}"
bash scripts/build-web.sh
cargo build -p velha-server --locked
port="${PORT:-8443}"
echo "Cubo da Velha: https://localhost:$port/"
exec "$CARGO_TARGET_DIR/debug/velha-server" --listen "127.0.0.1:$port" --web-root dist \
  --data-dir "${VELHA_DATA_DIR:-velha-data}"
