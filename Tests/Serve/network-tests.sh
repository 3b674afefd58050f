#!/usr/bin/env bash
# eyedropper serve against clients that hold it without moving, over HTTP and HTTPS
# (Tests/Serve/slow_clients.py): 20 stalled stream clients, three rounds, with a new viewer
# streaming once they are cut off at --stall-timeout and the RSS flat; 300 half-sent request
# heads closed at --header-timeout while samples are answered (none waits behind them); a
# keep-alive connection closed at --idle-timeout; over HTTPS with a token, every endpoint 401
# without it and answered with it, and a half TLS handshake closed at --header-timeout; then,
# over HTTP and HTTPS in a network namespace whose tcp_rmem is Linux's default, an event-stream
# client that reads nothing cut off at --stall-timeout while one that reads every 2 s is served
# for 40 s. Each timeout is held to its lower bound (it never fires early) and waited for past it
# (on a loaded machine it may fire late): slow_clients.py says how. Short timeouts keep it quick.
# Needs root (for the namespace) and a release build (Scripts/test makes one).
# Run: Tests/Serve/network-tests.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3 openssl
work=.build/network
rm -rf "$work"
mkdir -p "$work"
source Tests/Serve/start-serve.sh
timeouts=(--stall-timeout 3 --header-timeout 2 --idle-timeout 3)

echo "over HTTP:"
start_serve .build/release/eyedropper "$work/serve-http.log" --source testpattern "${timeouts[@]}"
trap 'kill $server 2>/dev/null || true' EXIT
url="http://127.0.0.1:$port"
python3 Tests/Serve/slow_clients.py stalled "$url" "$server" 3 3
python3 Tests/Serve/slow_clients.py half "$url" 2 300
python3 Tests/Serve/slow_clients.py idle "$url" 3
kill -TERM $server
wait $server
trap - EXIT

echo "over HTTPS (a self-signed certificate for 127.0.0.1, made here):"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=127.0.0.1 \
  -addext subjectAltName=IP:127.0.0.1 -keyout "$work/key.pem" -out "$work/cert.pem" 2>"$work/openssl.log" \
  || { cat "$work/openssl.log" >&2; exit 1; }
openssl rand -hex 32 > "$work/token"
start_serve .build/release/eyedropper "$work/serve-https.log" --source testpattern "${timeouts[@]}" \
  --tls-cert "$work/cert.pem" --tls-key "$work/key.pem" --token-file "$work/token"
trap 'kill $server 2>/dev/null || true' EXIT
grep -q "on https://127.0.0.1:$port/" "$work/serve-https.log" || { echo "serve did not say https://" >&2; exit 1; }
url="https://127.0.0.1:$port"
# Every endpoint over HTTPS: 401 (with the JSON body) without the token, its own answer with it.
# (In process, EyedropperServerTests.AccessTests does the same over HTTP for every route and method.)
# answer METHOD PATH [TOKEN]: the status code, the body in $work/body. A stream answered 200 is
# read until its first part or event (the line that starts it), then left: up to a minute, the
# deadline of a request that never ends.
answer() {
  local auth=() first=""
  [ $# -gt 2 ] && auth=(-H "Authorization: Bearer $3")
  [ "$1" = PUT ] && auth+=(-H "Content-Type: application/json" --data '{"brightness": 128}')
  [ $# -gt 2 ] && case $2 in */stream.mjpg) first="^--eyedropperframe" ;; */samples) first="^data: {\"frame\"" ;; esac
  : >"$work/body"
  curl -s -N -D "$work/head" --max-time 60 --cacert "$work/cert.pem" -X "$1" "${auth[@]}" "$url$2" \
    | if [ -n "$first" ]; then grep -a -m1 -- "$first" >"$work/body" || true; else cat >"$work/body"; fi
  sed -n '1s|^HTTP/[0-9.]* \([0-9]*\).*|\1|p' "$work/head"
}
checked=0
while read -r method path with; do
  without=$(answer "$method" "$path")
  expected=401
  case $path in /|/healthz) expected=200 ;; esac
  [ "$without" = "$expected" ] || { echo "FAIL: $method $path over HTTPS without the token: $without, expected $expected" >&2; exit 1; }
  if [ "$expected" = 401 ] && ! grep -q '"parameter":"Authorization"' "$work/body"; then
    echo "FAIL: $method $path: the 401 body is $(cat "$work/body")" >&2; exit 1
  fi
  got=$(answer "$method" "$path" "$(cat "$work/token")")
  [ "$got" = "$with" ] || { echo "FAIL: $method $path over HTTPS with the token: $got, expected $with" >&2; exit 1; }
  # The streams' bodies, not only their heads: a part, an event.
  case $path in
    */stream.mjpg) grep -aq -- '--eyedropperframe' "$work/body" || { echo "FAIL: $path over HTTPS: no MJPEG part in a minute" >&2; exit 1; } ;;
    */samples) grep -aq '^data: {"frame"' "$work/body" || { echo "FAIL: $path over HTTPS: no event in a minute" >&2; exit 1; } ;;
  esac
  checked=$((checked + 1))
done <<'ROUTES'
GET / 200
GET /healthz 200
GET /api/v1/sample?at=0.5,0.5 200
GET /api/v1/samples 200
GET /api/v1/frame.jpg 200
GET /api/v1/stream.mjpg 200
GET /api/v1/status 200
GET /metrics 200
GET /api/v1/controls 200
PUT /api/v1/controls 409
POST /api/v1/controls/lock 409
GET /nothing-here 404
ROUTES
echo "HTTPS: $checked endpoints answer 401 without the token and their own status with it (409: the test pattern has no controls)"
export EYEDROPPER_CA="$work/cert.pem"
EYEDROPPER_TOKEN=$(cat "$work/token") python3 Tests/Serve/slow_clients.py stalled "$url" "$server" 3 2
EYEDROPPER_TOKEN=$(cat "$work/token") python3 Tests/Serve/slow_clients.py half "$url" 2 300
python3 Tests/Serve/slow_clients.py handshake "$url" 2
kill -TERM $server
wait $server
trap - EXIT

# The event stream's stalled client shows only in its receive window, and only while its window
# scale is 8 or less: Linux's default tcp_rmem (6 MiB, scale 7), which a host may have raised (at
# 16 MiB and more the window hides it). So these run in a namespace of their own with the default.
echo "event stream in a network namespace with Linux's default tcp_rmem:"
netns="eyedropper-net-$$"
ip netns add "$netns"
trap 'ip netns delete "$netns" 2>/dev/null || true' EXIT
ip -n "$netns" link set lo up
ip netns exec "$netns" sysctl -q -w net.ipv4.tcp_rmem="4096 131072 6291456"
printf '#!/bin/sh\nexec ip netns exec %s %s "$@"\n' "$netns" "$PWD/.build/release/eyedropper" > "$work/eyedropper-in-netns"
chmod +x "$work/eyedropper-in-netns"
for scheme in http https; do
  tls=()
  [ $scheme = https ] && tls=(--tls-cert "$work/cert.pem" --tls-key "$work/key.pem")
  start_serve "$work/eyedropper-in-netns" "$work/serve-events-$scheme.log" --source testpattern "${timeouts[@]}" "${tls[@]}"
  trap 'kill $server 2>/dev/null || true; ip netns delete "$netns" 2>/dev/null || true' EXIT
  ip netns exec "$netns" python3 Tests/Serve/slow_clients.py events "$scheme://127.0.0.1:$port" 3 40
  kill -TERM $server
  wait $server
done
ip netns delete "$netns"
trap - EXIT
