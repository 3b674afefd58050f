import Eyedropper
import Logging

#if canImport(Glibc)
    import Glibc
#endif

/// Frames from the test pattern, a `.y4m` file or pipe, a camera or a network camera, one at a
/// time: the one way the command line and the service read frames. Size, rate, pixel format, skip, colorimetry override and
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
    public var framesDropped: Int { dropped + (openSession?.framesDropped ?? 0) }
    /// Frames a camera's driver flagged as damaged, dropped.
    public var framesDamaged: Int { damaged + (openSession?.damagedFrames ?? 0) }
    /// A camera's controls: set at every open to what the configuration (and anyone since)
    /// asked; nil for the test pattern and files.
    public let controls: CameraControls?
    /// A camera's integer controls as read back at its last open, name to value (what a
    /// recording keeps); a recording read back gives the ones it kept; empty otherwise.
    public private(set) var controlValues: [String: Int] = [:]
    /// Frames a second: what a camera agreed to, a file's header, the test pattern's pace; nil
    /// when unknown (a network camera, a file that does not say).
    public private(set) var frameRate: Double?

    private let logger: Logger
    private let isStopped: () -> Bool
    private let onOutage: (CaptureError) -> Void
    /// What the frames come from, with what reading it needs.
    private let input: Input
    private var pacer: Pacer?
    /// Frames the pacer skipped, and counts of camera sessions already closed.
    private var dropped = 0, damaged = 0
    /// Whether `--lock` is still to be done, at the first frame after the skipped ones.
    private var lockPending: Bool
    /// A network camera's frames still to skip (`--skip`), at its first open only.
    private var networkSkipRemaining: Int

    /// The kinds of source, each with its own state.
    private enum Input {
        /// The test pattern's one frame, lent again and again.
        case testPattern(FrameBuffer)
        /// A file, or standard input (`path` nil).
        case file(FileInput)
        case camera(CameraInput)
        case network(NetworkInput)
    }

    private final class FileInput {
        /// Nil for standard input, which cannot be read again.
        let path: String?
        var reader: Y4MReader
        /// Frames read since it was opened, skipped ones included: the file's clock.
        var framesRead = 0

        init(path: String?, reader: Y4MReader) {
            self.path = path
            self.reader = reader
        }
    }

    /// Whether an outage is being waited out, and whether the source was ever open.
    private final class OutageState {
        /// Whether it has been open once: the reconnect policy waits out more after that.
        var opened = false
        /// Whether an outage is being waited out, so it is said once, not at every try.
        var inOutage = false
    }

    private final class NetworkInput {
        let url: String
        var stream: (any NetworkStream)?
        let outage = OutageState()

        init(url: String) { self.url = url }
    }

    private final class CameraInput {
        let device: String
        let controls: CameraControls
        /// Open from the first frame until an outage closes it.
        var session: CaptureSession?
        let outage = OutageState()

        init(device: String, controls: CameraControls) {
            self.device = device
            self.controls = controls
        }
    }

    /// Opens the test pattern or the file (skipping `skip` frames of it); a camera opens at the
    /// first `next`. `isStopped` ends a wait for a camera; `onOutage` hears of each outage that the
    /// reconnect policy waits out, once, when it starts. `controls`: a camera's, when someone else
    /// (the service) sets them too; default: the configuration's. Controls asked for a source
    /// that is not a camera are a `ControlError`.
    public convenience init(
        _ configuration: Configuration, logger: Logger = Logger(label: "eyedropper"),
        controls: CameraControls? = nil,
        isStopped: @escaping () -> Bool = { false },
        onOutage: @escaping (CaptureError) -> Void = { _ in }
    ) throws {
        try self.init(configuration, logger: logger, controls: controls, isStopped: isStopped, onOutage: onOutage, clock: SystemClock())
    }

    /// The same, with the clock a live test pattern or file is paced on: a test's, moved by hand.
    package init(
        _ configuration: Configuration, logger: Logger = Logger(label: "eyedropper"),
        controls: CameraControls? = nil,
        isStopped: @escaping () -> Bool = { false },
        onOutage: @escaping (CaptureError) -> Void = { _ in },
        clock: any MonotonicClock
    ) throws {
        self.configuration = configuration
        self.logger = logger
        self.isStopped = isStopped
        self.onOutage = onOutage
        lockPending = configuration.lock
        networkSkipRemaining = configuration.source.isLive ? configuration.framesToSkip : 0
        let controls = try controls ?? configuration.makeControls()
        self.controls = controls
        var fps = configuration.fps
        switch configuration.source {
        case .testPattern:
            let size = configuration.patternSize
            let buffer = try TestPattern(width: size.width, height: size.height)
                .makeFrameBuffer(layout: configuration.patternLayout)
            input = .testPattern(buffer)
            frameRate = configuration.pacing == .live ? configuration.fps ?? Configuration.defaultLiveFPS : configuration.fps
            stream = "\(buffer.width)x\(buffer.height) \(buffer.layout.fourCC) (test pattern)"
        case .file, .standardInput:
            let path: String? = if case let .file(path) = configuration.source { path } else { nil }
            let file = FileInput(path: path, reader: try path.map { try Y4MReader(path: $0) } ?? Y4MReader.standardInput())
            input = .file(file)
            let header = file.reader.header
            stream = "\(header.width)x\(header.height) \(PixelLayout.i420.fourCC) (YUV4MPEG2\(path == nil ? " on standard input" : ""))"
            fps = header.frameRate.map { Double($0.numerator) / Double($0.denominator) } ?? fps
            frameRate = fps
            controlValues = header.controls
            Self.sayAssumptions(header, configuration, name: file.reader.path, logger: logger)
            // Skipped frames are read whole (a damaged one is still an error) and keep their time.
            while file.framesRead < configuration.framesToSkip, try file.reader.readFrame({ _ in }) == .frame {
                file.framesRead += 1
            }
        case let .camera(device):
            // A camera's configuration always makes controls (empty when none were asked).
            input = .camera(CameraInput(device: device, controls: controls ?? CameraControls(device: device, settings: [])))
        case let .network(url):
            input = .network(NetworkInput(url: url))
        }
        // A pipe is read as its writer sends it: its pace is the writer's.
        if configuration.pacing == .live, !configuration.source.isLive, configuration.source != .standardInput {
            pacer = Pacer(fps: fps ?? Configuration.defaultLiveFPS, clock: clock)
        }
    }

    /// Says once what a file's or pipe's colorimetry is taken to be where neither its header nor
    /// `--matrix`/`--range` says it.
    private static func sayAssumptions(_ header: Y4MHeader, _ configuration: Configuration, name: String, logger: Logger) {
        var header = header
        header.matrix = header.matrix ?? configuration.matrix
        header.range = header.range ?? configuration.range
        if let assumption = header.assumption {
            logger.notice("\(name): \(assumption) (--matrix and --range say otherwise)")
        }
    }

    /// The camera's session while one is open.
    private var openSession: CaptureSession? {
        if case let .camera(camera) = input { camera.session } else { nil }
    }

    /// Lends the next frame and its timestamp in seconds to `body`: the driver's clock for a
    /// camera; read as fast as they come, 0 for the test pattern and a file's own clock; paced
    /// live, the time since the start. False when a file read once has ended or a wait for a
    /// camera was stopped; the test pattern never ends.
    public func next(_ body: (borrowing PlanarFrame, _ timestamp: Double) throws -> Void) throws -> Bool {
        func lend(_ frame: borrowing PlanarFrame, _ timestamp: Double) throws {
            try frame.withColorimetry(configuration.colorimetryOverride(frame.colorimetry)) { try body($0, timestamp) }
        }
        dropped += pacer?.waitForNextFrame() ?? 0
        switch input {
        case let .testPattern(pattern):
            try pattern.withFrame { try lend($0, pacer?.timestamp ?? 0) }
            return true
        case let .file(file):
            return try nextFileFrame(file, lend)
        case let .camera(camera):
            return try nextCameraFrame(camera, lend)
        case let .network(network):
            return try nextNetworkFrame(network, lend)
        }
    }

    /// Read once, a file ends at its end; live, it starts again from the beginning (standard
    /// input ends). A frame's time is the one it was recorded with (`XEYEDROPPER_TIME`), else the
    /// file's clock (its frame rate), else, paced live, the pacer's.
    private func nextFileFrame(_ file: FileInput, _ lend: (borrowing PlanarFrame, Double) throws -> Void) throws -> Bool {
        while true {
            let secondsPerFrame = file.reader.frameRate.map { Double($0.denominator) / Double($0.numerator) } ?? 0
            let clock = pacer?.timestamp ?? Double(file.framesRead) * secondsPerFrame
            let reader = file.reader
            if try reader.readFrame({ try lend($0, reader.frameTime ?? clock) }) == .frame {
                file.framesRead += 1
                return true
            }
            guard pacer != nil, file.framesRead > 0, let path = file.path else { return false }
            file.reader = try Y4MReader(path: path)
            file.framesRead = 0
        }
    }

    /// A network camera's next frame: opened at the first, and again after an outage its
    /// policy waits out.
    private func nextNetworkFrame(_ network: NetworkInput, _ lend: (borrowing PlanarFrame, Double) throws -> Void) throws -> Bool {
        while true {
            do {
                guard let stream = try network.stream ?? open(network) else { return false }
                var skipped = false
                try stream.withNextFrame { frame, timestamp in
                    guard networkSkipRemaining == 0 else {
                        networkSkipRemaining -= 1
                        skipped = true
                        return
                    }
                    try lend(frame, timestamp)
                }
                if !skipped { return true }
            } catch let error as CaptureError where configuration.reconnect.waitsOut(error, afterOpening: network.outage.opened) {
                network.stream = nil
                startOutage(error, network.outage)
            }
        }
    }

    /// Opens the network camera, trying again every `reconnectInterval` while the policy waits
    /// out what stops it; nil when stopped while waiting.
    private func open(_ network: NetworkInput) throws -> (any NetworkStream)? {
        while true {
            do {
                let stream = try NetworkStreams.open(
                    network.url, timeoutMilliseconds: configuration.networkTimeoutMilliseconds, isStopped: isStopped)
                network.stream = stream
                network.outage.opened = true
                self.stream = stream.stream
                logger.info("\(network.url): \(stream.stream)")
                if network.outage.inOutage { logger.info("\(network.url): back") }
                network.outage.inOutage = false
                return stream
            } catch let error as CaptureError where configuration.reconnect.waitsOut(error, afterOpening: network.outage.opened) {
                startOutage(error, network.outage)
            }
            if try waitBeforeReconnecting() { return nil }
        }
    }

    /// Waits `reconnectTenths` tenths of a second; true when stopped meanwhile.
    private func waitBeforeReconnecting() throws -> Bool {
        // In tenths, so a stop is noticed within 0.1 s.
        for _ in 0..<Configuration.reconnectTenths {
            if isStopped() { return true }
            usleep(100_000)
        }
        return false
    }

    private func nextCameraFrame(_ camera: CameraInput, _ lend: (borrowing PlanarFrame, Double) throws -> Void) throws -> Bool {
        while true {
            do {
                let session: CaptureSession
                if let open = camera.session {
                    session = open
                } else {
                    guard let opened = try open(camera) else { return false }
                    session = opened
                    camera.session = opened
                }
                try session.withNextFrame { frame, info in
                    if lockPending { try lock(session, camera.controls) }
                    try lend(frame, info.timestamp)
                }
                return true
            } catch let error as CaptureError where configuration.reconnect.waitsOut(error, afterOpening: camera.outage.opened) {
                close(camera)
                startOutage(error, camera.outage)
            }
        }
    }

    /// Opens the camera, trying again every `reconnectInterval` while the policy waits out what
    /// stops it; nil when stopped while waiting.
    private func open(_ camera: CameraInput) throws -> CaptureSession? {
        while true {
            do {
                let session = try CaptureSession(device: camera.device, request: configuration.captureRequest) { fd in
                    for warning in try camera.controls.apply(fd: fd) { logger.warning("\(warning)") }
                }
                camera.outage.opened = true
                describe(session.agreed, device: camera.device)
                frameRate = session.agreed.fps
                controlValues = CameraControls.integerValues(fd: session.fd, device: camera.device)
                if camera.outage.inOutage { logger.info("\(camera.device): back") }
                camera.outage.inOutage = false
                return session
            } catch let error as CaptureError where configuration.reconnect.waitsOut(error, afterOpening: camera.outage.opened) {
                startOutage(error, camera.outage)
            }
            if try waitBeforeReconnecting() { return nil }
        }
    }

    /// `--lock`, once the skipped frames have let the automatic controls settle: kept by
    /// `controls`, so a reconnect sets the same values again rather than locking anew.
    private func lock(_ session: CaptureSession, _ controls: CameraControls) throws {
        lockPending = false
        let locked = try controls.lock(fd: session.fd)
        logger.info(
            locked.isEmpty
                ? "\(session.device): --lock: no automatic control was on, nothing to lock"
                : "\(session.device): locked at the values the camera settled on: \(locked.map(\.description).joined(separator: " "))")
    }

    private func startOutage(_ error: CaptureError, _ outage: OutageState) {
        guard !outage.inOutage else { return }
        outage.inOutage = true
        logger.warning("\(error); waiting for it to come back (--reconnect)")
        onOutage(error)
    }

    /// Closes every handle: a device comes back only once all are closed.
    private func close(_ camera: CameraInput) {
        dropped += camera.session?.framesDropped ?? 0
        damaged += camera.session?.damagedFrames ?? 0
        camera.session = nil
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
