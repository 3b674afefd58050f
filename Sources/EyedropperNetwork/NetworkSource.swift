internal import CFFmpeg
import EyedropperCapture

/// Network cameras for `FrameSource`: `rtsp://` (H.264, H.265, MJPEG, whatever libavcodec
/// decodes to 4:2:0) and MJPEG over `http://`, through FFmpeg's libavformat and libavcodec.
///
/// A library of its own so that a program that never reads a network camera never links FFmpeg:
/// a program that does calls `bootstrap()` once, before it makes a `FrameSource`.
public enum NetworkSource {
    /// Makes every `FrameSource` open network cameras through FFmpeg, and quiets FFmpeg's own log
    /// (its messages become the errors Eyedropper throws, which name the URL and what to do).
    public static func bootstrap() {
        av_log_set_level(AV_LOG_QUIET)
        NetworkStreams.bootstrap { url, timeout, isStopped in
            try FFmpegStream(url: url, timeoutMilliseconds: timeout, isStopped: isStopped)
        }
    }
}
