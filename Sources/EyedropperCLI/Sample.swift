import ArgumentParser
import Eyedropper
import EyedropperCapture
#if canImport(Glibc)
import Glibc
#endif

/// `eyedropper sample`: the colours at a few points of each frame.
struct Sample: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the colour at points of each frame.",
        discussion: """
            Reads frames from SRC, converts each to RGB with the matrix and range the source \
            reports (or --matrix / --range) and prints one JSON object per frame with the colour at \
            every --at point. SRC is a capture device (/dev/videoN), a .y4m file (YUV4MPEG2, 8-bit \
            4:2:0) or 'testpattern' (75% colour bars, a grey ramp and a hue sweep). Default: the \
            first capture device, or the test pattern when there is none.
            """
    )

    @Option(name: .long, help: ArgumentHelp("/dev/videoN, a .y4m file or 'testpattern'.", valueName: "SRC"))
    var source: String?

    @Option(help: ArgumentHelp("Frame size to ask a camera for, or of the test pattern (default 1280x720).", valueName: "WxH"))
    var size: FrameSize?

    @Option(help: "Frame rate to ask a camera for.")
    var fps: Double?

    @Option(name: .customLong("pixel-format"), help: ArgumentHelp(
        "Camera pixel format (YU12, YV12, NV12, NV21 are read in place; others, e.g. YUYV or MJPG, through libv4l2).",
        valueName: "FOURCC"))
    var pixelFormat: String?

    @Option(help: "Frames to drop first (default: 5 for a camera, settling its exposure; 0 otherwise).")
    var skip: Int?

    @Option(name: .customLong("at"), help: ArgumentHelp(
        "A point to sample, X,Y in 0...1 from the top-left corner (repeatable; default: the centre).",
        valueName: "X,Y"))
    var points: [SamplePoint] = []

    @Option(help: "Average the (2R+1)x(2R+1) pixels around each point (0: the single pixel).")
    var radius: Int = 0

    @Option(help: "Stop after this many frames (default: all of a file, 1 of the test pattern, a camera until Ctrl-C).")
    var frames: Int?

    @Flag(help: "When the camera is unplugged, wait for it to come back instead of stopping.")
    var reconnect = false

    @Option(help: "YCbCr matrix: auto (what the source reports), bt601, bt709 or bt2020.")
    var matrix: MatrixChoice = .auto

    @Option(help: "Code range: auto (what the source reports), full or limited.")
    var range: RangeChoice = .auto

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
        if let skip, skip < 0 { throw ValidationError("--skip must be 0 or more, got \(skip)") }
        if let fps, !(fps > 0 && fps.isFinite) { throw ValidationError("--fps must be a positive number, got \(fps)") }
        guard (0...SamplingError.maximumRadius).contains(radius) else {
            throw ValidationError(SamplingError.radiusOutOfRange(radius).description)
        }
        if let source, source != "testpattern", !source.hasSuffix(".y4m"), !source.hasPrefix("/dev/") {
            throw ValidationError("--source \(source): give a capture device (/dev/videoN), a .y4m file or 'testpattern'")
        }
    }

    func run() throws {
        let points = points.isEmpty ? [SamplePoint.center] : points
        var output = SampleOutput(points: points, radius: radius, matrix: matrix.matrix, range: range.range)
        var source = self.source
        if source == nil {
            source = CaptureDevices.list().first?.path
            printError("eyedropper: no --source given: sampling \(source ?? "the built-in test pattern")")
        }
        switch source ?? "testpattern" {
        case "testpattern":
            let size = size ?? FrameSize(width: 1280, height: 720)
            let buffer = try TestPattern(width: size.width, height: size.height).makeFrameBuffer()
            for _ in 0..<(frames ?? 1) {
                try buffer.withFrame { try output.sample($0, timestamp: 0) }
            }
        case let path where path.hasPrefix("/dev/"):
            let request = CaptureRequest(width: size?.width, height: size?.height, fps: fps, pixelFormat: pixelFormat, skip: skip ?? 5)
            var session: CaptureSession? = try exitingOnCaptureError { () throws(CaptureError) in
                try CaptureSession(device: path, request: request)
            }
            reportAgreement(session!.agreed, asked: request, device: path)
            var dropped = 0, damaged = 0
            while output.frameIndex < frames ?? Int.max {
                do {
                    if session == nil { session = try reopen(path, request) }
                    try session!.withNextFrame { frame, info in try output.sample(frame, timestamp: info.timestamp) }
                } catch let error as CaptureError where error.kind == .disconnected && reconnect {
                    printError("eyedropper: \(error); waiting for it to come back (--reconnect)")
                    dropped += session?.framesDropped ?? 0
                    damaged += session?.damagedFrames ?? 0
                    session = nil  // closes every handle: a device comes back only once all are closed
                } catch let error as CaptureError {
                    try exitingOnCaptureError { () throws(CaptureError) in throw error }
                }
            }
            dropped += session?.framesDropped ?? 0
            damaged += session?.damagedFrames ?? 0
            printError("eyedropper: \(path): \(output.frameIndex) frames sampled, \(dropped) dropped (sampling slower than the camera), \(damaged) damaged (flagged by the driver)")
        case let path:
            let reader = try Y4MReader(path: path)
            let secondsPerFrame = reader.frameRate.map { Double($0.denominator) / Double($0.numerator) } ?? 0
            while output.frameIndex < frames ?? Int.max,
                  try reader.readFrame({ try output.sample($0, timestamp: Double(output.frameIndex) * secondsPerFrame) }) == .frame {}
        }
    }

    /// Opens `path` again after an unplug, trying twice a second until it is back.
    private func reopen(_ path: String, _ request: CaptureRequest) throws -> CaptureSession {
        while true {
            do {
                let session = try CaptureSession(device: path, request: request)
                printError("eyedropper: \(path): back")
                return session
            } catch let error where [.notFound, .disconnected, .busy].contains(error.kind) {
                usleep(500_000)
            } catch {
                return try exitingOnCaptureError { () throws(CaptureError) in throw error }
            }
        }
    }

    /// One line on stderr when the camera agreed to something other than what was asked, and
    /// how its frames reach Eyedropper.
    private func reportAgreement(_ agreed: CaptureAgreement, asked: CaptureRequest, device: String) {
        var differences: [String] = []
        if let width = asked.width, let height = asked.height, (width, height) != (agreed.width, agreed.height) {
            differences.append("size \(agreed.width)x\(agreed.height) (asked \(width)x\(height))")
        }
        if let fps = asked.fps, let agreedFPS = agreed.fps, abs(fps - agreedFPS) > 0.01 {
            differences.append("\(agreedFPS) fps (asked \(fps))")
        }
        let route = agreed.isNative
            ? "\(agreed.layout.fourCC) read in place"
            : "\(agreed.sourceFourCC) converted to \(agreed.layout.fourCC) by libv4l2"
        let note = differences.isEmpty ? "" : "; the device chose " + differences.joined(separator: ", ")
        printError("eyedropper: \(device): \(agreed.width)x\(agreed.height) \(route), \(agreed.colorimetry) (\(agreed.driverColorimetry))\(note)")
    }
}

/// Samples each frame with one reused sampler and prints the colours as a line of JSON.
private struct SampleOutput {
    let points: [SamplePoint]
    let radius: Int
    let matrix: YCbCrMatrix?
    let range: ColorRange?
    private(set) var frameIndex = 0
    private var sampler: ColorSampler?
    private var samples: [ColorSample] = []

    init(points: [SamplePoint], radius: Int, matrix: YCbCrMatrix?, range: ColorRange?) {
        self.points = points
        self.radius = radius
        self.matrix = matrix
        self.range = range
    }

    /// `timestamp`: seconds, from the driver for a camera, from the frame rate for a file.
    mutating func sample(_ frame: borrowing PlanarFrame, timestamp: Double) throws {
        let colorimetry = Colorimetry(
            matrix: matrix ?? frame.colorimetry.matrix, range: range ?? frame.colorimetry.range)
        if sampler?.colorimetry != colorimetry { sampler = ColorSampler(colorimetry: colorimetry) }
        try sampler!.sample(frame, at: points, radius: radius, into: &samples)
        let fields = samples.map { sample in
            let (point, color) = (sample.point, sample.color)
            return #"{"x":\#(point.x),"y":\#(point.y),"r":\#(color.r),"g":\#(color.g),"b":\#(color.b),"hex":"\#(color.hex)"}"#
        }
        print(#"{"frame":\#(frameIndex),"timestamp":\#(timestamp),"matrix":"\#(colorimetry.matrix.rawValue)","range":"\#(colorimetry.range.rawValue)","samples":[\#(fields.joined(separator: ","))]}"#)
        frameIndex += 1
    }
}
