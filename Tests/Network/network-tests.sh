#!/usr/bin/env bash
# Network cameras against real servers on loopback: GStreamer's RTSP server (rtsp_server.py)
# streaming H.264 and MJPEG in BT.601 and BT.709, and eyedropper serve's own MJPEG over HTTP.
#   - readings through --source rtsp:// equal those of the same stream decoded by ffmpeg to a .y4m
#     read with the matrix given: within 1 level for H.264 (its decoding is exact), 2 for MJPEG;
#     the bars within 4 levels of 75% (a wrong matrix is 20 or more off); H.264 says its matrix;
#   - the server stopped and started again mid-stream: with --reconnect, samples are back within
#     5 s of the restart, and stderr says the outage once;
#   - 1080p30 H.264 for SOAK_SECONDS (default 60): frames missing from the stream's 30 a second
#     (at most 1), and the CPU eyedropper took per frame (utime + stime over the frames);
#   - serve's /api/v1/stream.mjpg read back through --source http://: the bars within 2 levels;
#   - clear errors: a refused address (69), a path the server does not have (66), a URL that is
#     not video (65), FFmpeg's libraries not installed (69, naming the packages; libavformat
#     hidden in a mount namespace, where the test pattern still runs).
# Needs a release build (Scripts/test makes one). Run under flock /tmp/eyedropper-heavy.lock.
# Prints PASS/FAIL lines and, last, `N passed, M failed`.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
Scripts/install-deps ffmpeg curl python3 python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-base \
  gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly
E=$ROOT/.build/release/eyedropper
SOAK_SECONDS=${SOAK_SECONDS:-60}
work=$ROOT/.build/network-cameras
rm -rf "$work" && mkdir -p "$work"
passed=0 failed=0
pass() { echo "PASS $*"; passed=$((passed + 1)); }
fail() { echo "FAIL $*"; failed=$((failed + 1)); }
free_port() { /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
# Waits until the command succeeds, every 50 ms, for at most $1 seconds.
wait_for() { local deadline=$((SECONDS + $1)); shift; until "$@"; do [ $SECONDS -lt $deadline ] || return 1; sleep 0.05; done; }

PORT=$(free_port)
rtsp=""  # not `server`: start_serve (below) sets that to serve's pid
start_server() {
  # Debian's python3 (PyGObject is its package), whatever python3 comes first on PATH.
  # Stopped by the EXIT trap whatever happens: left behind, it would hold the caller's flock.
  /usr/bin/python3 Tests/Network/rtsp_server.py "$PORT" > "$work/server.log" 2>&1 &
  rtsp=$!
  wait_for 20 grep -q ready "$work/server.log" || { cat "$work/server.log"; echo "the RTSP server did not start" >&2; exit 1; }
}
stop_server() { kill -TERM "$rtsp" 2>/dev/null || true; wait "$rtsp" 2>/dev/null || true; }
pids=()
trap 'stop_server; for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done' EXIT
start_server
URL=rtsp://127.0.0.1:$PORT

# videotestsrc's 75% SMPTE bars: seven of width/7 over the top two thirds.
BARS=(--at 0.0714,0.3 --at 0.2143,0.3 --at 0.3571,0.3 --at 0.5,0.3 --at 0.6429,0.3 --at 0.7857,0.3 --at 0.9286,0.3 --radius 4)
COLOURS=(191,191,191 191,191,0 0,191,191 0,191,0 191,0,191 191,0,0 0,0,191)

echo "--- rtsp:// against ffmpeg's decoding of the same stream"
for codec in h264 mjpeg; do
  for matrix in bt601 bt709; do
    name=$codec-$matrix-720
    tolerance=$([ $codec = h264 ] && echo 1 || echo 2)
    # H.264 says its matrix (x264 writes the caps' colorimetry in the VUI); JPEG cannot, so both
    # readers are told: the bars are limited range whatever JFIF says.
    told=(); [ $codec = mjpeg ] && told=(--matrix "$matrix" --range limited)
    if ! "$E" sample --source "$URL/$name" --skip 30 --frames 3 "${BARS[@]}" "${told[@]}" > "$work/$name.rtsp" 2> "$work/$name.err"; then
      fail "$name: eyedropper exited $?: $(tail -1 "$work/$name.err")"; continue
    fi
    ffmpeg -v error -rtsp_transport tcp -i "$URL/$name" -frames:v 33 -f yuv4mpegpipe -y "$work/$name.y4m"
    "$E" sample --source "$work/$name.y4m" --matrix "$matrix" --range limited "${BARS[@]}" > "$work/$name.ffmpeg" 2>/dev/null
    if [ $codec = h264 ] && ! tail -1 "$work/$name.rtsp" | grep -q "\"matrix\":\"$matrix\",\"range\":\"limited\""; then
      fail "$name: the stream's colorimetry was not read: $(tail -1 "$work/$name.rtsp" | head -c 120)"; continue
    fi
    if out=$(python3 Tests/Network/compare.py "$work/$name.rtsp" "$work/$name.ffmpeg" "$tolerance" "${COLOURS[@]}" 4); then
      pass "$name: rtsp:// and ffmpeg's .y4m within $tolerance: $out"
    else
      fail "$name: $out"
    fi
  done
done

echo "--- the server restarted mid-stream (--reconnect)"
"$E" sample --source "$URL/h264-bt709-720" --reconnect --at 0.5,0.3 > "$work/reconnect.jsonl" 2> "$work/reconnect.err" &
sampler=$!; pids+=("$sampler")
lines() { wc -l < "$work/reconnect.jsonl"; }
# Asked again at every try (wait_for runs its command each time).
at_least() { [ "$(lines)" -ge "$1" ]; }
if wait_for 20 at_least 10; then
  stop_server
  wait_for 10 grep -q "waiting for it to come back" "$work/reconnect.err" || true
  sleep 1  # down for a while, as a camera rebooting is
  before=$(lines); restarted=$EPOCHREALTIME
  start_server
  if wait_for 10 at_least $((before + 1)); then
    back=$(awk -v a="$EPOCHREALTIME" -v b="$restarted" 'BEGIN{printf "%.2f", a-b}')
    outages=$(grep -c "waiting for it to come back" "$work/reconnect.err" || true)
    if awk -v s="$back" 'BEGIN{exit !(s <= 5)}' && [ "$outages" = 1 ] && grep -q ": back" "$work/reconnect.err"; then
      pass "reconnect: samples back ${back} s after the server restarted; the outage said once, and its end"
    else
      fail "reconnect: back after ${back} s, outage said $outages times: $(cat "$work/reconnect.err")"
    fi
  else
    fail "reconnect: no sample within 10 s of the restart: $(tail -3 "$work/reconnect.err")"
  fi
else
  fail "reconnect: fewer than 10 lines before the restart: $(tail -3 "$work/reconnect.err")"
fi
kill -INT "$sampler" 2>/dev/null; wait "$sampler" 2>/dev/null || true

echo "--- 1080p30 H.264 for $SOAK_SECONDS s"
frames=$((SOAK_SECONDS * 30 + 1))
/usr/bin/python3 - "$E" "$URL/h264-bt709-1080" "$frames" "$work/soak.jsonl" <<'PY' > "$work/soak.txt" 2> "$work/soak.err" || true
import json, resource, subprocess, sys
binary, url, frames, out = sys.argv[1:5]
with open(out, "w") as lines:
    status = subprocess.run([binary, "sample", "--source", url, "--frames", frames, "--at", "0.5,0.3", "--skip", "30"], stdout=lines).returncode
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
stamps = [json.loads(line)["timestamp"] for line in open(out)]
seconds = stamps[-1] - stamps[0]
missing = round(seconds * 30) - (len(stamps) - 1)
gaps = sum(1 for a, b in zip(stamps, stamps[1:]) if b - a > 1.5 / 30)
print(f"{len(stamps)} frames over {seconds:.2f} s: {missing} missing from 30 a second (gaps over 1.5 frames: {gaps}); "
      f"CPU {(usage.ru_utime + usage.ru_stime) / len(stamps) * 1000:.2f} ms a frame "
      f"({(usage.ru_utime + usage.ru_stime) / seconds * 100:.1f}% of a core); exit {status}")
sys.exit(0 if status == 0 and missing <= 1 else 1)
PY
if grep -q "exit 0" "$work/soak.txt" && awk '{exit !($6 <= 1)}' "$work/soak.txt"; then
  pass "1080p30: $(cat "$work/soak.txt")"
else
  fail "1080p30: $(cat "$work/soak.txt") $(tail -2 "$work/soak.err")"
fi

echo "--- serve's own MJPEG over http://"
source Tests/Serve/start-serve.sh
start_serve "$E" "$work/serve.log" --source testpattern --size 1280x720
pids+=("$server")
# The test pattern's eight bars of width/8.
PATTERN=(--at 0.0625,0.3 --at 0.1875,0.3 --at 0.3125,0.3 --at 0.4375,0.3 --at 0.5625,0.3 --at 0.6875,0.3 --at 0.8125,0.3 --at 0.9375,0.3 --radius 4)
PATTERN_COLOURS=(191,191,191 191,191,0 0,191,191 0,191,0 191,0,191 191,0,0 0,0,191 0,0,0)
if "$E" sample --source "http://127.0.0.1:$port/api/v1/stream.mjpg" --frames 3 "${PATTERN[@]}" > "$work/http.jsonl" 2> "$work/http.err"; then
  if out=$(python3 Tests/Network/compare.py "$work/http.jsonl" "$work/http.jsonl" 0 "${PATTERN_COLOURS[@]}" 2); then
    pass "http://: serve's MJPEG stream read back, every bar within 2 levels"
  else
    fail "http://: $out"
  fi
else
  fail "http://: exited $?: $(tail -1 "$work/http.err")"
fi

echo "--- errors that say what to do"
check_error() { # name, want status, want text, source
  local status=0
  "$E" sample --source "$4" --frames 1 > /dev/null 2> "$work/error.txt" || status=$?
  if [ $status = "$2" ] && grep -q "$3" "$work/error.txt"; then pass "$1: exit $status: $(cat "$work/error.txt")"
  else fail "$1: exit $status (want $2): $(cat "$work/error.txt")"; fi
}
closed=$(free_port)
check_error "a refused address" 69 "cannot be reached (Connection refused)" "rtsp://127.0.0.1:$closed/stream"
check_error "a path the server does not have" 66 "no such stream on the server" "$URL/nothing-here"
check_error "a URL that is not video" 65 "not a video stream" "http://127.0.0.1:$port/api/v1/status"

echo "--- FFmpeg not installed (its libavformat hidden in a mount namespace of the check's own)"
# FFmpeg is loaded when a network camera is opened, not linked: without it the test pattern still
# runs (a binary that linked it would not start), and a network camera names the packages, exit 69.
hidden=/usr/lib/x86_64-linux-gnu/libavformat.so.$(pkg-config --modversion libavformat | cut -d. -f1)
if ! unshare -m true 2> /dev/null; then
  echo "SKIPPED FFmpeg not installed: unshare -m is not allowed here (needs root): not run"
else
  without_ffmpeg() { unshare -m sh -c 'mount --bind /dev/null "$0" && exec "$@"' "$hidden" "$@"; }
  if ! without_ffmpeg "$E" sample --source testpattern --frames 1 --at 0.5,0.5 > "$work/no-ffmpeg.jsonl" 2> "$work/no-ffmpeg.err" \
    || [ "$(grep -c . "$work/no-ffmpeg.jsonl")" != 1 ]; then
    fail "without FFmpeg, the test pattern: exited or printed no line: $(tail -2 "$work/no-ffmpeg.err")"
  else
    pass "without FFmpeg, the test pattern is sampled"
  fi
  status=0
  without_ffmpeg "$E" sample --source "$URL/h264-bt709-720" --frames 1 > /dev/null 2> "$work/error.txt" || status=$?
  if [ $status = 69 ] && grep -q "not installed (.*): sudo apt install libavformat[0-9]* libavcodec[0-9]* libavutil[0-9]*" "$work/error.txt"; then
    pass "without FFmpeg, a network camera: exit 69: $(cat "$work/error.txt")"
  else
    fail "without FFmpeg, a network camera: exit $status (want 69 naming the packages): $(cat "$work/error.txt")"
  fi
fi

echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
