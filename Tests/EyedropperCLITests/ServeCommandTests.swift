import Eyedropper
import EyedropperTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `eyedropper serve` as a process, for what needs one: signals, real sockets whose clients stop
/// reading or leave early, the warning on stderr, usage errors. Every endpoint's answers are
/// tested in process by EyedropperServerTests.
@Suite(.timeLimit(.minutes(1))) struct ServeCommandTests {
    /// The sample endpoint gives what `eyedropper sample` prints for the same points: the service
    /// and the command share one sampler and one JSON writer. Catches the two drifting apart.
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
        for _ in 0..<50 where status != 200 {
            usleep(100_000)
            status = try HTTPConnection(port: server.port).get("/api/v1/stream.mjpg").status  // the head only
        }
        #expect(status == 200)
        _ = server.stop()
    }

    /// A client that stops reading holds up neither the capture nor other clients.
    @Test func stalledClientDoesNotSlowCapture() throws {
        let server = try ServerProcess(["--source", "testpattern", "--fps", "30"])
        let stalled = try HTTPConnection(port: server.port)
        _ = try stalled.get("/api/v1/stream.mjpg")  // and never read again
        let before = try server.get("/api/v1/status").json["framesCaptured"] as? Int ?? 0
        let start = Date()
        var answered = 0
        while Date().timeIntervalSince(start) < 3 {
            answered += try server.get("/api/v1/sample?at=0.5,0.5").status == 200 ? 1 : 0
        }
        let after = try server.get("/api/v1/status").json["framesCaptured"] as? Int ?? 0
        #expect(after - before >= 45, "only \(after - before) frames in 3 s")
        #expect(answered >= 30)
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
        let started = Date()
        let stopped = server.stop(signal: signal)
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(Date().timeIntervalSince(started) < 5)
        #expect(viewer.isClosedByServer())
        #expect(events.isClosedByServer())
    }

    /// A stream client that stopped reading (its socket buffers full, the server's write waiting)
    /// does not keep the server from stopping.
    @Test func stalledStreamDoesNotBlockShutdown() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        let stalled = try HTTPConnection(port: server.port)
        _ = try stalled.get("/api/v1/stream.mjpg")  // and never read again: after 10 s of 1280x720 parts the socket buffers (grown to about 4 MB) are full and the write waits
        sleep(10)
        let started = Date()
        let stopped = withExtendedLifetime(stalled) { server.stop() }
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(Date().timeIntervalSince(started) < 6)
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

    @Test func nonLoopbackListenWarns() throws {
        let server = try ServerProcess(["--source", "testpattern", "--size", "64x64"], listen: "0.0.0.0:0")
        let stopped = server.stop()
        #expect(stopped.stderr.contains("warning: listening on 0.0.0.0, not loopback"))
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
