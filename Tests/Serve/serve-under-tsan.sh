#!/usr/bin/env bash
# eyedropper serve built with the thread sanitizer, under every kind of client at once for ten
# seconds (MJPEG and event streams, frame.jpg at two qualities, samples, status, metrics, bad
# requests, stream clients that stop reading and half-sent requests, both cut off by their
# timeouts), publishing to a Mosquitto broker that is stopped and started meanwhile and sending
# OSC to a port where nothing listens, then SIGTERM with streams open: passes when the sanitizer reported nothing and the
# server exited 0. Its locks are pthread mutexes (`Locked`), which the sanitizer understands.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps curl python3 mosquitto
# The build Scripts/test made (with the test targets it runs under the sanitizer, Package.swift;
# its C without debug information, -g0): the same flags, or every module would be built again.
EYEDROPPER_THREAD_SANITIZER_BUILD=1 swift build --sanitize=thread -Xcc -g0 --scratch-path .build/tsan --product eyedropper >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source Tests/Serve/start-serve.sh
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
broker_port=$(free_port)
printf 'listener %s 127.0.0.1\nallow_anonymous true\npersistence false\n%s' "$broker_port" \
  "$([ "$(id -u)" -eq 0 ] && echo 'user root')" >"$work/mosquitto.conf"
# status_until SECONDS PYTHON-CONDITION: polls serve's status until the condition (on `s`, the
# status) holds; fails, printing the status, after SECONDS. A deadline for what never comes: each
# waits for what it needs, which a sanitized debug build on a loaded machine takes its time over.
status_until() {
  python3 - "$port" "$1" "$2" <<'PY'
import json, sys, time, urllib.request
port, seconds, condition = sys.argv[1], float(sys.argv[2]), sys.argv[3]
deadline = time.monotonic() + seconds
while True:
    s = json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v1/status", timeout=30))
    if eval(condition):
        break
    if time.monotonic() > deadline:
        sys.exit(f"FAIL: not within {seconds:.0f} s: {condition}: {json.dumps(s)}")
    time.sleep(0.2)
PY
}
listening() { python3 -c 'import socket, sys; socket.create_connection(("127.0.0.1", int(sys.argv[1])), 1)' "$1" 2>/dev/null; }
mosquitto -c "$work/mosquitto.conf" >"$work/mosquitto.log" 2>&1 &
broker=$!
trap 'kill $broker 2>/dev/null || true; rm -rf "$work"' EXIT
deadline=$((SECONDS + 60))
until listening "$broker_port"; do
  [ $SECONDS -lt $deadline ] || { cat "$work/mosquitto.log" >&2; echo "FAIL: mosquitto does not listen" >&2; exit 1; }
  sleep 0.05
done
start_serve .build/tsan/debug/eyedropper "$work/serve.log" --source testpattern --size 640x480 \
  --stall-timeout 2 --header-timeout 2 --mqtt "mqtt://127.0.0.1:$broker_port" --mqtt-qos 1 --mqtt-queue 20 \
  --osc "127.0.0.1:$(free_port)"
trap 'kill $server $broker $(cat "$work/broker.pid" 2>/dev/null) 2>/dev/null || true; rm -rf "$work"' EXIT
# The publisher's paths while the broker is away and when it is back: stopped once serve
# publishes, started again once lines are dropped (the queue of 20 full).
(status_until 120 's["mqtt"]["published"] > 0'; kill $broker
 status_until 120 's["mqtt"]["dropped"] > 0'
 mosquitto -c "$work/mosquitto.conf" >>"$work/mosquitto.log" 2>&1 & echo $! >"$work/broker.pid") &
base="http://127.0.0.1:$port"
# The timeouts' paths too: two stream clients that stop reading (cut off by --stall-timeout, their
# places freed) and two half-sent requests (cut off by --header-timeout), held until the status
# counts both (two minutes at most): how soon a stalled stream's buffers fill follows the frame
# rate, and a sanitized debug build on a slow CPU captures a few frames a second.
python3 - "$port" <<'PY' &
import json, socket, sys, time, urllib.request
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
end = time.monotonic() + 120
while time.monotonic() < end:
    status = json.load(urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/api/v1/status", timeout=5))
    if status["stalledStreamsClosed"] >= 2 and status["headerTimeouts"] >= 2:
        break
    time.sleep(0.5)
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
wait $(jobs -p | grep -v "^$server\$" | grep -v "^$broker\$")
broker=$(cat "$work/broker.pid")
# The timeouts ran; the outputs ran their paths: connected again, lines dropped, bundles to a
# closed port failed.
status_until 120 's["stalledStreamsClosed"] >= 2 and s["headerTimeouts"] == 2'
status_until 120 's["mqtt"]["connected"] and s["mqtt"]["dropped"] > 0 and s["mqtt"]["published"] > 0 and s["osc"]["failed"] > 0'
# SIGTERM with streams open: once both have received something.
curl -s -N "$base/api/v1/stream.mjpg" >"$work/open.mjpg" &
curl -s -N "$base/api/v1/samples" >"$work/open.events" &
deadline=$((SECONDS + 120))
until [ -s "$work/open.mjpg" ] && [ -s "$work/open.events" ]; do
  [ $SECONDS -lt $deadline ] || { echo "FAIL: the streams opened before SIGTERM received nothing in 120 s" >&2; exit 1; }
  sleep 0.05
done
kill -TERM $server
status=0
wait $server || status=$?
kill $broker
wait
if grep -q "ThreadSanitizer" "$work/serve.log" || [ $status -ne 0 ]; then
  cat "$work/serve.log" >&2
  echo "FAIL: serve under the thread sanitizer: exit $status, $(grep -c 'WARNING: ThreadSanitizer' "$work/serve.log" || true) reports" >&2
  exit 1
fi
echo "serve under the thread sanitizer: no reports, exit 0"
