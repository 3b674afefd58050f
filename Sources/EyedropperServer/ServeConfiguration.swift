import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperPipeline

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
    /// `--profile` (and `--target`): every sample gains its calibrated colour; nil leaves every
    /// body as it is without them.
    public var calibration: CalibrationSettings?
    /// `--palette` (and `--max-delta-e`): every sample gains its nearest named colour; nil leaves
    /// every body as it is without it.
    public var palette: PaletteSettings?
    /// `--profile-dir`: where the profiles fitted from the page (`POST /api/v1/calibration`) are
    /// written, and whence `PUT /api/v1/profile` applies one; nil: neither is offered (409).
    public var profileDirectory: String?
    /// `--reference`: the chart's own L*a*b* (D50), which those fits are made against.
    public var chartReference: ChartReference = .colorChecker2014
    /// `--token-file` or `EYEDROPPER_TOKEN`: every route but the page and `/healthz` then answers
    /// 401 without `Authorization: Bearer TOKEN`. nil: no token is asked for (loopback, `--no-auth`).
    public var token: BearerToken?
    /// How long a connection may hold the server without moving (`ClientTimeouts`).
    public var timeouts = ClientTimeouts()
    /// `--tls-cert` and `--tls-key`: HTTPS instead of HTTP.
    public var tls: TLSFiles?

    /// A PEM certificate chain (the server's certificate first) and its private key.
    public struct TLSFiles: Hashable, Sendable {
        public var certificatePath: String
        public var keyPath: String

        public init(certificatePath: String, keyPath: String) {
            self.certificatePath = certificatePath
            self.keyPath = keyPath
        }
    }

    /// A camera profile and what it is compared with (not `Calibration`, the library's fit that
    /// makes a profile). A target without a profile cannot be said: what is compared with it is
    /// the calibrated colour.
    public struct CalibrationSettings: Hashable, Sendable {
        public var profile: CameraProfile
        /// The file the profile was read from, as the status names it.
        public var path: String
        public var target: ColorTarget?
        /// `--white-reference` and its options: a `WhiteReference` is made with each profile
        /// served; one that cannot take it (no record, no `--white-reference-lab`) is served
        /// without it, and the status says why.
        public var reference: WhiteReferenceSettings?

        public init(profile: CameraProfile, path: String, target: ColorTarget? = nil, reference: WhiteReferenceSettings? = nil) {
            self.profile = profile
            self.path = path
            self.target = target
            self.reference = reference
        }

        /// The white reference of this profile and `reference`: nil without `reference`, else
        /// the reference or why this profile cannot take it.
        var whiteReference: Result<WhiteReference, WhiteReferenceError>? {
            guard let reference else { return nil }
            return Result { () throws(WhiteReferenceError) in try WhiteReference(profile: profile, settings: reference) }
        }
    }

    public init(source: FrameSource.Configuration) {
        self.source = source
    }

    /// Whether `host` is a loopback address, reachable only from this machine.
    public var isLoopback: Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }
}
