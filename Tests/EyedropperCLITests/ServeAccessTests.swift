import EyedropperTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `eyedropper serve`'s access options through the built executable: what it refuses at the start
/// (exit status, one line on stderr), what it says, and the token over a real socket. The 401s of
/// every route are tested in process (EyedropperServerTests' AccessTests).
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct ServeAccessTests {
    static let token = "s3cret-token-0123456789abcdef"

    /// Beyond loopback with no token and no --no-auth: exit 64 before listening, one line saying
    /// both ways out. Catches a server that listens anyway (the old warning only), an error of
    /// several lines (usage text), or another status.
    @Test(arguments: ["0.0.0.0:0", "[::]:0"]) func nonLoopbackWithoutTokenExits64(listen: String) throws {
        let result = try ServeCommandTests.serveThatStops(["--source", "testpattern"], listen: listen)
        #expect(result.status == 64, "\(result.stderr)")
        Self.expectOneLine(result.stderr, saying: ["is not loopback", "--token-file FILE", "EYEDROPPER_TOKEN", "--no-auth"])
    }

    /// --no-auth serves a non-loopback address, says so in one warning line at the start, and asks
    /// for no token. Catches a --no-auth that is silent, said once per request, or still refuses.
    @Test func noAuthWarnsOnceAndAsksNothing() throws {
        let server = try ServerProcess(["--source", "testpattern", "--size", "64x64", "--no-auth"], listen: "0.0.0.0:0")
        #expect(try server.get("/api/v1/status").status == 200)
        let stopped = server.stop()
        let warnings = stopped.stderr.split(separator: "\n").filter { $0.contains("warning") }
        #expect(
            warnings == [
                "eyedropper: warning: --no-auth: listening on 0.0.0.0 with no token: anyone who can reach it can watch the camera and set its controls"
            ],
            "\(stopped.stderr)")
    }

    /// --token-file on a non-loopback address: 401 without the token (and with a wrong one), 200
    /// with it, /healthz and the page open; the file's final newline is not part of the token; the
    /// token never reaches stderr. Catches the file's newline kept, a token not asked for over a
    /// real socket, or the token logged.
    @Test func tokenFileGuardsTheServer() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array("  \(Self.token)\n".utf8), to: scratch.file("token"))
        let server = try ServerProcess(
            ["--source", "testpattern", "--size", "64x64", "--token-file", scratch.file("token")], listen: "0.0.0.0:0", token: Self.token)
        let refused = try httpGet(port: server.port, "/api/v1/status")
        #expect(refused.status == 401)
        #expect(refused.headers["www-authenticate"] == "Bearer")
        #expect(refused.json["parameter"] as? String == "Authorization", "\(refused.text)")
        #expect(try httpGet(port: server.port, "/api/v1/status", authorization: "Bearer wrong").status == 401)
        #expect(try server.get("/api/v1/status").status == 200)
        #expect(try httpGet(port: server.port, "/healthz").text == #"{"status":"ok"}"#)
        #expect(try httpGet(port: server.port, "/").status == 200)
        let stopped = server.stop()
        #expect(stopped.status == 0)
        #expect(!stopped.stderr.contains(Self.token), "\(stopped.stderr)")
        #expect(stopped.stderr.contains("needs Authorization: Bearer with the token of \(scratch.file("token"))"), "\(stopped.stderr)")
        #expect(!stopped.stderr.contains("warning"), "\(stopped.stderr)")
    }

    /// EYEDROPPER_TOKEN gives the token (on loopback too, where it is then asked for). With
    /// --token-file as well, the file's token is the one, and stderr says the variable is ignored.
    /// Catches the variable not read, or the variable winning over the command line.
    @Test func environmentTokenAndWhichWins() throws {
        let server = try ServerProcess(
            ["--source", "testpattern", "--size", "64x64"], environment: ["EYEDROPPER_TOKEN": Self.token], token: Self.token)
        #expect(try httpGet(port: server.port, "/api/v1/status").status == 401)
        #expect(try server.get("/api/v1/status").status == 200)
        let stopped = server.stop()
        #expect(stopped.stderr.contains("with the token of EYEDROPPER_TOKEN"), "\(stopped.stderr)")

        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array("file-token\n".utf8), to: scratch.file("token"))
        let both = try ServerProcess(
            ["--source", "testpattern", "--size", "64x64", "--token-file", scratch.file("token")],
            environment: ["EYEDROPPER_TOKEN": Self.token], token: "file-token")
        #expect(try both.get("/api/v1/status").status == 200)
        #expect(try httpGet(port: both.port, "/api/v1/status", authorization: "Bearer " + Self.token).status == 401)
        #expect(both.stop().stderr.contains("(EYEDROPPER_TOKEN is set too, and ignored)"))
    }

    /// Tokens that cannot be used stop serve at the start, in one line naming the file or the
    /// variable, never quoting its content: 66 a missing file, 65 an empty or unusable one or a
    /// directory, 64 an empty EYEDROPPER_TOKEN and --no-auth beside a token. Catches a server that
    /// starts with no token (anyone passes) or an empty one, a token quoted in the error, or
    /// another status than the codebase's.
    @Test func unusableTokensStopServeAtTheStart() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array(" \n\n".utf8), to: scratch.file("empty"))
        try ScratchDirectory.write(Array("two words\n".utf8), to: scratch.file("spaced"))
        try ScratchDirectory.write(Array(Self.token.utf8), to: scratch.file("token"))
        for (arguments, environment, status, words) in [
            (["--token-file", scratch.file("none")], [:], 66, [scratch.file("none"), "does not exist"]),
            (["--token-file", scratch.file("empty")], [:], 65, [scratch.file("empty"), "is empty"]),
            (["--token-file", scratch.file("spaced")], [:], 65, [scratch.file("spaced"), "visible ASCII"]),
            (["--token-file", scratch.path], [:], 65, [scratch.path, "cannot read"]),
            ([], ["EYEDROPPER_TOKEN": ""], 64, ["EYEDROPPER_TOKEN is empty"]),
            ([], ["EYEDROPPER_TOKEN": "two words"], 64, ["EYEDROPPER_TOKEN holds whitespace"]),
            (["--no-auth", "--token-file", scratch.file("token")], [:], 64, ["--no-auth and --token-file contradict"]),
            (["--no-auth"], ["EYEDROPPER_TOKEN": Self.token], 64, ["--no-auth and EYEDROPPER_TOKEN contradict"]),
        ] as [([String], [String: String], Int32, [String])] {
            let result = try ServeCommandTests.serveThatStops(["--source", "testpattern"] + arguments, environment: environment)
            #expect(result.status == status, "\(arguments) \(environment): \(result.stderr)")
            Self.expectOneLine(result.stderr, saying: words)
            #expect(!result.stderr.contains("two words") && !result.stderr.contains(Self.token), "\(result.stderr)")
        }
    }

    /// A token file this user may not read: 77. Root reads any file, so as root serve runs as
    /// nobody (setpriv, util-linux, in every Debian). Catches 65 or 66 for a permission refused.
    @Test func unreadableTokenFileExits77() throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array(Self.token.utf8), to: scratch.file("token"))
        chmod(scratch.path, 0o755)  // so that nobody is refused the file itself, not the directory
        chmod(scratch.file("token"), 0)
        let result = try ServeCommandTests.serveThatStops(
            ["--source", "testpattern", "--token-file", scratch.file("token")], asNobody: geteuid() == 0)
        #expect(result.status == 77, "\(result.stderr)")
        Self.expectOneLine(result.stderr, saying: [scratch.file("token"), "cannot read"])
    }

    static func expectOneLine(_ stderr: String, saying words: [String]) {
        #expect(stderr.split(separator: "\n").count == 1 && stderr.hasPrefix("eyedropper: "), "\(stderr)")
        for word in words { #expect(stderr.contains(word), "\(word) not in \(stderr)") }
    }
}
