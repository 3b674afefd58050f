import Eyedropper
import EyedropperCapture

/// Everything `eyedropper serve` was asked to do.
public struct ServeConfiguration: Hashable, Sendable {
    /// Where frames come from.
    public enum Source: Hashable, Sendable, CustomStringConvertible {
        /// The built-in test pattern, paced at `fps`.
        case testPattern(width: Int, height: Int)
        /// A .y4m file, played at its frame rate (else `fps`) and from the start again at its end.
        case file(String)
        /// A capture device.
        case camera(String, CaptureRequest)

        public var description: String {
            switch self {
            case .testPattern: "testpattern"
            case let .file(path): path
            case let .camera(path, _): path
            }
        }
    }

    public var source: Source
    /// Frames a second of the test pattern, and of a file that does not say.
    public var fps: Double = 30
    /// Whether a camera that fails is opened again (twice a second) rather than left failed.
    public var reconnect = false
    /// Overrides of what the source reports.
    public var matrix: YCbCrMatrix?
    public var range: ColorRange?
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

    public init(source: Source) {
        self.source = source
    }

    /// Whether `host` is a loopback address, reachable only from this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
