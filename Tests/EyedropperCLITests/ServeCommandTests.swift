import Eyedropper
import EyedropperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
    import EyedropperCalibration
#endif

/// `eyedropper serve` as a process, for what needs one: signals, real sockets whose clients stop
/// reading or leave early, the warning on stderr, usage errors. Every endpoint's answers are
/// tested in process by EyedropperServerTests.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct ServeCommandTests {
    /// The sample endpoint gives what `eyedropper sample` prints for the same points: both read
    /// frames through one `FramePipeline` (the service from its converted RGB, the command from the
    /// planes) and print its reading's JSON line. Catches the two sources drifting apart.
    @Test func sampleAnswersLikeTheSampleCommand() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        let points = (0..<8).map { "\((Double($0) + 0.5) / 8),0.25" }
        let served = try server.get("/api/v1/sample?" + points.map { "at=\($0)" }.joined(separator: "&") + "&radius=3")
        let printed = try runEyedropper(["sample", "--source", "testpattern", "--radius", "3"] + points.flatMap { ["--at", $0] })
        #expect(printed.status == 0)
        let samples = served.text.firstMatch(of: /"samples":\[.*\]/)?.output
        #expect(samples != nil && samples == printed.stdout.firstMatch(of: /"samples":\[.*\]/)?.output, "\(served.text)\n\(printed.stdout)")
        _ = server.stop()
    }

    /// Stream clients that leave at once, some before the response head is written, free their
    /// places: after ten such with --max-streams 2, a stream is still answered 200.
    @Test func streamPlacesFreeWhenClientsLeaveEarly() throws {
        let server = try ServerProcess(["--source", "testpattern", "--size", "320x240", "--max-streams", "2"])
        for _ in 0..<10 { try HTTPConnection(port: server.port).send("/api/v1/stream.mjpg") }
        var status = 0
        // (The places free as the server notices each client gone: waited for, up to 30 s.)
        try? waitUntil("a stream answered 200") {
            status = try HTTPConnection(port: server.port).get("/api/v1/stream.mjpg").status  // the head only
            return status == 200
        }
        #expect(status == 200)
        _ = server.stop()
    }

    /// A client that stops reading holds up neither the capture nor other clients: once the
    /// server's writes to it are held up (its receive buffer is 8 KiB, full at the first part),
    /// the capture goes on for 90 more frames and 30 samples are answered. Counted, not timed: a
    /// capture held up by the stalled stream stops dead once that stream's buffers are full (the
    /// wait for 90 frames then fails at its deadline), on a quiet machine or a loaded one.
    @Test func stalledClientDoesNotSlowCapture() throws {
        let server = try ServerProcess(["--source", "testpattern", "--fps", "30"])
        let stalled = try HTTPConnection(port: server.port, receiveBuffer: 4096)
        _ = try stalled.get("/api/v1/stream.mjpg")  // and never read again
        try stalled.waitUntilStalled(server)
        let before = try server.framesCaptured()
        var answered = 0
        for _ in 0..<30 { answered += try server.get("/api/v1/sample?at=0.5,0.5").status == 200 ? 1 : 0 }
        #expect(answered == 30)
        try waitUntil("90 frames captured with the stream stalled") { try server.framesCaptured() - before >= 90 }
        #expect(stalled.queuedAtServer(serverPort: server.port) ?? 0 > 0, "the stalled stream was cut off: nothing was held up")
        let viewer = try HTTPConnection(port: server.port)
        _ = try viewer.get("/api/v1/stream.mjpg")
        _ = try viewer.readBody { Self.count("Content-Type: image/jpeg", in: $0) >= 3 }
        withExtendedLifetime(stalled) {}  // connected, unread, until here
        _ = server.stop()
    }

    /// SIGTERM and SIGINT end open streams and the process, which exits 0.
    @Test(arguments: [SIGTERM, SIGINT])
    func signalsEndStreamsAndTheServer(signal: Int32) throws {
        let server = try ServerProcess(["--source", "testpattern", "--size", "320x240"])
        let viewer = try HTTPConnection(port: server.port)
        _ = try viewer.get("/api/v1/stream.mjpg")
        _ = try viewer.readBody { Self.count("Content-Type: image/jpeg", in: $0) >= 1 }
        let events = try HTTPConnection(port: server.port)
        _ = try events.get("/api/v1/samples")
        let stopped = server.stop(signal: signal)
        #expect(stopped.status == 0, "ended by the signal, not killed 30 s on: \(stopped.stderr)")
        #expect(viewer.isClosedByServer())
        #expect(events.isClosedByServer())
    }

    /// A stream client that stopped reading (its socket buffers full, the server's write waiting)
    /// does not keep the server from stopping, even long before --stall-timeout would cut it off:
    /// SIGTERM ends it with status 0 (a server that waited for the client would be killed 30 s
    /// on, status 9). The write is waited for until it is held up, not given a fixed time.
    @Test func stalledStreamDoesNotBlockShutdown() throws {
        let server = try ServerProcess(["--source", "testpattern", "--stall-timeout", "600"])
        let stalled = try HTTPConnection(port: server.port, receiveBuffer: 4096)
        _ = try stalled.get("/api/v1/stream.mjpg")  // never read again
        try stalled.waitUntilStalled(server)
        let stopped = withExtendedLifetime(stalled) { server.stop() }
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }

    /// Options `serve` cannot use: exit 64 with the option named, before anything is opened.
    @Test(arguments: [
        (["--listen", "nonsense"], "'nonsense' is invalid for '--listen <HOST:PORT>'"),
        (["--max-streams", "0"], "--max-streams must be at least 1, got 0"),
        (["--quality", "101"], "--quality must be 1 to 100, got 101"),
    ])
    func serveUsageErrorsExit64(arguments: [String], message: String) throws {
        let result = try runEyedropper(["serve", "--source", "testpattern"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    /// With --profile and --target, the sample endpoint still gives what `sample` prints with
    /// them: calibrated colour, deltaE and pass included. Catches the service calibrating with
    /// another profile or target than the command, or the two writing them differently.
    @Test func calibratedSampleAnswersLikeTheSampleCommand() throws {
        let scratch = try ScratchDirectory()
        let profile = try Self.writeProfile(
            to: scratch.file("profile.json"), colorimetry: Colorimetry(matrix: .bt709, range: .limited), width: 1280, height: 720)
        // The magenta bar's own calibrated colour: that bar passes, the others fail.
        let magenta = profile.calibrated((191, 0, 192)).lab
        let calibration = ["--profile", scratch.file("profile.json"), "--target", "\(magenta.l),\(magenta.a),\(magenta.b)"]
        let server = try ServerProcess(["--source", "testpattern"] + calibration)
        let points = (0..<8).map { "\((Double($0) + 0.5) / 8),0.25" }
        let served = try server.get("/api/v1/sample?" + points.map { "at=\($0)" }.joined(separator: "&") + "&radius=3")
        let printed = try runEyedropper(
            ["sample", "--source", "testpattern", "--radius", "3"] + calibration + points.flatMap { ["--at", $0] })
        #expect(printed.status == 1, "not every bar is magenta: \(printed.stderr)")
        let samples = served.text.firstMatch(of: /"samples":\[.*\]/)?.output
        #expect(samples != nil && samples == printed.stdout.firstMatch(of: /"samples":\[.*\]/)?.output, "\(served.text)\n\(printed.stdout)")
        #expect(
            served.text.contains(#""deltaE":"#) && served.text.contains(#""pass":true"#) && served.text.contains(#""pass":false"#),
            "\(served.text)")
        let stopped = server.stop()
        #expect(!stopped.stderr.contains("warning"), "the profile is the frames': \(stopped.stderr)")
    }

    /// Frames unlike the profile's (another colorimetry and size): each difference is warned of on
    /// stderr once, not once a frame, and serve goes on. Catches a warning per frame, or none.
    @Test func profileMismatchIsWarnedOnce() throws {
        let scratch = try ScratchDirectory()
        try Self.writeProfile(
            to: scratch.file("profile.json"), colorimetry: Colorimetry(matrix: .bt709, range: .limited), width: 640, height: 480)
        let server = try ServerProcess(["--source", "testpattern", "--size", "320x240", "--profile", scratch.file("profile.json")])
        try waitUntil("ten frames, each checked against the profile") { try server.framesCaptured() >= 10 }
        let stopped = server.stop()
        #expect(stopped.status == 0)
        let lines = stopped.stderr.split(separator: "\n")
        #expect(
            lines.filter { $0.hasPrefix("eyedropper: warning: the profile was made from bt709 limited frames, these are bt601 limited") }
                .count == 1, "\(stopped.stderr)")
        #expect(
            lines.filter { $0.hasPrefix("eyedropper: warning: the profile was made at 640x480, these frames are 320x240") }.count == 1,
            "\(stopped.stderr)")
    }

    /// A profile that cannot be used stops serve before it listens, in one line naming the file
    /// (and for a damaged one the field), with `sample --profile`'s status: 65 damaged or not a
    /// profile, 66 missing. Catches a profile read only once serving (serve would listen, and be
    /// killed 30 s on), an error of several lines, or another status.
    @Test func unusableProfileStopsServeAtTheStart() throws {
        let scratch = try ScratchDirectory()
        try Self.writeProfile(
            to: scratch.file("profile.json"), colorimetry: Colorimetry(matrix: .bt709, range: .limited), width: 1280, height: 720)
        try writeDamagedProfile(from: scratch.file("profile.json"), to: scratch.file("damaged.json"))
        try ScratchDirectory.write(Array(#"{"brightness": 128}"#.utf8), to: scratch.file("controls.json"))
        for (file, status, words) in [
            ("damaged.json", 65, ["damaged.json", "at field correction.matrix"]),
            ("controls.json", 65, ["controls.json", "is not an Eyedropper camera profile"]),
            ("none.json", 66, ["none.json"]),
        ] as [(String, Int32, [String])] {
            let result = try Self.serveThatStops(["--source", "testpattern", "--profile", scratch.file(file), "--target", "50,0,0"])
            #expect(result.status == status, "\(file): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stderr.hasPrefix("eyedropper: "), "\(file): \(result.stderr)")
            #expect(words.allSatisfy { result.stderr.contains($0) }, "\(file): \(result.stderr)")
        }
    }

    /// A profile fitted in process, written as `calibrate` writes it.
    @discardableResult
    static func writeProfile(to path: String, colorimetry: Colorimetry, width: Int, height: Int) throws -> CameraProfile {
        let profile = try simulatedProfile(colorimetry: colorimetry, width: width, height: height)
        try ScratchDirectory.write(profile.json(), to: path)
        return profile
    }

    /// `eyedropper serve ARGUMENTS`, which should stop at the start: its status and stderr. One
    /// that says it is serving is killed then (status 9), so a test of it fails rather than hangs;
    /// one that neither stops nor serves, 30 s on.
    /// `asNobody`: run as user and group 65534 through util-linux's setpriv (when this is root).
    static func serveThatStops(
        _ arguments: [String], listen: String = "127.0.0.1:0", environment: [String: String] = [:], asNobody: Bool = false
    ) throws -> (status: Int32, stderr: String) {
        let process = Process()
        process.executableURL = eyedropperExecutable
        process.arguments = ["serve", "--listen", listen] + arguments
        if asNobody {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/setpriv")
            process.arguments = ["--reuid=65534", "--regid=65534", "--clear-groups", eyedropperExecutable.path] + process.arguments!
        }
        process.environment = serveEnvironment(environment)
        let errors = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let fd = errors.fileHandleForReading.fileDescriptor
        var stderr: [UInt8] = [], chunk = [UInt8](repeating: 0, count: 4096)
        let deadline = ContinuousClock.now + .seconds(30)
        var stopped = false
        while !stopped && ContinuousClock.now < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10) == 1 else { continue }
            let count = read(fd, &chunk, chunk.count)
            stopped = count <= 0  // the end of stderr: it is stopping by itself
            stderr += chunk[..<max(count, 0)]
            let text = String(decoding: stderr, as: UTF8.self)
            if text.contains(" on http://") || text.contains(" on https://") { break }  // serving: it did not stop
        }
        if !stopped { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        stderr += errors.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: stderr, as: UTF8.self))
    }

    static func count(_ text: String, in bytes: [UInt8]) -> Int {
        var count = 0, rest = bytes[...]
        let pattern = Array(text.utf8)
        while rest.count >= pattern.count {
            if rest.starts(with: pattern) {
                count += 1
                rest = rest.dropFirst(pattern.count)
            } else {
                rest = rest.dropFirst()
            }
        }
        return count
    }
}
