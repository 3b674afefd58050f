"""A real RTSP server on loopback for the network-camera tests: GStreamer's gst-rtsp-server
through PyGObject (Debian's python3-gi and gir1.2-gst-rtsp-server-1.0).

Each mount streams videotestsrc's 75% SMPTE bars, live at 30 fps, in the colorimetry its name
says, as H.264 (x264, RTP payload type 96) or MJPEG (RTP/JPEG, RFC 2435):
/h264-bt601-720, /h264-bt709-720, /mjpeg-bt601-720, /mjpeg-bt709-720, and /h264-bt709-1080.
videotestsrc writes the bars in the matrix of its caps, limited range; x264enc says the matrix in
the stream's VUI; JPEG cannot say it (JFIF is BT.601 full range), so a reader must be told.

usage: rtsp_server.py PORT     (prints "ready" once it listens; stops on SIGTERM)
"""

import signal
import sys

import gi

gi.require_version("Gst", "1.0")
gi.require_version("GstRtspServer", "1.0")
from gi.repository import GLib, Gst, GstRtspServer  # noqa: E402

Gst.init(None)
port = sys.argv[1]
server = GstRtspServer.RTSPServer()
server.set_address("127.0.0.1")
server.set_service(port)
mounts = server.get_mount_points()


def mount(path, launch):
    factory = GstRtspServer.RTSPMediaFactory()
    factory.set_launch(launch)
    factory.set_shared(True)  # one encoder however many clients
    mounts.add_factory(path, factory)


SIZES = {"720": (1280, 720), "1080": (1920, 1080)}
for size, (width, height) in SIZES.items():
    for matrix in ("bt601", "bt709"):
        raw = (
            f"videotestsrc is-live=true pattern=smpte75 ! "
            f"video/x-raw,width={width},height={height},framerate=30/1,format=I420,colorimetry={matrix}"
        )
        mount(
            f"/h264-{matrix}-{size}",
            f"( {raw} ! x264enc tune=zerolatency speed-preset=ultrafast key-int-max=30 ! "
            f"rtph264pay name=pay0 pt=96 config-interval=1 )",
        )
        mount(f"/mjpeg-{matrix}-{size}", f"( {raw} ! jpegenc quality=90 ! rtpjpegpay name=pay0 pt=26 )")

if server.attach(None) == 0:
    sys.exit(f"cannot listen on 127.0.0.1:{port}")
loop = GLib.MainLoop()
GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGTERM, loop.quit)
print("ready", flush=True)
loop.run()
