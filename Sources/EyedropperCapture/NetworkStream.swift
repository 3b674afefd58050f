import Eyedropper
import Synchronization

/// A network camera's decoded stream (RTSP, MJPEG over HTTP), one frame at a time: what a
/// network-source library (EyedropperNetwork, through FFmpeg) provides and `FrameSource` reads.
/// This target defines it and links no decoder, so that conversion and V4L2 capture alone never
/// carry one. Not `Sendable`: one thread reads a stream.
public protocol NetworkStream: AnyObject {
    /// What it delivers, e.g. "1920x1080 H.264 decoded to YU12 by libavcodec, read in place"
    /// (what the service's status calls "format").
    var stream: String { get }
    /// Waits for the next frame and lends it, in the decoder's own 4:2:0 planes, with the
    /// colorimetry the stream says and its timestamp in seconds (the monotonic clock when it was
    /// decoded, as V4L2 drivers stamp frames). Throws a `CaptureError` (`.streamLost`,
    /// `.timeout`, `.unsupportedStream`) or what `body` throws.
    func withNextFrame(_ body: (borrowing PlanarFrame, _ timestamp: Double) throws -> Void) throws
}

/// How network streams are opened: set once by the program that links a network-source library
/// (`NetworkStreams.bootstrap`, as swift-log's `LoggingSystem.bootstrap`); without it a network
/// source is an error that says what to link.
public enum NetworkStreams {
    /// Opens `url`, waiting at most `timeoutMilliseconds` for it to answer and for each frame;
    /// asks `isStopped` while it waits. Throws a `CaptureError` (`.unreachable`, `.notFound`,
    /// `.permissionDenied`, `.unsupportedStream`).
    public typealias Opener =
        @Sendable (
            _ url: String, _ timeoutMilliseconds: Int, _ isStopped: @escaping () -> Bool
        ) throws -> any NetworkStream

    private static let opener = Mutex<Opener?>(nil)

    /// Makes `opener` the way every `FrameSource` opens `rtsp://` and `http://` sources.
    public static func bootstrap(_ opener: @escaping Opener) {
        self.opener.withLock { $0 = opener }
    }

    static func open(_ url: String, timeoutMilliseconds: Int, isStopped: @escaping () -> Bool) throws -> any NetworkStream {
        guard let open = opener.withLock({ $0 }) else {
            throw CaptureError(
                device: url,
                kind: .unsupportedStream(
                    "network cameras need the EyedropperNetwork library: link it and call NetworkSource.bootstrap() first"))
        }
        return try open(url, timeoutMilliseconds, isStopped)
    }
}
