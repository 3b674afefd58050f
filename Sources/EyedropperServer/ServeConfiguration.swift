import Eyedropper
import EyedropperCapture

/// Everything `eyedropper serve` was asked to do.
public struct ServeConfiguration: Hashable, Sendable {
    /// Where frames come from and how: the service reads its source live
    /// (`FrameSource.Configuration.Pacing.live`).
    public var source: FrameSource.Configuration
    /// The points sampled in every frame, for the event stream and as the sample endpoint's default.
    public var points: [SamplePoint] = [.center]
    public var radius = 0
    public var host = "127.0.0.1"
    /// 0: any free port (the one chosen is printed).
    public var port = 8080
    /// Concurrent MJPEG and event-stream clients; more are answered 503.
    public var maxStreams = 16
    /// Of frame.jpg and the MJPEG stream.
    public var jpegQuality = 80

    public init(source: FrameSource.Configuration) {
        self.source = source
    }

    /// Whether `host` is a loopback address, reachable only from this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
