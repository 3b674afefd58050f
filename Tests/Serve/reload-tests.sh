#!/usr/bin/env bash
# eyedropper serve reloading its TLS certificate on SIGHUP, from outside, over real sockets:
#   1. a new connection after the reload is served the new certificate (its SHA-256 fingerprint,
#      read by openssl s_client), and the token file's new token is asked for;
#   2. an MJPEG stream opened over HTTPS before the reload keeps receiving parts through it, on
#      the certificate it began with: never closed, 60 parts after the reload was answered (the
#      largest gap between parts around the reload is printed, not judged: on a loaded machine
#      any gap can be the load's);
#   3. a key that does not match the certificate fails the reload: the old certificate is still
#      served, and the status's reload names the files.
# One PASS or FAIL line a check; exit 1 on any FAIL. Needs a release build (Scripts/test makes one).
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps python3 openssl curl
work=.build/reload
rm -rf "$work"
mkdir -p "$work"
source Tests/Serve/start-serve.sh
failed=0
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1"; failed=1; }

certificate() {  # certificate NAME: a self-signed P-256 certificate for 127.0.0.1 and its key
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj "/CN=$1" \
    -addext subjectAltName=IP:127.0.0.1 -keyout "$work/$1.key" -out "$work/$1.pem" 2>"$work/openssl.log" \
    || { cat "$work/openssl.log" >&2; exit 1; }
}
reloaded() {  # reloaded N: the status once its reload count is N (asked for up to a minute), else the last one
  local status deadline=$((SECONDS + 60))
  while [ $SECONDS -lt $deadline ]; do
    status=$(curl -s --cacert "$work/second.pem" -H "Authorization: Bearer $(cat "$work/token")" "https://127.0.0.1:$port/api/v1/status")
    python3 -c 'import json,sys; sys.exit((json.loads(sys.argv[1]).get("reload") or {}).get("count") != int(sys.argv[2]))' \
      "$status" "$1" 2>/dev/null && break
    sleep 0.1
  done
  echo "$status"
}
fingerprint() { openssl x509 -noout -fingerprint -sha256 -in "$1" | cut -d= -f2; }
served() {  # the SHA-256 fingerprint of the certificate a new connection is served
  openssl s_client -connect "127.0.0.1:$port" -servername 127.0.0.1 </dev/null 2>/dev/null \
    | openssl x509 -noout -fingerprint -sha256 | cut -d= -f2
}
certificate first
certificate second
openssl rand -hex 32 > "$work/token"
cp "$work/first.pem" "$work/cert.pem"
cp "$work/first.key" "$work/key.pem"
cat > "$work/serve.conf" <<EOF
source testpattern
size 320x240
fps 20
tls-cert $PWD/$work/cert.pem
tls-key $PWD/$work/key.pem
token-file $PWD/$work/token
EOF
start_serve .build/release/eyedropper "$work/serve.log" --config "$work/serve.conf"
trap 'kill $server $stream 2>/dev/null || true' EXIT
[ "$(served)" = "$(fingerprint "$work/first.pem")" ] || { echo "the first certificate is not served" >&2; exit 1; }

# The stream before the reload: each part's arrival time, until $work/stop exists (or two
# minutes have passed), then "stopped"; "closed" if the server closed it.
: >"$work/parts.txt"
python3 - "$port" "$(cat "$work/token")" "$work/first.pem" "$work/stop" > "$work/parts.txt" 2>"$work/stream.log" <<'PY' &
import http.client, os, ssl, sys, time
port, token, ca, stop = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
context = ssl.create_default_context(cafile=ca)
connection = http.client.HTTPSConnection("127.0.0.1", int(port), context=context, timeout=30)
connection.request("GET", "/api/v1/stream.mjpg", headers={"Authorization": "Bearer " + token})
response = connection.getresponse()
end = time.monotonic() + 120
while time.monotonic() < end and not os.path.exists(stop):
    line = response.readline()
    if not line:
        print("closed", flush=True)
        break
    if line.startswith(b"--eyedropperframe"):
        print(f"{time.time():.3f}", flush=True)
else:
    print("stopped", flush=True)
PY
stream=$!
parts() { local n; n=$(grep -c '^[0-9]' "$work/parts.txt" 2>/dev/null); echo "${n:-0}"; }
# wait_for_parts N: until the stream has had N parts (or has ended, or a minute has passed).
wait_for_parts() {
  local deadline=$((SECONDS + 60))
  while [ "$(parts)" -lt "$1" ] && [ $SECONDS -lt $deadline ] && kill -0 "$stream" 2>/dev/null; do sleep 0.05; done
}
wait_for_parts 10
cp "$work/second.pem" "$work/cert.pem"
cp "$work/second.key" "$work/key.pem"
openssl rand -hex 32 > "$work/token"
reload_at=$(date +%s.%N)
kill -HUP "$server"
status=$(reloaded 1)
new=$(served)
[ "$new" = "$(fingerprint "$work/second.pem")" ] && pass "a new connection after the reload is served the new certificate" \
  || fail "a new connection after the reload: fingerprint $new, expected the second certificate's"
python3 -c 'import json,sys; r=json.loads(sys.argv[1])["reload"]; assert r["count"]==1 and r["errors"]==[], r' "$status" \
  && pass "the new token is asked for; the status says reload 1 with no errors" \
  || fail "status with the new token after the reload: $status"
answered=$(parts)
wait_for_parts $((answered + 60))
touch "$work/stop"
wait "$stream" || true
python3 - "$work/parts.txt" "$reload_at" <<'PY' && pass "$(cat "$work/parts-summary")" || fail "$(cat "$work/parts-summary")"
import sys
lines = open(sys.argv[1]).read().split()
reload_at = float(sys.argv[2])
times = [float(t) for t in lines if t not in ("closed", "stopped")]
before = sum(1 for t in times if t < reload_at)
after = len(times) - before
around = [b - a for a, b in zip(times, times[1:]) if reload_at - 1 <= b and a <= reload_at + 1]
ok = "closed" not in lines and before >= 10 and after >= 60
open(sys.argv[1].replace("parts.txt", "parts-summary"), "w").write(
    f"the MJPEG stream over HTTPS through the reload: {before} parts before, {after} after"
    f" (largest gap within a second of the reload {max(around, default=0) * 1000:.0f} ms at 20 fps),"
    f" {'closed by the server' if 'closed' in lines else 'never closed'}")
sys.exit(0 if ok else 1)
PY

# A key that is not the certificate's: the reload fails, the second certificate stays.
cp "$work/first.key" "$work/key.pem"
kill -HUP "$server"
status=$(reloaded 2)
kept=$(served)
[ "$kept" = "$(fingerprint "$work/second.pem")" ] && pass "a key that does not match fails the reload and the certificate served is kept" \
  || fail "after a failed reload: fingerprint $kept, expected the second certificate's"
python3 -c 'import json,sys; r=json.loads(sys.argv[1])["reload"]; assert r["count"]==2 and len(r["errors"])==1 and "key.pem" in r["errors"][0], r' "$status" \
  && pass "the status's reload names the key that failed" || fail "status after the failed reload: $status"
grep -q "eyedropper: reload: the certificate .*cert.pem and the private key .*key.pem cannot serve TLS together" "$work/serve.log" \
  && pass "stderr says which files failed" || { fail "stderr after the failed reload:"; cat "$work/serve.log"; }
kill -TERM "$server"
wait "$server" || { fail "serve exited $? after SIGTERM"; }
trap - EXIT
exit $failed
