import EyedropperServer
import EyedropperTestSupport
import Foundation
import Hummingbird
import Testing

/// The OpenAPI document (Sources/EyedropperServer/openapi.json) against the server: served as it
/// is kept, and describing every route the router has. Whether the answers match it is
/// Tests/API/schemathesis-tests.sh's work.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct OpenAPIDocumentTests {
    static let file = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources/EyedropperServer/openapi.json")

    /// `METHOD /path` of every operation in the document.
    static func documentedOperations() throws -> Set<String> {
        let document = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
        let paths = try #require(document["paths"] as? [String: [String: Any]])
        let methods: Set = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]
        return Set(paths.flatMap { path, item in item.keys.filter(methods.contains).map { "\($0.uppercased()) \(path)" } })
    }

    /// With a token, the document is served as the repository keeps it, byte for byte, as JSON.
    /// Catches a copy that drifted from the file, a stale build, or another content type.
    @Test func servedDocumentIsTheFile() async throws {
        let file = try [UInt8](Data(contentsOf: Self.file))
        var configuration = serveConfiguration(ServerTests.small)
        configuration.settings = try ServeSettings(token: BearerToken(AccessTests.token))
        try await withServer(configuration, waitForFrame: false) { client in
            let response = try await client.execute(
                uri: "/api/v1/openapi.json", method: .get, headers: [.authorization: "Bearer \(AccessTests.token)"])
            #expect(response.status == .ok)
            #expect(response.headers[.contentType] == "application/json")
            let same = response.bytes == file  // not inside #expect, which would print every byte
            #expect(same, "served \(response.bytes.count) bytes, the file has \(file.count)")
            #expect(response.json["openapi"] as? String == "3.1.0")
        }
    }

    /// Without a token, the document describes a server that asks none: the file's document less
    /// the bearer requirement, its scheme, the Unauthorized response and every 401, and nothing
    /// else changed. Catches a tokenless server that documents a token (schemathesis then sends
    /// requests without one and expects 401), and a rewrite that loses or alters anything more.
    @Test func withoutATokenTheDocumentAsksForNone() async throws {
        var expected = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: Self.file)) as? [String: Any])
        #expect(expected["security"] != nil, "the file asks for the token: the test below would prove nothing")
        expected["security"] = nil
        var components = try #require(expected["components"] as? [String: Any])
        components["securitySchemes"] = nil
        var responses = try #require(components["responses"] as? [String: Any])
        responses["Unauthorized"] = nil
        components["responses"] = responses
        expected["components"] = components
        var paths = try #require(expected["paths"] as? [String: [String: [String: Any]]])
        var removed = 0
        for (path, item) in paths {
            for (method, operation) in item {
                var operation = operation
                operation["security"] = nil
                var answers = try #require(operation["responses"] as? [String: Any])
                if answers.removeValue(forKey: "401") != nil { removed += 1 }
                operation["responses"] = answers
                paths[path]?[method] = operation
            }
        }
        expected["paths"] = paths
        #expect(removed >= 13, "401 answers in the file: \(removed)")
        let (bytes, text) = try await withServer(serveConfiguration(ServerTests.small), waitForFrame: false) { client in
            let response = try await client.get("/api/v1/openapi.json")
            #expect(response.status == .ok && response.headers[.contentType] == "application/json")
            return (response.bytes, response.text)
        }
        let served = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
        let same = NSDictionary(dictionary: served).isEqual(to: expected)
        #expect(same, "the served document differs from the file's beyond the token")
        #expect(!text.contains("\"401\"") && !text.contains("\"bearer\""), "a 401 or the bearer scheme is left")
    }

    /// Every route the router has is in the document, or only answers 405 (the refusals of other
    /// methods); every operation in the document is routed. Catches a new endpoint or method
    /// added without a document entry, and an entry for a route that is gone or misspelt.
    @Test func documentListsExactlyTheRoutes() async throws {
        let configuration = serveConfiguration(ServerTests.small)
        let routes = try Set(EyedropperServer.routes(configuration).map(\.description))
        let documented = try Self.documentedOperations()
        #expect(documented.subtracting(routes).isEmpty, "documented but not routed: \(documented.subtracting(routes).sorted())")
        let undocumented = routes.subtracting(documented)
        #expect(undocumented.count > 20, "the refusals of other methods: \(undocumented.sorted())")
        try await withServer(configuration, waitForFrame: false) { client in
            for route in undocumented.sorted() {
                let parts = route.split(separator: " ", maxSplits: 1).map(String.init)
                let response = try await client.execute(uri: parts[1], method: HTTPRequest.Method(parts[0])!)
                #expect(response.status == .methodNotAllowed, "\(route) is routed but not in openapi.json")
                #expect(response.headers[.allow] != nil, "\(route)")
            }
        }
    }
}
