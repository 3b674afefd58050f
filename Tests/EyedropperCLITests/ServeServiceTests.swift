import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `eyedropper serve` as a service: its configuration file (`--config`), a reload on SIGHUP, and
/// what it tells systemd (sd_notify), through the built executable, a real socket for the
/// notifications and real HTTP connections.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct ServeServiceTests {
    static let (token, newToken) = ("first-token-0123456789abcdef", "second-token-0123456789abcdef")

    /// The file's options are serve's: the points it names are sampled and the token it names is
    /// asked for. Catches a file not read, or its values not reaching serve.
    @Test func theConfigurationFileSaysWhatTheCommandLineWould() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array("\(Self.token)\n".utf8), to: scratch.file("token"))
        try write(
            """
            # a comment, then a blank line

            source testpattern
              size 64x64
            at 0.1,0.5
            at 0.9,0.5
            token-file \(scratch.file("token"))
            """, to: scratch.file("serve.conf"))
        let server = try ServerProcess(["--config", scratch.file("serve.conf")], token: Self.token)
        #expect(try httpGet(port: server.port, "/api/v1/status").status == 401)
        let status = try server.get("/api/v1/status").json
        #expect(status["points"] as? [[Double]] == [[0.1, 0.5], [0.9, 0.5]], "\(status)")
        #expect(status["format"] as? String == "64x64 YU12 (test pattern)", "\(status)")
        #expect(server.stop().status == 0)
    }

    /// A file serve cannot use stops it at the start with one line naming the file, the line and
    /// what to do. Catches a line skipped in silence, an error without the line, or usage text.
    @Test(arguments: [
        ("--listen 127.0.0.1:0", 65, "line 2: \"--listen\" is not an option name: write serve's long options without their dashes"),
        ("colour red", 64, "Unknown option '--colour' (--config $FILE line 2: colour red)"),
        ("listen nowhere", 64, "(--config $FILE line 2: listen nowhere)"),
        ("config other.conf", 65, "line 2: a configuration file cannot name another"),
    ])
    func aFileServeCannotUseStopsItAtTheStart(line: String, status: Int32, message: String) throws {
        let scratch = try ScratchDirectory()
        try write("source testpattern\n\(line)\n", to: scratch.file("serve.conf"))
        let result = try ServeCommandTests.serveThatStops(["--config", scratch.file("serve.conf")])
        #expect(result.status == status, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(result.stderr.contains(message.replacing("$FILE", with: scratch.file("serve.conf"))), "\(result.stderr)")
    }

    @Test func aMissingFileExits66() throws {
        let result = try ServeCommandTests.serveThatStops(["--config", "/nonexistent/serve.conf"])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr == "eyedropper: --config /nonexistent/serve.conf: cannot read it: No such file or directory\n")
    }

    /// SIGHUP reads the file again: the new token file's token is asked for (the old one refused),
    /// the new profile and target calibrate the samples, an option that needs a restart is said,
    /// and an event stream open throughout keeps receiving. Catches a reload that reads nothing,
    /// keeps the old token, drops the clients, or passes over a changed option in silence.
    @Test func aReloadLoadsTheFilesAgainWithoutDroppingAStream() throws {
        let scratch = try ScratchDirectory()
        let profiles = try writeProfiles(in: scratch)
        try ScratchDirectory.write(Array("\(Self.token)\n".utf8), to: scratch.file("token"))
        let configuration = scratch.file("serve.conf")
        let common = "source testpattern\nsize 64x64\nfps 20\ntoken-file \(scratch.file("token"))\n"
        try write(common + "profile \(profiles.linear)\nat 0.5,0.5\n", to: configuration)
        let server = try ServerProcess(["--config", configuration], token: Self.token)
        #expect(try server.get("/api/v1/status").json["reload"] == nil)
        let stream = try HTTPConnection(port: server.port)
        #expect(try stream.get("/api/v1/samples", authorization: "Bearer \(Self.token)").status == 200)
        _ = try stream.readBody { ServeCommandTests.count("data:", in: $0) >= 2 }

        try ScratchDirectory.write(Array("\(Self.newToken)\n".utf8), to: scratch.file("token"))
        try write(common + "profile \(profiles.affine)\ntarget 50,0,0\nat 0.25,0.5\n", to: configuration)
        kill(server.process.processIdentifier, SIGHUP)
        let reload = try waitForReload(port: server.port, count: 1, token: Self.newToken)
        #expect(reload["errors"] as? [String] == [], "\(reload)")
        #expect(reload["restartNeeded"] as? [String] == ["at"], "\(reload)")
        #expect(try httpGet(port: server.port, "/api/v1/status", authorization: "Bearer \(Self.token)").status == 401)
        let status = try httpGet(port: server.port, "/api/v1/status", authorization: "Bearer \(Self.newToken)").json
        let profile = status["profile"] as? [String: Any]
        #expect(profile?["path"] as? String == profiles.affine, "\(status)")
        #expect(profile?["model"] as? String == "affine-3x4", "\(status)")
        #expect((status["target"] as? [String: Any])?["lab"] as? [Double] == [50, 0, 0], "\(status)")
        #expect(status["points"] as? [[Double]] == [[0.5, 0.5]], "the points take a restart: \(status)")
        #expect(status["generation"] as? Int == 1, "\(status)")
        // The stream opened before the reload: events calibrated against the new target follow,
        // each naming the profile that made it, the old before the new and never after.
        let events = try stream.readBody { ServeCommandTests.count("\"deltaE\"", in: $0) >= 2 }
        #expect(ServeCommandTests.count("\"deltaE\"", in: events) >= 2)
        // Whole events only: the body read so far may end inside one.
        let lines = String(decoding: events, as: UTF8.self).components(separatedBy: "\n\n").dropLast().flatMap { $0.split(separator: "\n") }
            .filter {
                $0.hasPrefix("data: ")
            }
        let stamps = lines.map { line in
            line.hasSuffix(#""profile":{"file":"affine.json","generation":1}}"#)
                ? 1 : line.hasSuffix(#""profile":{"file":"linear.json","generation":0}}"#) ? 0 : -1
        }
        #expect(!stamps.isEmpty && !stamps.contains(-1) && stamps == stamps.sorted() && stamps.last == 1, "\(stamps)")
        // The old settings had no target, the new have: each event's ΔE is there by its own stamp.
        #expect(zip(lines, stamps).allSatisfy { $0.contains("\"deltaE\"") == ($1 == 1) }, "\(lines)")
        let stopped = server.stop()
        #expect(stopped.status == 0)
        #expect(stopped.stderr.contains("eyedropper: reloaded (1): the profile \(profiles.affine) with the target 50,0,0, the token of"))
        #expect(stopped.stderr.contains("eyedropper: reload: changed, taking effect at the next restart: at"), "\(stopped.stderr)")
        #expect(!stopped.stderr.contains(Self.newToken))
    }

    /// A reload whose files fail keeps what was served, says each failure in the status and on
    /// stderr, and the server goes on. Catches a failed file replacing the good one (no profile,
    /// no token: an open server), a silent failure, or a server that exits.
    @Test func aReloadThatFailsKeepsWhatWasServed() throws {
        let scratch = try ScratchDirectory()
        let profiles = try writeProfiles(in: scratch)
        try writeDamagedProfile(from: profiles.linear, to: scratch.file("damaged.json"))
        try ScratchDirectory.write(Array("\(Self.token)\n".utf8), to: scratch.file("token"))
        let configuration = scratch.file("serve.conf")
        let common = "source testpattern\nsize 64x64\ntoken-file \(scratch.file("token"))\n"
        try write(common + "profile \(profiles.linear)\n", to: configuration)
        let server = try ServerProcess(["--config", configuration], token: Self.token)

        try ScratchDirectory.write(Array(" \n".utf8), to: scratch.file("token"))
        try write(common + "profile \(scratch.file("damaged.json"))\n", to: configuration)
        kill(server.process.processIdentifier, SIGHUP)
        let reload = try waitForReload(port: server.port, count: 1, token: Self.token)
        let errors = reload["errors"] as? [String] ?? []
        #expect(errors.count == 2, "\(reload)")
        #expect(
            errors.contains {
                $0.contains("damaged.json") && $0.contains("correction.matrix") && $0.hasSuffix("(the profile served is kept)")
            })
        #expect(errors.contains { $0.contains(scratch.file("token")) && $0.hasSuffix("(the token asked for is kept)") })
        let status = try server.get("/api/v1/status").json
        #expect((status["profile"] as? [String: Any])?["path"] as? String == profiles.linear, "\(status)")
        #expect(try httpGet(port: server.port, "/api/v1/status").status == 401)

        // A file that is not a configuration at all: nothing is reloaded, and that is said.
        try write("profile\n--oops\n", to: configuration)
        kill(server.process.processIdentifier, SIGHUP)
        let broken = try waitForReload(port: server.port, count: 2, token: Self.token)
        #expect(
            broken["errors"] as? [String] == [
                "--config \(configuration) line 2: \"--oops\" is not an option name: write serve's long options without their dashes, one a line, as `listen 0.0.0.0:8080` (see eyedropper serve --help); nothing was reloaded"
            ], "\(broken)")
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        #expect(stopped.stderr.contains("eyedropper: reload: \(errors.first ?? "?")"), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("eyedropper: reloaded (1): nothing loaded; 2 failed, kept as they were"), "\(stopped.stderr)")
    }

    /// What systemd hears: READY=1 with a STATUS= once the first frame is in, WATCHDOG=1 at half
    /// the interval asked, RELOADING=1 then READY=1 around a reload, STOPPING=1 at the end; no
    /// WATCHDOG=1 when WATCHDOG_PID names another process. Catches a service that never says it
    /// is ready (systemd would time it out), pings too rarely for the watchdog, or pings for
    /// another process's watchdog.
    @Test func systemdHearsReadyStatusWatchdogReloadAndStop() throws {
        let scratch = try ScratchDirectory()
        let socket = try NotifySocket(path: scratch.file("notify"))
        let server = try ServerProcess(
            ["--source", "testpattern", "--size", "64x64", "--fps", "20"],
            environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        var messages = socket.receive(for: 1.2)
        let ready = messages.firstIndex { $0.hasPrefix("READY=1\n") }
        #expect(ready != nil, "\(messages)")
        #expect(
            messages.first { $0.hasPrefix("READY=1\n") }?.contains("STATUS=testpattern: 64x64 YU12 (test pattern)") == true, "\(messages)")
        // 200 ms apart over 1.2 s: at least 4 (the first at the first frame).
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 4, "\(messages)")
        kill(server.process.processIdentifier, SIGHUP)
        messages = socket.receive(for: 0.5).filter { $0 != "WATCHDOG=1" }
        #expect(
            messages.count == 2 && messages[0].hasPrefix("RELOADING=1\nMONOTONIC_USEC=") && messages[1].hasPrefix("READY=1\nSTATUS="),
            "\(messages)")
        let stopped = server.stop()
        #expect(stopped.status == 0)
        #expect(socket.receive(for: 0.3).contains("STOPPING=1"))

        let other = try ServerProcess(
            ["--source", "testpattern", "--size", "64x64", "--fps", "20"],
            environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000", "WATCHDOG_PID": "1"])
        let heard = socket.receive(for: 1)
        #expect(heard.contains { $0.hasPrefix("READY=1\n") } && !heard.contains("WATCHDOG=1"), "\(heard)")
        #expect(other.stop().status == 0)
    }

    /// A camera that is not there, with --reconnect: serve is ready all the same (it waits for the camera), and its
    /// STATUS= says why there are no frames, while the watchdog pings go on from the wait. Catches
    /// a start that systemd would hold until its timeout, or a watchdog that restarts a service
    /// only waiting for its camera.
    @Test func aMissingCameraIsReadyAndSaysWhy() throws {
        let scratch = try ScratchDirectory()
        let socket = try NotifySocket(path: scratch.file("notify"))
        let server = try ServerProcess(
            ["--source", "/dev/video-not-here", "--reconnect"], waitForFrame: false,
            environment: ["NOTIFY_SOCKET": socket.path, "WATCHDOG_USEC": "400000"])
        let messages = socket.receive(for: 1.2)
        let ready = messages.first { $0.hasPrefix("READY=1\n") }
        #expect(ready?.contains("STATUS=/dev/video-not-here: no frames: ") == true, "\(messages)")
        #expect(messages.filter { $0 == "WATCHDOG=1" }.count >= 4, "\(messages)")
        #expect(server.stop().status == 0)
    }

    /// Under journald (JOURNAL_STREAM names stderr), each line starts with its syslog priority
    /// instead of the tool's name; a JOURNAL_STREAM that names another stream changes nothing.
    /// Catches a priority that is wrong (a warning at 3), missing, or given to a terminal.
    @Test func journaldReadsEachLinesPriority() throws {
        func serve(journal: (Pipe) -> String) throws -> [String] {
            let process = Process()
            process.executableURL = eyedropperExecutable
            process.arguments = ["serve", "--source", "testpattern", "--listen", "0.0.0.0:0", "--no-auth", "--config", "/nonexistent.conf"]
            let errors = Pipe()
            process.standardError = errors
            process.environment = serveEnvironment(["JOURNAL_STREAM": journal(errors)])
            try process.run()
            process.waitUntilExit()
            return String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n").map(
                String.init)
        }
        let stream = { (pipe: Pipe) -> String in
            var status = stat()
            fstat(pipe.fileHandleForWriting.fileDescriptor, &status)
            return "\(status.st_dev):\(status.st_ino)"
        }
        #expect(try serve(journal: stream) == ["<3>--config /nonexistent.conf: cannot read it: No such file or directory"])
        #expect(
            try serve(journal: { _ in "1:2" }) == ["eyedropper: --config /nonexistent.conf: cannot read it: No such file or directory"])

        let scratch = try ScratchDirectory()
        try write("source testpattern\nsize 64x64\nlisten 0.0.0.0:0\nno-auth\n", to: scratch.file("serve.conf"))
        let process = Process()
        process.executableURL = eyedropperExecutable
        process.arguments = ["serve", "--config", scratch.file("serve.conf")]
        let errors = Pipe()
        process.standardError = errors
        process.environment = serveEnvironment(["JOURNAL_STREAM": stream(errors)])
        try process.run()
        usleep(1_000_000)
        process.terminate()
        process.waitUntilExit()
        let lines = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self).split(separator: "\n")
        #expect(lines.first?.hasPrefix("<4>warning: --no-auth: listening on 0.0.0.0") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("<5>serving testpattern on http://0.0.0.0:") }, "\(lines)")
    }

    // MARK: - Helpers

    private func write(_ text: String, to path: String) throws { try ScratchDirectory.write(Array(text.utf8), to: path) }

    /// Two profiles of the test pattern's colorimetry and size (64x64), of two models.
    private func writeProfiles(in scratch: ScratchDirectory) throws -> (linear: String, affine: String) {
        let colorimetry = Colorimetry(matrix: .bt709, range: .limited)
        for (name, model) in [("linear", CorrectionModel.linear), ("affine", .affine)] {
            let profile = try simulatedProfile(colorimetry: colorimetry, width: 64, height: 64, model: model)
            try ScratchDirectory.write(profile.json(), to: scratch.file("\(name).json"))
        }
        return (scratch.file("linear.json"), scratch.file("affine.json"))
    }

    /// The status's `reload` once its count is `count`; throws after 10 s.
    private func waitForReload(port: Int, count: Int, token: String) throws -> [String: Any] {
        for _ in 0..<200 {
            let status = try httpGet(port: port, "/api/v1/status", authorization: "Bearer \(token)").json
            if let reload = status["reload"] as? [String: Any], reload["count"] as? Int == count { return reload }
            usleep(50_000)
        }
        throw HTTPTestError("no reload \(count) in the status within 10 s")
    }
}

/// A `NOTIFY_SOCKET` of the test's own: the datagrams a service sends systemd.
final class NotifySocket {
    let path: String
    private let fd: Int32

    init(path: String) throws {
        self.path = path
        fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard fd >= 0, bound == 0 else { throw HTTPTestError("cannot bind \(path): errno \(errno)") }
    }

    deinit { close(fd) }

    /// Every datagram that arrives within `seconds`.
    func receive(for seconds: Double) -> [String] {
        var messages: [String] = []
        let end = Date.now.addingTimeInterval(seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while Date.now < end {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, Int32(max(1, end.timeIntervalSinceNow * 1000))) == 1 else { continue }
            let count = recv(fd, &buffer, buffer.count, 0)
            if count > 0 { messages.append(String(decoding: buffer[..<count], as: UTF8.self)) }
        }
        return messages
    }
}
