#!/usr/bin/env bash
# Runs Debian's nginx in the foreground with deploy/nginx.conf in front of velha-server
# processes on loopback: the tests' and the benches' load balancer.
#
#   bash scripts/balancer.sh DIR PORT CERT KEY SERVER_PORT...
#
# DIR receives the rendered configuration, nginx's pid, logs and temporary files; nginx
# listens on 127.0.0.1:PORT with CERT and KEY and passes requests to the servers' ports.
# VELHA_CONNECTIONS_PER_ADDRESS replaces the shipped limit a client address has (256): a
# bench's players all come from this machine.
set -euo pipefail
[ $# -ge 5 ] || { echo "usage: bash scripts/balancer.sh DIR PORT CERT KEY SERVER_PORT..." >&2; exit 2; }
dir=$1 port=$2 cert=$3 key=$4
shift 4
here="$(cd "$(dirname "$0")/.." && pwd)"
nginx=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$nginx" ] || { echo "nginx is missing: apt-get install nginx-light" >&2; exit 1; }
mkdir -p "$dir"

# deploy/nginx.conf as shipped, with these servers, this address and these certificates.
upstreams=""
for server in "$@"; do
  upstreams+="    server 127.0.0.1:$server max_fails=1 fail_timeout=2s;\n"
done
sed -e "/^    server velha[0-9]*:8443/d" \
  -e "s|^upstream velha {|upstream velha {\n$upstreams|" \
  -e "s|listen 443 ssl;|listen 127.0.0.1:$port ssl;|" \
  -e "s|/etc/velha/tls/cert.pem|$cert|" \
  -e "s|/etc/velha/tls/key.pem|$key|" \
  -e "s|limit_conn velha_per_address [0-9]*;|limit_conn velha_per_address ${VELHA_CONNECTIONS_PER_ADDRESS:-256};|" \
  "$here/deploy/nginx.conf" >"$dir/velha.conf"

user=""
[ "$(id -u)" = 0 ] && user="user root;"
cat >"$dir/nginx.conf" <<CONF
$user
daemon off;
worker_processes auto;
worker_rlimit_nofile $(ulimit -Hn);
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections $(( $(ulimit -Hn) - 100 )); }
http {
    access_log off;
    client_body_temp_path $dir/body;
    proxy_temp_path $dir/proxy;
    fastcgi_temp_path $dir/fastcgi;
    uwsgi_temp_path $dir/uwsgi;
    scgi_temp_path $dir/scgi;
    include $dir/velha.conf;
}
CONF
exec "$nginx" -p "$dir" -c "$dir/nginx.conf"
