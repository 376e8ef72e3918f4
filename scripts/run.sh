#!/usr/bin/env bash
# Builds the web app and serves it on http://localhost:8080 (the game server will serve it
# over HTTPS once it exists). Everything a player needs runs in the browser.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build-web.sh
port="${PORT:-8080}"
echo "Cubo da Velha: http://localhost:$port/"
cd dist
exec python3 -m http.server "$port" --bind 127.0.0.1
