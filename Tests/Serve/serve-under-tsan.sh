#!/usr/bin/env bash
# eyedropper serve built with the thread sanitizer, under every kind of client at once for ten
# seconds (MJPEG and event streams, frame.jpg at two qualities, samples, status, metrics, bad
# requests), then SIGTERM with streams open: passes when the sanitizer reported nothing and the
# server exited 0. Its locks are pthread mutexes (`Locked`), which the sanitizer understands.
set -euo pipefail
cd "$(dirname "$0")/../.."
Scripts/install-deps curl
swift build --sanitize=thread --scratch-path .build/tsan --product eyedropper >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
source Tests/Serve/start-serve.sh
start_serve .build/tsan/debug/eyedropper "$work/serve.log" --source testpattern --size 640x480
base="http://127.0.0.1:$port"
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
