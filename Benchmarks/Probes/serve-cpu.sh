#!/usr/bin/env bash
# The CPU and memory `eyedropper serve` takes on the 1920x1080 test pattern at 30 fps: utime +
# stime from /proc/PID/stat over SECONDS after a 5 s warm-up, per second and per frame captured,
# and the resident memory at the end. With "watch", one MJPEG client streams throughout. SOURCE
# (default the test pattern) is another source to serve, e.g. a network camera's rtsp:// URL.
#
#   Benchmarks/Probes/serve-cpu.sh .build/release/eyedropper 20          # nobody watching
#   Benchmarks/Probes/serve-cpu.sh .build/release/eyedropper 20 watch    # one MJPEG client
#   Benchmarks/Probes/serve-cpu.sh .build/release/eyedropper 20 "" rtsp://127.0.0.1:8554/h264-bt709-1080
set -euo pipefail
binary=$1 seconds=$2 watch=${3:-} source=${4:-testpattern}
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$binary" serve --source "$source" --size 1920x1080 --fps 30 --listen "127.0.0.1:$port" --log-level error &
server=$! client=
trap 'kill $server $client 2>/dev/null || true' EXIT
sleep 2
if [ "$watch" = watch ]; then
  curl -s -o /dev/null "http://127.0.0.1:$port/api/v1/stream.mjpg" &
  client=$!
fi
sleep 3
ticks() { awk '{print $14 + $15}' "/proc/$server/stat"; }
frames() { curl -s "http://127.0.0.1:$port/api/v1/status" | python3 -c 'import json, sys; print(json.load(sys.stdin)["framesCaptured"])'; }
ticks0=$(ticks) frames0=$(frames) start=$(date +%s.%N)
sleep "$seconds"
ticks1=$(ticks) frames1=$(frames) end=$(date +%s.%N)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$server/status")
python3 -c "
seconds = ($ticks1 - $ticks0) / $(getconf CLK_TCK)
print(f'{seconds / ($end - $start) * 100:.2f}% of a core, {seconds / ($frames1 - $frames0) * 1000:.3f} ms a frame '
      f'over {$frames1 - $frames0} frames, resident {$rss / 1024:.0f} MiB')"
