import Eyedropper
import EyedropperCapture
import EyedropperTestSupport
import Logging
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Collects what a source logs, to check what it says and how often.
private final class LogRecorder: @unchecked Sendable {
    private let lines = Mutex<[String]>([])
    var recorded: [String] { lines.withLock { $0 } }

    var logger: Logger {
        Logger(label: "test") { _ in Handler(recorder: self) }
    }

    private struct Handler: LogHandler {
        let recorder: LogRecorder
        var logLevel: Logger.Level = .trace
        var metadata: Logger.Metadata = [:]
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) { recorder.lines.withLock { $0.append("\(event.level): \(event.message)") } }
    }
}

/// A 4x2 file of `count` frames at 25 fps, frame i's bytes starting at 40 * i.
private func fiveFrameFile(_ scratch: ScratchDirectory, count: Int = 5, rate: String = "F25:1") throws -> String {
    let path = scratch.file("frames.y4m")
    try ScratchDirectory.write(
        y4mBytes(header: "YUV4MPEG2 W4 H2 \(rate) C420jpeg\n", frames: (0..<count).map { tinyFrame(UInt8($0) * 40) }), to: path)
    return path
}

/// Reads `count` frames (or until the source ends): each frame's first luma byte and timestamp.
private func read(_ source: FrameSource, _ count: Int) throws -> [(first: UInt8, timestamp: Double)] {
    var got: [(UInt8, Double)] = []
    while got.count < count, try source.next({ frame, timestamp in got.append((frame.sample(x: 0, y: 0).y, timestamp)) }) {}
    return got
}

@Suite struct FrameSourceTests {
    @Test func sourceNamesAreReadOnce() {
        #expect(SourceName("testpattern") == .testPattern)
        #expect(SourceName("/dev/video2") == .camera("/dev/video2"))
        #expect(SourceName("clips/bars.y4m") == .file("clips/bars.y4m"))
        #expect(SourceName("/dev/shm/clip.y4m") == .camera("/dev/shm/clip.y4m"))  // /dev/ first, as before
        #expect(SourceName("photo.png") == nil)
        #expect(SourceName("TestPattern") == nil)
        #expect(SourceName.camera("/dev/video0").description == "/dev/video0" && SourceName.testPattern.description == "testpattern")
    }

    /// The test pattern read as fast as it comes: its one frame again and again, at timestamp 0,
    /// in the layout and size asked, with --matrix/--range applied to what the source reports.
    @Test func testPatternLendsOverriddenColorimetry() throws {
        var configuration = FrameSource.Configuration(source: .testPattern)
        (configuration.width, configuration.height) = (64, 48)
        configuration.patternLayout = .nv12
        configuration.range = .full
        let source = try FrameSource(configuration, logger: LogRecorder().logger)
        #expect(source.stream == "64x48 NV12 (test pattern)")
        var seen: [String] = []
        for _ in 0..<3 {
            #expect(
                try source.next { frame, timestamp in
                    seen.append("\(frame.width)x\(frame.height) \(frame.layout) \(frame.colorimetry) \(timestamp)")
                })
        }
        // 48 lines: BT.601 as the pattern reports it; full range from the override.
        #expect(seen == Array(repeating: "64x48 nv12 bt601 full 0.0", count: 3))
    }

    /// Read once, a file skips its first frames (read, kept on its clock) and then ends.
    @Test func fileSkipsKeepingItsClockAndEnds() throws {
        let scratch = try ScratchDirectory()
        var configuration = FrameSource.Configuration(source: .file(try fiveFrameFile(scratch)))
        configuration.skip = 3
        let source = try FrameSource(configuration, logger: LogRecorder().logger)
        #expect(source.stream == "4x2 YU12 (YUV4MPEG2)")
        let frames = try read(source, 10)
        #expect(frames.map(\.first) == [120, 160])
        #expect(frames.map(\.timestamp) == [0.12, 0.16])
        #expect(try source.next { _, _ in Issue.record("a frame after the end") } == false)
    }

    /// Live, a file starts again at its end, skipping only at the start, on the pacer's clock.
    @Test func liveFileLoops() throws {
        let scratch = try ScratchDirectory()
        var configuration = FrameSource.Configuration(source: .file(try fiveFrameFile(scratch, count: 3, rate: "F1000:1")))
        configuration.pacing = .live
        configuration.skip = 1
        let source = try FrameSource(configuration, logger: LogRecorder().logger)
        let frames = try read(source, 6)
        #expect(frames.map(\.first) == [40, 80, 0, 40, 80, 0])
        let stamps = frames.map(\.timestamp)
        #expect(zip(stamps, stamps.dropFirst()).allSatisfy { $1 > $0 }, "\(stamps)")
    }

    /// Live, the pacer's clock starts at the first frame: a source made 300 ms before its first
    /// frame is asked for has missed none (a server starting under load counted one). A reader
    /// 350 ms late after that has missed 2 frames at 10 fps (3 would be a clock from the start),
    /// and the frame it gets is the one due at 300 ms. One on time is held until its frame is due,
    /// not lent early: the pacer sleeps until 400 ms after the first frame. On a clock the test moves, as
    /// swift-nio's embedded event loop: the same on a loaded machine. Catches a clock started when
    /// the source is made, drops no longer counted, a frame lent before it is due, or a pacer that
    /// sleeps past it.
    @Test func liveClockStartsAtTheFirstFrame() throws {
        var configuration = FrameSource.Configuration(source: .testPattern)
        (configuration.width, configuration.height) = (64, 48)
        configuration.pacing = .live
        configuration.fps = 10
        let clock = ManualClock()
        let source = try FrameSource(configuration, logger: LogRecorder().logger, clock: clock)
        clock.advance(by: .milliseconds(300))
        var stamps: [Double] = []
        #expect(try source.next { _, timestamp in stamps.append(timestamp) })
        #expect(source.framesDropped == 0)
        clock.advance(by: .milliseconds(350))
        #expect(try source.next { _, timestamp in stamps.append(timestamp) })
        #expect(source.framesDropped == 2, "late by 250 ms after the first frame, at 100 ms a frame")
        #expect(clock.sleeps.isEmpty, "slept for frames already late: \(clock.sleeps)")
        #expect(try source.next { _, timestamp in stamps.append(timestamp) })
        #expect(source.framesDropped == 2, "the frame due at 400 ms, asked for at 350 ms, counted as dropped")
        // (A tenth of a second as a Double is a few attoseconds over: within a nanosecond.)
        func near(_ a: Double, _ b: Double) -> Bool { abs(a - b) < 1e-9 }
        #expect(
            clock.sleeps.count == 1 && near(clock.sleeps[0].inSeconds, 0.7) && near(clock.now.inSeconds, 0.7),
            "held until 300 + 400 ms on the clock: \(clock.sleeps)")
        #expect(
            stamps.count == 3 && zip(stamps, [0, 0.3, 0.4]).allSatisfy(near),
            "the frame's place on the clock, skipped ones included: \(stamps)")
    }

    /// `--reconnect` on a network camera: a stream its server cannot serve yet (a server
    /// restarting answers before its stream is ready, FFmpeg reads "invalid data") is waited out
    /// once the camera has streamed, as a stream lost is; at the first open it is an error, and
    /// so is a V4L2 camera's whenever it comes. A policy that ends the source
    /// on it lost a restarted RTSP server under load.
    @Test func aNetworkStreamNotReadableYetIsWaitedOutOnceItHasStreamed() {
        let notYet = CaptureError(device: "rtsp://camera/stream", kind: .unsupportedStream("not a video stream FFmpeg can read"))
        let policy = FrameSource.Configuration.ReconnectPolicy.afterUnplug
        #expect(policy.waitsOut(notYet, afterOpening: true))
        #expect(!policy.waitsOut(notYet, afterOpening: false))
        #expect(!FrameSource.Configuration.ReconnectPolicy.never.waitsOut(notYet, afterOpening: true))
        let v4l2 = CaptureError(device: "/dev/video0", kind: .unsupportedStream("not 4:2:0"))
        #expect(!policy.waitsOut(v4l2, afterOpening: true))
    }

    /// A camera that is not there: an error at the first frame unless the policy waits from the
    /// start, and then said once however many tries, the outage reported once, until stopped.
    @Test func missingCameraFailsOrIsWaitedForByPolicy() throws {
        for policy in [FrameSource.Configuration.ReconnectPolicy.never, .afterUnplug] {
            var configuration = FrameSource.Configuration(source: .camera("/dev/eyedropper-no-such-camera"))
            configuration.reconnect = policy
            let source = try FrameSource(configuration, logger: LogRecorder().logger)
            let error = try #require(throws: CaptureError.self, "\(policy)") { try source.next { _, _ in } }
            #expect(error.kind == .notFound)
        }
        var configuration = FrameSource.Configuration(source: .camera("/dev/eyedropper-no-such-camera"))
        configuration.reconnect = .always
        let log = LogRecorder()
        let checks = Mutex(0), outages = Mutex<[CaptureError]>([])
        // Stopped after a dozen checks: two and a bit tries, 0.5 s apart.
        let source = try FrameSource(
            configuration, logger: log.logger,
            isStopped: {
                checks.withLock {
                    $0 += 1
                    return $0 > 12
                }
            },
            onOutage: { error in outages.withLock { $0.append(error) } })
        #expect(try source.next { _, _ in Issue.record("no camera, no frame") } == false)
        #expect(outages.withLock { $0.map(\.kind) } == [.notFound])
        #expect(
            log.recorded == [
                "warning: /dev/eyedropper-no-such-camera: no such device: is the camera plugged in? `eyedropper devices` lists the ones there are; waiting for it to come back (--reconnect)"
            ])
    }
}

/// A network stream whose frames are 4x2 of a seed, that fails when told, for the reconnect path.
private final class ScriptedStream: NetworkStream {
    let stream = "4x2 test (scripted)"
    private let buffer: FrameBuffer
    private let script: ScriptedNetwork
    init(_ script: ScriptedNetwork) throws {
        self.script = script
        buffer = try FrameBuffer(layout: .i420, width: 4, height: 2, colorimetry: .bt709Limited)
    }

    func withNextFrame(_ body: (borrowing PlanarFrame, Double) throws -> Void) throws {
        guard let seed = script.next() else {
            throw CaptureError(device: "rtsp://camera/scripted", kind: .streamLost("the server ended it"))
        }
        buffer.set(x: 0, y: 0, to: YCbCr8(y: seed, cb: 128, cr: 128))
        try buffer.withFrame { try body($0, Double(seed)) }
    }
}

/// What the scripted camera does: frames (a seed each) and failures (nil), and opens refused.
private final class ScriptedNetwork: @unchecked Sendable {
    private let state: Mutex<(steps: [UInt8?], refusals: Int, opens: Int)>
    init(steps: [UInt8?], refusals: Int) { state = Mutex((steps, refusals, 0)) }
    var opens: Int { state.withLock { $0.opens } }
    func open() throws -> any NetworkStream {
        try state.withLock { state in
            state.opens += 1
            if state.refusals > 0, state.opens > 1 {
                state.refusals -= 1
                throw CaptureError(device: "rtsp://camera/scripted", kind: .unreachable("Connection refused"))
            }
        }
        return try ScriptedStream(self)
    }
    /// The next frame's seed; nil: the stream stops here (and past the script's end).
    func next() -> UInt8? { state.withLock { $0.steps.isEmpty ? nil : $0.steps.removeFirst() } }
}

@Suite(.serialized) struct NetworkSourceTests {
    /// With --reconnect, a network camera whose stream stops is opened again, through refusals
    /// while its server is down; the outage is said once, and its end; the frames go on where
    /// they were. Without, the stop ends the source with its error. Catches a lost stream that
    /// ends the run with --reconnect, an outage said at every try, refusals after the first open
    /// taken as fatal.
    @Test func streamLostIsWaitedOutWithReconnect() throws {
        let script = ScriptedNetwork(steps: [10, 20, nil, 30, 40], refusals: 2)
        NetworkStreams.bootstrap { _, _, _ in try script.open() }
        let log = LogRecorder()
        var configuration = FrameSource.Configuration(source: .network("rtsp://camera/scripted"))
        configuration.reconnect = .afterUnplug
        var outages: [String] = []
        let source = try FrameSource(configuration, logger: log.logger, onOutage: { outages.append("\($0)") })
        let frames = try read(source, 4)
        #expect(frames.map(\.first) == [10, 20, 30, 40])
        #expect(script.opens == 4)  // the first, two refused while down, the one that came back
        #expect(outages == ["rtsp://camera/scripted: the stream stopped (the server ended it): the camera or its server went away"])
        #expect(log.recorded.filter { $0.contains("waiting for it to come back") }.count == 1)
        #expect(log.recorded.contains("info: rtsp://camera/scripted: back"))

        let once = ScriptedNetwork(steps: [10, nil], refusals: 0)
        NetworkStreams.bootstrap { _, _, _ in try once.open() }
        let unwaited = try FrameSource(FrameSource.Configuration(source: .network("rtsp://camera/scripted")), logger: log.logger)
        #expect(try read(unwaited, 1).map(\.first) == [10])
        let error = try #require(throws: CaptureError.self) { try unwaited.next { _, _ in } }
        #expect(error.kind == .streamLost("the server ended it") && error.exitStatus == 74)
    }

    /// Network sources are named by their scheme; `-` is standard input.
    @Test func networkAndPipeSourceNames() {
        #expect(SourceName("rtsp://10.0.0.5:554/stream1") == .network("rtsp://10.0.0.5:554/stream1"))
        #expect(SourceName("HTTP://cam.local/video.mjpg") == .network("HTTP://cam.local/video.mjpg"))
        #expect(SourceName("-") == .standardInput && SourceName.standardInput.description == "-")
        #expect(SourceName("ftp://x/y.y4m") == .file("ftp://x/y.y4m"))
        #expect(SourceName.network("rtsp://x").isLive && !SourceName.network("rtsp://x").isCamera && !SourceName.standardInput.isLive)
    }
}
