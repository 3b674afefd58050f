#!/usr/bin/env bash
# FFmpeg against GStreamer for network cameras, on GStreamer's own RTSP server on loopback
# (Tests/Network/rtsp_server.py: 1080p30 75% bars, H.264 from x264 and MJPEG): the CPU a process
# takes per decoded 1920x1080 frame (ROUNDS alternating runs of FRAMES frames each), how the
# colorimetry arrives, and whether a frame is copied between the decoder and the application
# (GStreamer's avdec_h264 logs the buffers it decodes into and those it hands on).
#
#   Benchmarks/Probes/network-decoders.sh [ROUNDS] [FRAMES]     (under flock /tmp/eyedropper-heavy.lock)
set -euo pipefail
cd "$(dirname "$0")/../.."
rounds=${1:-3} frames=${2:-300}
Scripts/install-deps gcc pkg-config libavformat-dev libavcodec-dev libavutil-dev libgstreamer1.0-dev \
  libgstreamer-plugins-base1.0-dev python3-gi gir1.2-gst-rtsp-server-1.0 gstreamer1.0-plugins-good \
  gstreamer1.0-plugins-bad gstreamer1.0-plugins-ugly gstreamer1.0-libav
work=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; rm -rf "$work"' EXIT
gcc -O2 -o "$work/ffmpeg" Benchmarks/Probes/network-decode-ffmpeg.c $(pkg-config --cflags --libs libavformat libavcodec libavutil)
gcc -O2 -o "$work/gstreamer" Benchmarks/Probes/network-decode-gstreamer.c \
  $(pkg-config --cflags --libs gstreamer-1.0 gstreamer-app-1.0 gstreamer-video-1.0)
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
/usr/bin/python3 Tests/Network/rtsp_server.py "$port" > "$work/server.log" 2>&1 &
server=$!
for _ in $(seq 200); do grep -q ready "$work/server.log" && break; sleep 0.1; done
h264=rtsp://127.0.0.1:$port/h264-bt709-1080 mjpeg=rtsp://127.0.0.1:$port/mjpeg-bt709-1080
src="protocols=tcp latency=0"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg); $(nproc) cores"
for round in $(seq "$rounds"); do
  echo "--- round $round"
  "$work/ffmpeg" "$h264" "$frames" 1 | sed 's/^/H.264 /'
  "$work/gstreamer" "rtspsrc location=$h264 $src ! rtph264depay ! h264parse ! avdec_h264 max-threads=1 ! appsink name=s sync=false" "$frames" | sed 's/^/H.264 /'
  "$work/ffmpeg" "$mjpeg" "$frames" 1 | sed 's/^/MJPEG /'
  "$work/gstreamer" "rtspsrc location=$mjpeg $src ! rtpjpegdepay ! jpegdec ! appsink name=s sync=false" "$frames" | sed 's/^/MJPEG jpegdec /'
  "$work/gstreamer" "rtspsrc location=$mjpeg $src ! rtpjpegdepay ! avdec_mjpeg ! appsink name=s sync=false" "$frames" | sed 's/^/MJPEG avdec_mjpeg /'
done
echo "--- copies: GStreamer's avdec_h264, 30 frames (get_buffer2: where libavcodec decodes; get_output_buffer: a new buffer the frame is copied into)"
GST_DEBUG='libav:6,avvid*:6' "$work/gstreamer" "rtspsrc location=$h264 $src ! rtph264depay ! h264parse ! avdec_h264 ! appsink name=s sync=false" 30 \
  2>&1 >/dev/null | grep -oE 'get_output_buffer|gst_ffmpegviddec_get_buffer2:<[^>]*>[^ ]* linesize [1-9]' \
  | sed 's/:<.*//' | sort | uniq -c || echo "(no avdec_h264 debug lines: is gst-libav built with its debug log?)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
