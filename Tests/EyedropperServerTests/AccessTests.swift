import Eyedropper
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Hummingbird
import Testing

/// A server with a token (`--token-file`, `EYEDROPPER_TOKEN`), in process: every route but the page
/// and `/healthz` answers 401 without `Authorization: Bearer TOKEN`, and as it always did with it.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct AccessTests {
    static let token = "0123456789abcdef0123456789abcdef"

    /// What each path of the server answers with the token, by method (any method not listed: 405),
    /// and the target asked for. `everyRouteIsInTheTable` holds this to the router's own list, so a
    /// route added later fails that test until it is here, and so is checked below.
    static let table: [(path: String, target: String, answers: [HTTPRequest.Method: HTTPResponse.Status])] = [
        ("/", "/", [.get: .ok]),
        ("/healthz", "/healthz", [.get: .ok]),
        ("/api/v1/sample", "/api/v1/sample?at=0.5,0.5", [.get: .ok]),
        ("/api/v1/samples", "/api/v1/samples", [.get: .ok]),
        ("/api/v1/chart", "/api/v1/chart", [.get: .ok]),
        // Started without --profile-dir: calibrating and applying a profile are 409.
        ("/api/v1/calibration", "/api/v1/calibration?frames=1", [.post: .conflict]),
        ("/api/v1/profile", "/api/v1/profile", [.put: .conflict]),
        ("/api/v1/frame.jpg", "/api/v1/frame.jpg", [.get: .ok]),
        ("/api/v1/stream.mjpg", "/api/v1/stream.mjpg", [.get: .ok]),
        ("/api/v1/recording.y4m", "/api/v1/recording.y4m?frames=1", [.get: .ok]),
        // The test pattern is not a camera: setting or locking its controls is 409.
        ("/api/v1/controls", "/api/v1/controls", [.get: .ok, .put: .conflict]),
        ("/api/v1/controls/lock", "/api/v1/controls/lock", [.post: .conflict]),
        ("/api/v1/status", "/api/v1/status", [.get: .ok]),
        ("/metrics", "/metrics", [.get: .ok]),
        ("/api/v1/openapi.json", "/api/v1/openapi.json", [.get: .ok]),
    ]
    /// The methods every path has a route for (those it does not answer give 405).
    static let methods: [HTTPRequest.Method] = [.get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!]
    /// Open to anyone: the page (a browser cannot send a header when it navigates) and the health check.
    static let open: Set<String> = ["/", "/healthz"]
    /// Endless responses: read while two frames are captured, then left.
    static let streams: Set<String> = ["/api/v1/samples", "/api/v1/stream.mjpg"]

    /// The router's routes are exactly the table's paths, each with every method. Catches a route
    /// added to the server and not to the table, which the tests below would then not cover.
    @Test func everyRouteIsInTheTable() throws {
        let routes = try EyedropperServer.routes(Self.configuration())
        let expected = Self.table.flatMap { entry in Self.methods.map { "\($0.rawValue) \(entry.path)" } }
        #expect(Set(routes.map(\.description)) == Set(expected), "\(routes)")
        #expect(routes.count == expected.count, "a route listed twice: \(routes)")
    }

    /// Every route with no Authorization, a wrong token of the same length, shorter, longer, the
    /// right one under another scheme, and the right one. Catches an endpoint left open (a 200
    /// where 401 belongs), a comparison of only a prefix or only the length, `Basic` taken for
    /// `Bearer`, the page or /healthz closed, or the token breaking an endpoint's normal answer.
    @Test func everyRouteNeedsTheTokenButThePageAndHealth() async throws {
        let wrong: [String?] = [
            nil, "Bearer " + String(Self.token.reversed()), "Bearer " + Self.token.dropLast(), "Bearer " + Self.token + "0",
            "Bearer " + Self.token.prefix(1), "Basic " + Self.token, "Bearer", Self.token,
        ]
        try await withTokenServer { client, authorized in
            for (path, target, answers) in Self.table {
                for method in Self.methods {
                    let normal = answers[method] ?? .methodNotAllowed
                    for authorization in wrong {
                        var headers = HTTPFields()
                        if let authorization { headers[.authorization] = authorization }
                        let response = try await client.execute(uri: target, method: method, headers: headers, body: Self.body(method))
                        let what = "\(method) \(target) with \(authorization ?? "no Authorization")"
                        if Self.open.contains(path) {
                            #expect(response.status == normal, "\(what): \(response.status)")
                        } else {
                            Self.expectUnauthorized(response, tokenGiven: authorization != nil, what)
                        }
                    }
                    let response =
                        method == .get && Self.streams.contains(path)
                        ? try await readStream(target, whileCapturing: 2, authorized)
                        : try await authorized.execute(uri: target, method: method, body: Self.body(method))
                    #expect(
                        response.status == normal, "\(method) \(target) with the token: \(response.status) \(response.text.prefix(200))")
                    if normal == .ok, method == .get {
                        #expect(response.body.readableBytes > 0, "\(target): an empty body")
                    }
                }
            }
        }
    }

    /// An unknown path says 401 without the token, word for word what a known one says, and 404
    /// only with it. Catches a 404 that tells an outsider which paths exist.
    @Test func unknownPathsAreRefusedLikeKnownOnes() async throws {
        try await withTokenServer { client, authorized in
            let known = try await client.get("/api/v1/status")
            for target in ["/api/v1/nothing", "/favicon.ico", "/api/v2/sample", "/healthz/more"] {
                let refused = try await client.get(target)
                Self.expectUnauthorized(refused, tokenGiven: false, target)
                #expect(refused.text == known.text, "\(target)")
                #expect(try await authorized.get(target).status == .notFound, "\(target)")
            }
        }
    }

    /// The 401 body, byte for byte: the error JSON every endpoint speaks, naming the header.
    @Test func unauthorizedBodyIsExact() async throws {
        try await withTokenServer { client, _ in
            let none = try await client.get("/api/v1/sample")
            #expect(
                none.text
                    == #"{"error":"this server needs a token: send the header Authorization: Bearer TOKEN, with the token of serve's --token-file or EYEDROPPER_TOKEN (the page: open \/#token=TOKEN)","parameter":"Authorization"}"#
            )
            let wrong = try await client.execute(uri: "/api/v1/sample", method: .get, headers: [.authorization: "Bearer nope"])
            #expect(
                wrong.text
                    == #"{"error":"the token in Authorization is not this server's: send the header Authorization: Bearer TOKEN, with the token of serve's --token-file or EYEDROPPER_TOKEN (the page: open \/#token=TOKEN)","parameter":"Authorization"}"#
            )
        }
    }

    /// The scheme is case-insensitive (RFC 7235) and the token may follow more than one space;
    /// the token itself is not. Catches a client's `bearer` refused, or `TOKEN` in another case taken.
    @Test func schemeIsCaseInsensitiveTokenIsNot() async throws {
        try await withTokenServer { client, _ in
            for (authorization, status) in [
                ("bearer " + Self.token, HTTPResponse.Status.ok), ("BEARER  " + Self.token, .ok),
                ("Bearer " + Self.token.uppercased(), .unauthorized),
            ] {
                let response = try await client.execute(uri: "/api/v1/status", method: .get, headers: [.authorization: authorization])
                #expect(response.status == status, "\(authorization)")
            }
        }
    }

    /// Without a token the server is as it was: every endpoint answers with no header, and an
    /// Authorization header that happens to come is ignored. Catches a server that asks for a token
    /// it was not given, or refuses a header it has no use for.
    @Test func withoutATokenNothingIsAsked() async throws {
        try await withServer(serveConfiguration(ServerTests.small)) { client in
            #expect(try await client.get("/api/v1/status").status == .ok)
            let withHeader = try await client.execute(uri: "/api/v1/sample", method: .get, headers: [.authorization: "Bearer whatever"])
            #expect(withHeader.status == .ok)
        }
    }

    /// `/healthz`: 200 with `{"status":"ok"}` as JSON, with or without a token on the server;
    /// another method 405 with `Allow: GET`, as every route. Catches a health check that needs the
    /// token, or one that answers other methods.
    @Test(arguments: [false, true]) func healthzAnswersOK(withToken: Bool) async throws {
        let check: @Sendable (InProcessClient) async throws -> Void = { client in
            let health = try await client.get("/healthz")
            #expect(health.status == .ok)
            #expect(health.headers[.contentType] == "application/json")
            #expect(health.text == #"{"status":"ok"}"#)
            let post = try await client.post("/healthz", body: ByteBuffer())
            #expect(post.status == .methodNotAllowed)
            #expect(post.headers[.allow] == "GET")
            #expect(post.text == #"{"error":"\/healthz answers GET only, not POST"}"#)
        }
        if withToken {
            try await withTokenServer { client, _ in try await check(client) }
        } else {
            try await withServer(serveConfiguration(ServerTests.small)) { client in try await check(client) }
        }
    }

    /// The token as `--token-file` and `EYEDROPPER_TOKEN` give it: surrounding whitespace trimmed;
    /// nothing left, or a character a header cannot carry, is no token. Its description never
    /// shows it. Catches a file's final newline kept (every request then refused), an empty token
    /// (anyone would pass), or a token printed where a configuration is logged.
    @Test func tokenTextIsTrimmedAndChecked() {
        #expect(BearerToken("  \(Self.token)\r\n") == BearerToken(Self.token))
        for unusable in ["", " \n\t", "two words", "caf\u{e9}", "tab\tinside", "nul\u{0}"] {
            #expect(BearerToken(unusable) == nil, "\(unusable.debugDescription)")
        }
        let description = "\(BearerToken(Self.token)!)"
        #expect(!description.contains(Self.token) && !description.contains("0123"), "\(description)")
    }

    // MARK: - helpers

    static func configuration() -> ServeConfiguration {
        var configuration = serveConfiguration(ServerTests.small)
        configuration.settings = try! ServeSettings(token: BearerToken(token))
        return configuration
    }

    /// A body for the methods that take one: PUT sends the controls object `PUT /api/v1/controls` reads.
    static func body(_ method: HTTPRequest.Method) -> ByteBuffer? {
        method == .put ? ByteBuffer(string: #"{"brightness": 128}"#) : nil
    }

    static func expectUnauthorized(_ response: TestResponse, tokenGiven: Bool, _ what: String) {
        #expect(response.status == .unauthorized, "\(what): \(response.status)")
        #expect(response.headers[.wwwAuthenticate] == "Bearer", "\(what)")
        #expect(response.headers[.contentType] == "application/json", "\(what)")
        #expect(response.json["parameter"] as? String == "Authorization", "\(what): \(response.text)")
        let start = tokenGiven ? "the token in Authorization is not this server's: " : "this server needs a token: "
        #expect((response.json["error"] as? String)?.hasPrefix(start) == true, "\(what): \(response.text)")
    }

    /// Runs `test` against a server with `token`, in process, once a frame is captured: `client`
    /// sends what it is told, `authorized` adds the token to every request.
    func withTokenServer(_ test: @escaping @Sendable (InProcessClient, InProcessClient) async throws -> Void) async throws {
        let app = try buildApplication(Self.configuration())
        try await onServerThreads {
            try await app.test { client in
                let authorized = client.sending([.authorization: "Bearer " + Self.token])
                try await waitForFrames(1, authorized)
                try await test(client, authorized)
            }
        }
    }
}
