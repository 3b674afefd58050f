internal import CFFmpeg
import EyedropperCapture

/// FFmpeg's error codes as Eyedropper's `CaptureError` kinds: what a user can act on.
enum FFmpegError {
    /// FFmpeg's own words for `code` ("Connection refused", "Server returned 404 Not Found").
    static func text(_ code: Int32, _ av: ed_ffmpeg) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        _ = av.av_strerror(code, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// An error opening `url`: `timedOut` when the interrupt callback ended a wait past its deadline.
    static func opening(_ url: String, _ code: Int32, timedOut: Bool, milliseconds: Int, _ av: ed_ffmpeg) -> CaptureError {
        if timedOut { return CaptureError(device: url, kind: .unreachable("no answer within \(milliseconds) ms")) }
        let kind: CaptureError.Kind =
            switch code {
            case ed_averror_http_not_found(), ed_averror_stream_not_found(): .notFound
            case ed_averror_http_unauthorized(), ed_averror_http_forbidden(): .permissionDenied
            case ed_averror_invaliddata(), ed_averror_decoder_not_found():
                .unsupportedStream("not a video stream FFmpeg can read (\(text(code, av)))")
            case ed_averror(ECONNREFUSED), ed_averror(EHOSTUNREACH), ed_averror(ENETUNREACH), ed_averror(ETIMEDOUT),
                ed_averror(EIO), ed_averror(ECONNRESET), ed_averror_eof(), ed_averror_http_server_error(),
                ed_averror_http_other_4xx():
                .unreachable(text(code, av))
            default: .unreachable(text(code, av))
            }
        return CaptureError(device: url, kind: kind)
    }

    /// An error reading from an open stream: it stopped, or stalled past the deadline.
    static func reading(_ url: String, _ code: Int32, timedOut: Bool, milliseconds: Int, _ av: ed_ffmpeg) -> CaptureError {
        if timedOut { return CaptureError(device: url, kind: .timeout(milliseconds: milliseconds)) }
        return CaptureError(device: url, kind: .streamLost(code == ed_averror_eof() ? "the server ended it" : text(code, av)))
    }
}
