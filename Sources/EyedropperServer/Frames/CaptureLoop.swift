import Eyedropper
import Synchronization
import EyedropperCapture
#if canImport(Glibc)
import Glibc
#endif

/// The one capture of the server: reads frames on a thread of its own, converts each once into
/// `LatestFrame`, samples the configured points, and never waits for a client.
///
/// A source that fails leaves the reason in `LatestFrame.failure` (the endpoints answer 503 with
/// it) while the server keeps running; with `reconnect` a camera is opened again twice a second.
final class CaptureLoop: Sendable {
    private let configuration: ServeConfiguration
    private let frames: LatestFrame
    private let statistics: CaptureStatistics
    private let log: @Sendable (String) -> Void
    private let stopping = Atomic<Bool>(false)
    private let thread = Locked<Thread?>(nil)

    init(
        configuration: ServeConfiguration, frames: LatestFrame, statistics: CaptureStatistics,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.configuration = configuration
        self.frames = frames
        self.statistics = statistics
        self.log = log
    }

    func start() {
        thread.withLock { $0 = Thread { [self] in run() } }
    }

    /// Ends the capture and waits for its thread, which releases the camera; within the camera's
    /// frame timeout at most.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        thread.withLock { thread in
            thread?.join()
            thread = nil
        }
    }

    private var stopped: Bool { stopping.load(ordering: .relaxed) }

    private func run() {
        var publisher = FramePublisher(configuration: configuration, frames: frames, statistics: statistics)
        var lastFailure: (reason: String, framesCaptured: Int)?
        while !stopped {
            do {
                switch configuration.source {
                case let .testPattern(width, height):
                    try runTestPattern(width: width, height: height, &publisher)
                case let .file(path):
                    try runFile(path, &publisher)
                case let .camera(path, request):
                    try runCamera(path, request, &publisher)
                }
            } catch {
                frames.fail("\(error)")
                // Once per outage, not twice a second while a camera stays away.
                let failure = (reason: "\(error)", framesCaptured: statistics.framesCaptured)
                if lastFailure.map({ $0 != failure }) ?? true {
                    log("eyedropper: \(error)" + (configuration.reconnect ? "; trying again (--reconnect)" : ""))
                    lastFailure = failure
                }
                guard configuration.reconnect else { return }
                for _ in 0..<5 where !stopped { usleep(100_000) }
            }
        }
    }

    private func runTestPattern(width: Int, height: Int, _ publisher: inout FramePublisher) throws {
        let buffer = try TestPattern(width: width, height: height).makeFrameBuffer()
        statistics.setFormat("\(width)x\(height) \(buffer.layout.fourCC) (test pattern)")
        var pacer = Pacer(fps: configuration.fps)
        while !stopped {
            statistics.addDropped(pacer.waitForNextFrame())
            buffer.withFrame { publisher.publish($0, timestamp: pacer.timestamp) }
        }
    }

    /// Plays the file at its rate, from the start again at its end.
    private func runFile(_ path: String, _ publisher: inout FramePublisher) throws {
        var reader = try Y4MReader(path: path)
        statistics.setFormat("\(reader.width)x\(reader.height) \(PixelLayout.i420.fourCC) (YUV4MPEG2)")
        var pacer = Pacer(fps: reader.frameRate.map { Double($0.numerator) / Double($0.denominator) } ?? configuration.fps)
        while !stopped {
            statistics.addDropped(pacer.waitForNextFrame())
            if try reader.readFrame({ publisher.publish($0, timestamp: pacer.timestamp) }) == .endOfStream {
                reader = try Y4MReader(path: path)
            }
        }
    }

    private func runCamera(_ path: String, _ request: CaptureRequest, _ publisher: inout FramePublisher) throws {
        let session = try CaptureSession(device: path, request: request)
        let agreed = session.agreed
        let route = agreed.isNative ? "read in place" : "converted from \(agreed.sourceFourCC) by libv4l2"
        statistics.setFormat("\(agreed.width)x\(agreed.height) \(agreed.layout.fourCC) \(route)")
        log("eyedropper: \(path): \(agreed.width)x\(agreed.height) \(agreed.layout.fourCC) \(route), \(agreed.colorimetry)")
        var dropped = 0
        while !stopped {
            try session.withNextFrame { frame, info in publisher.publish(frame, timestamp: info.timestamp) }
            statistics.addDropped(session.framesDropped - dropped)
            dropped = session.framesDropped
        }
    }
}

/// Converts each frame into `LatestFrame` and samples the configured points, with one converter
/// kept while the colorimetry stays the same.
private struct FramePublisher {
    let configuration: ServeConfiguration
    let frames: LatestFrame
    let statistics: CaptureStatistics
    private var converter: YCbCrConverter?
    private var samples: [ColorSample] = []
    private var number = 0

    init(configuration: ServeConfiguration, frames: LatestFrame, statistics: CaptureStatistics) {
        self.configuration = configuration
        self.frames = frames
        self.statistics = statistics
    }

    mutating func publish(_ frame: borrowing PlanarFrame, timestamp: Double) {
        let colorimetry = Colorimetry(
            matrix: configuration.matrix ?? frame.colorimetry.matrix, range: configuration.range ?? frame.colorimetry.range)
        if converter?.colorimetry != colorimetry { converter = YCbCrConverter(colorimetry: colorimetry) }
        let converter = converter!, (width, height) = (frame.width, frame.height)
        var seconds = 0.0
        frames.publish(byteCount: width * height * 3) { rgb in
            let start = MonotonicClock.seconds
            do {
                try converter.convert(frame, to: .rgb24, into: rgb)
            } catch {
                preconditionFailure("the slot was sized for this frame: \(error)")
            }
            seconds = MonotonicClock.seconds - start
            RGBImage(bytes: UnsafeRawBufferPointer(rgb), width: width, height: height)
                .sample(at: configuration.points, radius: configuration.radius, into: &samples)
            return FrameInfo(
                number: number, timestamp: timestamp, width: width, height: height, colorimetry: colorimetry,
                samplesJSON: SampleJSON.object(frame: number, timestamp: timestamp, colorimetry: colorimetry, samples: samples))
        }
        statistics.recordFrame(conversionSeconds: seconds, colorimetry: colorimetry)
        number += 1
    }
}

/// Paces a source that has no clock of its own at `fps`, skipping (and counting) the frames it
/// fell behind by rather than rushing to catch up.
struct Pacer {
    let period: Double
    private let start = MonotonicClock.seconds
    private var next = -1

    init(fps: Double) { period = 1 / fps }

    /// Seconds since the start for the current frame.
    var timestamp: Double { Double(next) * period }

    /// Sleeps until the next frame is due; returns how many were skipped.
    mutating func waitForNextFrame() -> Int {
        next += 1
        let now = MonotonicClock.seconds
        let late = now - (start + Double(next) * period)
        if late > period {
            let skipped = Int(late / period)
            next += skipped
            return skipped
        }
        if late < 0 { usleep(useconds_t(-late * 1e6)) }
        return 0
    }
}
