#!/usr/bin/env bash
# eyedropper serve built with the thread sanitizer, under every kind of client at once for ten
# seconds (MJPEG and event streams, frame.jpg at two qualities, samples, status, metrics, bad
# requests, stream clients that stop reading and half-sent requests, both cut off by their
# timeouts), then SIGTERM with streams open: passes when the sanitizer reported nothing and the
# server exited 0. Its locks are pthread mutexes (`Locked`), which the sanitizer understands.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps curl python3
swift build --sanitize=thread --scratch-path .build/tsan --product eyedropper >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source Tests/Serve/start-serve.sh
start_serve .build/tsan/debug/eyedropper "$work/serve.log" --source testpattern --size 640x480 \
  --stall-timeout 2 --header-timeout 2
base="http://127.0.0.1:$port"
# The timeouts' paths too: two stream clients that stop reading (cut off by --stall-timeout, their
# places freed) and two half-sent requests (cut off by --header-timeout), held for 8 seconds.
python3 - "$port" <<'PY' &
import socket, sys, time
held = []
for path in ("stream.mjpg", "stream.mjpg", "samples"):
    client = socket.socket()
    client.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    client.connect(("127.0.0.1", int(sys.argv[1])))
    client.sendall(f"GET /api/v1/{path} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
    held.append(client)
for _ in range(2):
    held.append(socket.create_connection(("127.0.0.1", int(sys.argv[1]))))
    held[-1].sendall(b"GET /api/v1/status HTTP/1.1\r\nHost: x\r\n")
time.sleep(8)
PY
for _ in 1 2 3; do curl -s -N --max-time 10 "$base/api/v1/stream.mjpg" >/dev/null & done
for _ in 1 2; do curl -s -N --max-time 10 "$base/api/v1/samples" >/dev/null & done
for _ in 1 2 3; do
  (end=$((SECONDS + 10))
   while [ $SECONDS -lt $end ]; do
     for path in "sample?at=0.5,0.5&radius=2" "frame.jpg" "frame.jpg?quality=50" status "sample?at=2,2"; do
       curl -s -o /dev/null "$base/api/v1/$path"
     done
     curl -s -o /dev/null "$base/metrics"
   done) &
done
wait $(jobs -p | grep -v "^$server\$")
curl -s "$base/api/v1/status" | python3 -c '
import json, sys
status = json.load(sys.stdin)
if status["stalledStreamsClosed"] < 2 or status["headerTimeouts"] != 2:
    sys.exit(f"FAIL: the timeouts did not run under the sanitizer: {status}")'
curl -s -N "$base/api/v1/stream.mjpg" >/dev/null &
curl -s -N "$base/api/v1/samples" >/dev/null &
sleep 1
kill -TERM $server
status=0
wait $server || status=$?
wait
if grep -q "ThreadSanitizer" "$work/serve.log" || [ $status -ne 0 ]; then
  cat "$work/serve.log" >&2
  echo "FAIL: serve under the thread sanitizer: exit $status, $(grep -c 'WARNING: ThreadSanitizer' "$work/serve.log" || true) reports" >&2
  exit 1
fi
echo "serve under the thread sanitizer: no reports, exit 0"
