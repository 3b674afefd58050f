import EyedropperCapture

/// Network cameras for `FrameSource`: `rtsp://` (H.264, H.265, MJPEG, whatever libavcodec
/// decodes to 4:2:0) and MJPEG over `http://`, through FFmpeg's libavformat and libavcodec.
///
/// A library of its own so that a program that never reads a network camera never links it; and
/// FFmpeg's libraries are loaded only when the first network camera is opened, so that a run
/// without one never loads them (nor the hundred-odd libraries they need), and a machine without
/// them reads every other source. A program calls `bootstrap()` once, before it makes a
/// `FrameSource`.
public enum NetworkSource {
    /// Makes every `FrameSource` open network cameras through FFmpeg. Loads nothing yet: the first
    /// stream opened loads FFmpeg's libraries and quiets FFmpeg's own log (its messages become the
    /// errors Eyedropper throws, which name the URL and what to do); when they are missing, opening
    /// throws a `CaptureError` that names the Debian packages to install (exit status 69).
    public static func bootstrap() {
        NetworkStreams.bootstrap { url, timeout, isStopped in
            try FFmpegStream(url: url, timeoutMilliseconds: timeout, isStopped: isStopped)
        }
    }
}
