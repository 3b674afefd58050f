import Eyedropper
import Logging
#if canImport(Glibc)
import Glibc
#endif

/// Frames from the test pattern, a `.y4m` file or a camera, one at a time: the one way the command
/// line and the service read frames. Size, rate, pixel format, skip, colorimetry override and
/// reconnect policy are decided once, by a `Configuration`.
///
/// Not `Sendable`: one thread reads a source. A camera opens at the first `next` (and again after
/// an outage its policy waits out); every frame is lent with the colorimetry to convert it with,
/// the source's own or the configuration's override.
public final class FrameSource {
    public let configuration: Configuration
    /// The stream it delivers, e.g. "1280x720 NV12 read in place" (what the service's status calls
    /// "format"); nil until a camera is open.
    public private(set) var stream: String?
    /// Frames the source had but never lent: a camera's when its reader was slower, and those a
    /// live test pattern or file fell behind by.
    public var framesDropped: Int { dropped + (session?.framesDropped ?? 0) }
    /// Frames a camera's driver flagged as damaged, dropped.
    public var framesDamaged: Int { damaged + (session?.damagedFrames ?? 0) }
    /// A camera's controls: set at every open to what the configuration (and anyone since)
    /// asked; nil for the test pattern and files.
    public let controls: CameraControls?

    private let logger: Logger
    private let isStopped: () -> Bool
    private let onOutage: (CaptureError) -> Void
    private var pattern: FrameBuffer?
    private var file: Y4MReader?
    /// Frames read from the file since it was opened, skipped ones included: the file's clock.
    private var fileFrames = 0
    private var session: CaptureSession?
    private var cameraOpened = false
    /// Whether an outage is being waited out, so it is said once, not at every try.
    private var inOutage = false
    private var pacer: Pacer?
    /// Counts of camera sessions already closed, and of frames the pacer skipped.
    private var dropped = 0, damaged = 0
    /// Whether `--lock` is still to be done, at the first frame after the skipped ones.
    private var lockPending: Bool

    /// Opens the test pattern or the file (skipping `skip` frames of it); a camera opens at the
    /// first `next`. `isStopped` ends a wait for a camera; `onOutage` hears of each outage that the
    /// reconnect policy waits out, once, when it starts. `controls`: a camera's, when someone else
    /// (the service) sets them too; default: the configuration's. Controls asked for a source
    /// that is not a camera are a `ControlError`.
    public init(
        _ configuration: Configuration, logger: Logger = Logger(label: "eyedropper"),
        controls: CameraControls? = nil,
        isStopped: @escaping () -> Bool = { false },
        onOutage: @escaping (CaptureError) -> Void = { _ in }
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.isStopped = isStopped
        self.onOutage = onOutage
        lockPending = configuration.lock
        self.controls = try controls ?? configuration.makeControls()
        var fps = configuration.fps
        switch configuration.source {
        case .testPattern:
            let size = configuration.patternSize
            let buffer = try TestPattern(width: size.width, height: size.height)
                .makeFrameBuffer(layout: configuration.patternLayout)
            pattern = buffer
            stream = "\(buffer.width)x\(buffer.height) \(buffer.layout.fourCC) (test pattern)"
        case let .file(path):
            let reader = try Y4MReader(path: path)
            file = reader
            stream = "\(reader.width)x\(reader.height) \(PixelLayout.i420.fourCC) (YUV4MPEG2)"
            fps = reader.frameRate.map { Double($0.numerator) / Double($0.denominator) } ?? fps
            // Skipped frames are read whole (a damaged one is still an error) and keep their time.
            while fileFrames < configuration.framesToSkip, try reader.readFrame({ _ in }) == .frame { fileFrames += 1 }
        case .camera:
            break
        }
        if configuration.pacing == .live, !configuration.source.isCamera {
            pacer = Pacer(fps: fps ?? Configuration.defaultLiveFPS)
        }
    }

    /// Lends the next frame and its timestamp in seconds to `body`: the driver's clock for a
    /// camera; read as fast as they come, 0 for the test pattern and a file's own clock; paced
    /// live, the time since the start. False when a file read once has ended or a wait for a
    /// camera was stopped; the test pattern never ends.
    public func next(_ body: (borrowing PlanarFrame, _ timestamp: Double) throws -> Void) throws -> Bool {
        func lend(_ frame: borrowing PlanarFrame, _ timestamp: Double) throws {
            try frame.withColorimetry(configuration.colorimetryOverride(frame.colorimetry)) { try body($0, timestamp) }
        }
        if pacer != nil { dropped += pacer!.waitForNextFrame() }
        switch configuration.source {
        case .testPattern:
            try pattern!.withFrame { try lend($0, pacer?.timestamp ?? 0) }
            return true
        case let .file(path):
            return try nextFileFrame(path, lend)
        case let .camera(device):
            return try nextCameraFrame(device, lend)
        }
    }

    /// Read once, a file ends at its end; live, it starts again from the beginning.
    private func nextFileFrame(_ path: String, _ lend: (borrowing PlanarFrame, Double) throws -> Void) throws -> Bool {
        while true {
            let reader = file!
            let secondsPerFrame = reader.frameRate.map { Double($0.denominator) / Double($0.numerator) } ?? 0
            let timestamp = pacer?.timestamp ?? Double(fileFrames) * secondsPerFrame
            if try reader.readFrame({ try lend($0, timestamp) }) == .frame {
                fileFrames += 1
                return true
            }
            guard pacer != nil, fileFrames > 0 else { return false }
            file = try Y4MReader(path: path)
            fileFrames = 0
        }
    }

    private func nextCameraFrame(_ device: String, _ lend: (borrowing PlanarFrame, Double) throws -> Void) throws -> Bool {
        while true {
            do {
                if session == nil {
                    guard let opened = try open(device) else { return false }
                    session = opened
                }
                let session = session!
                try session.withNextFrame { frame, info in
                    if lockPending { try lock(session) }
                    try lend(frame, info.timestamp)
                }
                return true
            } catch let error as CaptureError where configuration.reconnect.waitsOut(error, afterOpening: cameraOpened) {
                close()
                startOutage(error)
            }
        }
    }

    /// Opens the camera, trying again every `reconnectInterval` while the policy waits out what
    /// stops it; nil when stopped while waiting.
    private func open(_ device: String) throws -> CaptureSession? {
        while true {
            do {
                let session = try CaptureSession(device: device, request: configuration.captureRequest) { fd in
                    for warning in try controls?.apply(fd: fd) ?? [] { logger.warning("\(warning)") }
                }
                cameraOpened = true
                describe(session.agreed, device: device)
                if inOutage { logger.info("\(device): back") }
                inOutage = false
                return session
            } catch let error as CaptureError where configuration.reconnect.waitsOut(error, afterOpening: cameraOpened) {
                startOutage(error)
            }
            // In tenths, so a stop is noticed within 0.1 s.
            for _ in 0..<Configuration.reconnectTenths {
                if isStopped() { return nil }
                usleep(100_000)
            }
        }
    }

    /// `--lock`, once the skipped frames have let the automatic controls settle: kept by
    /// `controls`, so a reconnect sets the same values again rather than locking anew.
    private func lock(_ session: CaptureSession) throws {
        lockPending = false
        let locked = try controls!.lock(fd: session.fd)
        logger.info(locked.isEmpty
            ? "\(session.device): --lock: no automatic control was on, nothing to lock"
            : "\(session.device): locked at the values the camera settled on: \(locked.map(\.description).joined(separator: " "))")
    }

    private func startOutage(_ error: CaptureError) {
        guard !inOutage else { return }
        inOutage = true
        logger.warning("\(error); waiting for it to come back (--reconnect)")
        onOutage(error)
    }

    /// Closes every handle: a device comes back only once all are closed.
    private func close() {
        dropped += session?.framesDropped ?? 0
        damaged += session?.damagedFrames ?? 0
        session = nil
    }

    /// Says what the camera agreed to, where it differs from what was asked, and how its frames
    /// reach Eyedropper.
    private func describe(_ agreed: CaptureAgreement, device: String) {
        let asked = configuration.captureRequest
        var differences: [String] = []
        if let width = asked.width, let height = asked.height, (width, height) != (agreed.width, agreed.height) {
            differences.append("size \(agreed.width)x\(agreed.height) (asked \(width)x\(height))")
        }
        if let fps = asked.fps, let agreedFPS = agreed.fps, abs(fps - agreedFPS) > 0.01 {
            differences.append("\(agreedFPS) fps (asked \(fps))")
        }
        let (size, fourCC) = ("\(agreed.width)x\(agreed.height)", agreed.layout.fourCC)
        stream = agreed.isNative ? "\(size) \(fourCC) read in place" : "\(size) \(fourCC) converted from \(agreed.sourceFourCC) by libv4l2"
        let route = agreed.isNative ? "\(fourCC) read in place" : "\(agreed.sourceFourCC) converted to \(fourCC) by libv4l2"
        let note = differences.isEmpty ? "" : "; the device chose " + differences.joined(separator: ", ")
        logger.info("\(device): \(size) \(route), \(agreed.colorimetry) (\(agreed.driverColorimetry))\(note)")
    }
}
