import ArgumentParser
import Eyedropper
import EyedropperCapture
#if canImport(Glibc)
import Glibc
#endif

/// Where frames come from and how to read their colours: shared by the commands that read frames.
struct SourceOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp(
        "/dev/videoN, a .y4m file or 'testpattern' (default: the first camera, else the test pattern).",
        valueName: "SRC"))
    var source: String?

    @Option(help: ArgumentHelp("Frame size to ask a camera for, or of the test pattern (default 1280x720).", valueName: "WxH"),
            transform: FrameSize.parse)
    var size: FrameSize?

    @Option(help: "Frame rate to ask a camera for.")
    var fps: Double?

    @Option(name: .customLong("pixel-format"), help: ArgumentHelp(
        "Camera pixel format (YU12, YV12, NV12, NV21 are read in place; others, e.g. YUYV or MJPG, through libv4l2).",
        valueName: "FOURCC"))
    var pixelFormat: String?

    @Option(help: "Frames to drop first (default: 5 for a camera, settling its exposure; 0 otherwise).")
    var skip: Int?

    @Flag(help: "When the camera is unplugged, wait for it to come back instead of stopping.")
    var reconnect = false

    @Option(help: "YCbCr matrix: auto (what the source reports), bt601, bt709 or bt2020.")
    var matrix: MatrixChoice = .auto

    @Option(help: "Code range: auto (what the source reports), full or limited.")
    var range: RangeChoice = .auto

    func validate() throws {
        if let skip, skip < 0 { throw ValidationError("--skip must be 0 or more, got \(skip)") }
        if let fps, !(fps > 0 && fps.isFinite) { throw ValidationError("--fps must be a positive number, got \(fps)") }
        if let source, source != "testpattern", !source.hasSuffix(".y4m"), !source.hasPrefix("/dev/") {
            throw ValidationError("--source \(source): give a capture device (/dev/videoN), a .y4m file or 'testpattern'")
        }
    }

    /// The colorimetry to convert `frame` with: what it reports, unless overridden.
    func colorimetry(of frame: borrowing PlanarFrame) -> Colorimetry {
        Colorimetry(matrix: matrix.matrix ?? frame.colorimetry.matrix, range: range.range ?? frame.colorimetry.range)
    }

    /// Lends each frame and its timestamp (seconds: the driver's for a camera, from the frame rate
    /// for a file) to `body`, `limit` frames or until the source ends (a camera: never; the test
    /// pattern: one frame by default, in `patternLayout`). `done` names what happened to frames in
    /// the closing line. Ctrl-C ends the stream after the current frame.
    func forEachFrame(
        limit: Int?, done: String, patternLayout: PixelLayout = .i420,
        _ body: (borrowing PlanarFrame, Double) throws -> Void
    ) throws {
        Interrupt.install()
        switch sourceOrDefault() {
        case "testpattern":
            let size = size ?? FrameSize(width: 1280, height: 720)
            let buffer = try TestPattern(width: size.width, height: size.height).makeFrameBuffer(layout: patternLayout)
            for _ in 0..<(limit ?? 1) {
                if Interrupt.requested { break }
                try buffer.withFrame { try body($0, 0) }
            }
        case let path where path.hasPrefix("/dev/"):
            try forEachCameraFrame(path, limit: limit, done: done, body)
        case let path:
            let reader = try Y4MReader(path: path)
            let secondsPerFrame = reader.frameRate.map { Double($0.denominator) / Double($0.numerator) } ?? 0
            // Skipped frames are read whole (a damaged one is still an error) and keep their time.
            let skipped = skip ?? 0
            var index = 0
            while index - skipped < limit ?? Int.max, !Interrupt.requested,
                  try reader.readFrame({ if index >= skipped { try body($0, Double(index) * secondsPerFrame) } }) == .frame {
                index += 1
            }
        }
    }

    private func forEachCameraFrame(
        _ path: String, limit: Int?, done: String, _ body: (borrowing PlanarFrame, Double) throws -> Void
    ) throws {
        let request = CaptureRequest(width: size?.width, height: size?.height, fps: fps, pixelFormat: pixelFormat, skip: skip ?? 5)
        var session: CaptureSession? = try CaptureSession(device: path, request: request)
        reportAgreement(session!.agreed, asked: request, device: path)
        var count = 0, dropped = 0, damaged = 0
        while count < limit ?? Int.max, !Interrupt.requested {
            do {
                if session == nil { session = try reopen(path, request) }
                try session!.withNextFrame { frame, info in try body(frame, info.timestamp) }
                count += 1
            } catch let error as CaptureError where error.kind == .disconnected && reconnect {
                printError("eyedropper: \(error); waiting for it to come back (--reconnect)")
                dropped += session?.framesDropped ?? 0
                damaged += session?.damagedFrames ?? 0
                session = nil  // closes every handle: a device comes back only once all are closed
            }
        }
        dropped += session?.framesDropped ?? 0
        damaged += session?.damagedFrames ?? 0
        printError("eyedropper: \(path): \(count) frames \(done), \(dropped) dropped (slower than the camera), \(damaged) damaged (flagged by the driver)")
    }

    /// Opens `path` again after an unplug, trying twice a second until it is back.
    private func reopen(_ path: String, _ request: CaptureRequest) throws -> CaptureSession {
        while true {
            do {
                let session = try CaptureSession(device: path, request: request)
                printError("eyedropper: \(path): back")
                return session
            } catch {
                guard [.notFound, .disconnected, .busy].contains(error.kind) else { throw error }
                usleep(500_000)
            }
        }
    }

    /// One line on stderr saying what the camera agreed to (and where it differs from the
    /// request) and how its frames reach Eyedropper.
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
