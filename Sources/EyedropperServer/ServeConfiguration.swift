import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperPipeline

/// Everything `eyedropper serve` was asked to do: what takes a restart to change, and the
/// settings it starts with.
public struct ServeConfiguration: Sendable {
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
    /// `--profile-dir`: where the profiles fitted from the page (`POST /api/v1/calibration`) are
    /// written, and whence `PUT /api/v1/profile` applies one; nil: neither is offered (409).
    public var profileDirectory: String?
    /// `--reference`: the chart's own L*a*b* (D50), which those fits are made against.
    public var chartReference: ChartReference = .colorChecker2014
    /// How long a calibration from the page waits for each next frame, and a profile applied from
    /// it for the first frame read with it.
    public var frameWait = Duration.seconds(5)
    /// How long a connection may hold the server without moving (`ClientTimeouts`).
    public var timeouts = ClientTimeouts()
    /// What may change while serve runs (profile, target, white reference, palette, token, TLS),
    /// as it starts: a reload or the page replaces it whole (`LiveSettings`).
    public var settings: ServeSettings

    public init(source: FrameSource.Configuration, settings: ServeSettings = ServeSettings.none) {
        self.source = source
        self.settings = settings
    }

    /// Whether `host` is a loopback address, reachable only from this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
