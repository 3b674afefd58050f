import Eyedropper

/// Where frames come from, as `--source` names it: the one place that reads those names.
public enum SourceName: Hashable, Sendable, CustomStringConvertible {
    /// `testpattern`: the built-in test pattern.
    case testPattern
    /// A YUV4MPEG2 file (a path ending in `.y4m`).
    case file(String)
    /// `-`: a YUV4MPEG2 stream on standard input (a pipe from ffmpeg, say).
    case standardInput
    /// A V4L2 capture device (a path under `/dev/`).
    case camera(String)
    /// A network camera: `rtsp://`, `rtsps://`, or MJPEG over `http://` or `https://`.
    case network(String)

    /// The URL schemes of network cameras.
    public static let networkSchemes = ["rtsp://", "rtsps://", "http://", "https://"]

    /// `testpattern`, `-`, a URL of a network camera, a path under `/dev/` or a path ending in
    /// `.y4m`; nil for anything else.
    public init?(_ text: String) {
        if text == "testpattern" {
            self = .testPattern
        } else if text == "-" {
            self = .standardInput
        } else if Self.networkSchemes.contains(where: { text.lowercased().hasPrefix($0) }) {
            self = .network(text)
        } else if text.hasPrefix("/dev/") {
            self = .camera(text)
        } else if text.hasSuffix(".y4m") {
            self = .file(text)
        } else {
            return nil
        }
    }

    /// The first capture device there is, else the test pattern.
    public static func firstCameraOrTestPattern() -> SourceName {
        CaptureDevices.list().first.map { .camera($0.path) } ?? .testPattern
    }

    /// A V4L2 device: one with controls, and a driver's clock.
    public var isCamera: Bool { if case .camera = self { true } else { false } }

    /// A V4L2 device or a network camera: a source that can go away and come back, and whose
    /// timestamps are the monotonic clock.
    public var isLive: Bool {
        switch self {
        case .camera, .network: true
        default: false
        }
    }

    public var description: String {
        switch self {
        case .testPattern: "testpattern"
        case .standardInput: "-"
        case let .file(path), let .camera(path), let .network(path): path
        }
    }
}

extension FrameSource {
    /// Everything that decides which frames a source gives and how.
    public struct Configuration: Hashable, Sendable {
        /// How the test pattern and files are timed (a camera keeps its own time).
        public enum Pacing: Hashable, Sendable {
            /// As fast as they are read: the test pattern's one frame again and again at
            /// timestamp 0, a file once through on its own clock.
            case asRead
            /// In real time, like a camera: the test pattern at `fps`, a file at its own rate
            /// (else `fps`) and from the start again at its end; timestamps count from the first frame.
            case live
        }

        /// When a camera that fails is waited for instead of ending the source.
        public enum ReconnectPolicy: Hashable, Sendable {
            /// Never: the failure ends the source with its error.
            case never
            /// Once it has been open, a camera unplugged (or gone, or still busy as it comes back)
            /// is waited for, and so is a network camera whose stream stopped, or whose server
            /// cannot be reached or has no readable stream yet as it comes back; a camera that
            /// cannot be opened at first is an error (`--reconnect` of the commands that read
            /// frames).
            case afterUnplug
            /// Every failure is waited out, from the first open on: a service starts before its
            /// camera is plugged in, and keeps trying whatever stops it (`serve --reconnect`).
            case always

            /// Whether `error` is waited out, the camera having been `opened` once before.
            package func waitsOut(_ error: CaptureError, afterOpening opened: Bool) -> Bool {
                switch self {
                case .never: false
                case .afterUnplug:
                    switch error.kind {
                    case .notFound, .disconnected, .busy, .streamLost, .unreachable: opened
                    // A network camera that stalls is a stream lost; a V4L2 one that does is an
                    // error. One whose server, restarting, answers before its stream is ready
                    // ("invalid data") is coming back.
                    case .timeout, .unsupportedStream: opened && error.isNetwork
                    default: false
                    }
                case .always: true
                }
            }
        }

        public var source: SourceName
        /// The size to ask a camera for, and the test pattern's (default 1280x720); a file has its own.
        public var width: Int?
        public var height: Int?
        /// The rate to ask a camera for; paced live, the test pattern's rate and a file's when it
        /// does not say (default 30).
        public var fps: Double?
        /// The FourCC to ask a camera for ("NV12", "YUYV", "MJPG"); default: a 4:2:0 format the
        /// device delivers itself, else YU12 converted by libv4l2.
        public var pixelFormat: String?
        /// Frames dropped at the start; default 5 for a camera (its exposure settles), else 0.
        public var skip: Int?
        /// How long a network camera may take to answer, and to send each frame.
        public var networkTimeoutMilliseconds = 5000
        public var reconnect = ReconnectPolicy.never
        /// Overrides of the matrix and range the source reports.
        public var matrix: YCbCrMatrix?
        public var range: ColorRange?
        /// The layout the test pattern is made in (a camera's and a file's are their own).
        public var patternLayout = PixelLayout.i420
        public var pacing = Pacing.asRead
        /// Camera controls set at every open of the camera, in this order but automatic ones
        /// first (`--control`, `--controls FILE`).
        public var controls: [ControlSetting] = []
        /// Whether to switch the camera's automatic controls off once the skipped frames have let
        /// them settle, keeping the values they settled on (`--lock`).
        public var lock = false

        public static let defaultPatternSize = (width: 1280, height: 720)
        public static let defaultCameraSkip = 5
        public static let defaultLiveFPS = 30.0
        /// A camera waited for is tried again every 0.5 s.
        static let reconnectTenths = 5

        public init(source: SourceName) {
            self.source = source
        }

        /// Throws `ControlError.notACamera` when camera controls or `--lock` are asked of a source
        /// that is not a camera: what `FrameSource` refuses, for a caller (the service) to refuse
        /// it before anything starts.
        /// A camera's controls, to be set at every open: `controls`; nil for the test pattern
        /// and files. Controls or `--lock` asked of those are a `ControlError`.
        public func makeControls() throws(ControlError) -> CameraControls? {
            guard case let .camera(device) = source else {
                if !controls.isEmpty || lock { throw ControlError(device: nil, .notACamera(source.description)) }
                return nil
            }
            return CameraControls(device: device, settings: controls)
        }

        public var framesToSkip: Int { skip ?? (source.isCamera ? Self.defaultCameraSkip : 0) }

        public var patternSize: (width: Int, height: Int) {
            (width ?? Self.defaultPatternSize.width, height ?? Self.defaultPatternSize.height)
        }

        /// The colorimetry to convert a frame with, from what the source reports.
        public func colorimetryOverride(_ reported: Colorimetry) -> Colorimetry {
            Colorimetry(matrix: matrix ?? reported.matrix, range: range ?? reported.range)
        }

        var captureRequest: CaptureRequest {
            CaptureRequest(width: width, height: height, fps: fps, pixelFormat: pixelFormat, skip: framesToSkip)
        }
    }
}
