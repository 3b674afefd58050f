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
