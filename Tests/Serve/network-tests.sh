#!/usr/bin/env bash
# eyedropper serve against clients that hold it without moving, over HTTP and HTTPS
# (Tests/Serve/slow_clients.py): 20 stalled stream clients, three rounds, with a new viewer
# streaming within --stall-timeout + 2 s and the RSS flat; 300 half-sent request heads closed at
# --header-timeout while samples stay under 10 ms; a keep-alive connection closed at
# --idle-timeout; a half TLS handshake closed at --header-timeout. Short timeouts keep it quick:
# the bars are relative to them. Needs a release build (Scripts/test makes one).
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
start_serve .build/release/eyedropper "$work/serve-https.log" --source testpattern "${timeouts[@]}" \
  --tls-cert "$work/cert.pem" --tls-key "$work/key.pem"
trap 'kill $server 2>/dev/null || true' EXIT
grep -q "on https://127.0.0.1:$port/" "$work/serve-https.log" || { echo "serve did not say https://" >&2; exit 1; }
url="https://127.0.0.1:$port"
export EYEDROPPER_CA="$work/cert.pem"
python3 Tests/Serve/slow_clients.py stalled "$url" "$server" 3 1
python3 Tests/Serve/slow_clients.py half "$url" 2 300
python3 Tests/Serve/slow_clients.py handshake "$url" 2
kill -TERM $server
wait $server
trap - EXIT
