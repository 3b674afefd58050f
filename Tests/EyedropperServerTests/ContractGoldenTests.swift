import Eyedropper
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Hummingbird
import Testing

/// The HTTP API's contract kept visible: every endpoint's status, headers and body (times, frame
/// numbers and counters masked), the status document's keys and value types, and the metric
/// names, compared with the files in Tests/Golden/http (see Golden: EYEDROPPER_UPDATE_GOLDEN=1
/// rewrites them for a deliberate change).
@Suite(.serialized, .timeLimit(.minutes(1)), .oneHeavySuiteAtATime) struct HTTPContractGoldenTests {
    static func configuration() -> ServeConfiguration {
        var configuration = serveConfiguration(.testPattern(width: 320, height: 240), points: [.center, try! SamplePoint(x: 0.1, y: 0.5)])
        configuration.radius = 1
        return configuration
    }

    /// Each request's status, headers and masked body, one file per endpoint and case.
    @Test func endpointsKeepTheirContract() async throws {
        try await withServer(Self.configuration()) { client in
            let plain: [(String, String, HTTPRequest.Method)] = [
                ("page", "/", .get),
                ("healthz", "/healthz", .get),
                ("openapi", "/api/v1/openapi.json", .get),
                ("sample", "/api/v1/sample", .get),
                ("sample-points", "/api/v1/sample?at=0.3,0.2&at=0.9,0.9&radius=2", .get),
                ("sample-unknown-parameter", "/api/v1/sample?colour=red", .get),
                ("sample-bad-point", "/api/v1/sample?at=1.5,0.5", .get),
                ("sample-bad-radius", "/api/v1/sample?radius=-1", .get),
                ("sample-post", "/api/v1/sample", .post),
                ("chart", "/api/v1/chart", .get),
                ("calibration-no-directory", "/api/v1/calibration", .post),
                ("controls", "/api/v1/controls", .get),
                ("controls-lock", "/api/v1/controls/lock", .post),
                ("not-found", "/api/v1/nothing", .get),
                ("status-bad-parameter", "/api/v1/status?x=1", .get),
            ]
            for (name, uri, method) in plain {
                let response = try await client.execute(uri: uri, method: method)
                try Golden.check(Self.record(method, uri, response, body: response.text), file: "http/\(name).txt")
            }
            let put = try await client.put("/api/v1/controls", body: #"{"brightness":1}"#)
            try Golden.check(Self.record(.put, "/api/v1/controls", put, body: put.text), file: "http/controls-put.txt")
            let profile = try await client.put("/api/v1/profile", body: #"{"name":"profile.json"}"#)
            try Golden.check(Self.record(.put, "/api/v1/profile", profile, body: profile.text), file: "http/profile-no-directory.txt")

            // The JPEG: its headers and that it is one (its bytes follow the frame's content).
            let jpeg = try await client.get("/api/v1/frame.jpg")
            let isJPEG = jpeg.bytes.starts(with: [0xFF, 0xD8]) && jpeg.bytes.suffix(2).elementsEqual([0xFF, 0xD9])
            try Golden.check(Self.record(.get, "/api/v1/frame.jpg", jpeg, body: "JPEG: \(isJPEG)\n"), file: "http/frame-jpg.txt")

            // Streams: the headers, and the first event's or part's shape.
            let events = try await readStream("/api/v1/samples", whileCapturing: 2, client)
            let firstEvent = events.text.components(separatedBy: "\n\n").first ?? ""
            try Golden.check(Self.record(.get, "/api/v1/samples", events, body: firstEvent + "\n"), file: "http/samples-stream.txt")
            let mjpeg = try await readStream("/api/v1/stream.mjpg", whileCapturing: 2, client)
            let partHeaders = mjpeg.text.components(separatedBy: "\r\n\r\n").first ?? ""
            try Golden.check(Self.record(.get, "/api/v1/stream.mjpg", mjpeg, body: partHeaders + "\n"), file: "http/stream-mjpg.txt")

            // The status document: every key with its value's type (values vary with time).
            let status = try await client.get("/api/v1/status")
            let object = try JSONSerialization.jsonObject(with: Data(status.bytes))
            try Golden.check(
                Self.record(.get, "/api/v1/status", status, body: Self.shape(object, path: "").joined(separator: "\n") + "\n"),
                file: "http/status-keys.txt")

            // The metric names and their label names (values vary).
            let metrics = try await client.get("/metrics")
            try Golden.check(Self.record(.get, "/metrics", metrics, body: Self.metricNames(metrics.text)), file: "http/metrics-names.txt")
        }
    }

    /// With a token: what a request without one is answered, and the open page and health check.
    @Test func tokenRefusalKeepsItsContract() async throws {
        var configuration = Self.configuration()
        configuration.settings = try ServeSettings(token: BearerToken("0123456789abcdef0123456789abcdef"))
        try await withServer(configuration, waitForFrame: false) { client in
            for (name, uri) in [("token-missing", "/api/v1/status"), ("token-page", "/"), ("token-healthz", "/healthz")] {
                let response = try await client.get(uri)
                let body =
                    name == "token-page" ? "(the page, as without a token: \(response.text == (try await Self.page())))\n" : response.text
                try Golden.check(Self.record(.get, uri, response, body: body), file: "http/\(name).txt")
            }
            let wrong = try await client.execute(uri: "/api/v1/sample", method: .get, headers: [.authorization: "Bearer nope"])
            try Golden.check(Self.record(.get, "/api/v1/sample", wrong, body: wrong.text), file: "http/token-wrong.txt")
        }
    }

    /// The page of a server without a token, for comparison.
    static func page() async throws -> String {
        try await withServer(configuration(), waitForFrame: false) { try await $0.get("/").text }
    }

    /// Status line, sorted headers (Date and Content-Length of varying bodies masked), and body.
    static func record(_ method: HTTPRequest.Method, _ uri: String, _ response: TestResponse, body: String) -> String {
        var lines = ["\(method.rawValue) \(uri)", "status: \(response.status.code)"]
        let varyingLength = ["/api/v1/frame.jpg", "/api/v1/status", "/metrics", "/api/v1/sample", "/api/v1/chart"].contains {
            uri.hasPrefix($0)
        }
        for field in response.headers.sorted(by: { ($0.name.canonicalName, $0.value) < ($1.name.canonicalName, $1.value) }) {
            let value = field.name == .date || (field.name == .contentLength && varyingLength) ? "<masked>" : field.value
            lines.append("\(field.name.canonicalName): \(value)")
        }
        return Golden.mask(lines.joined(separator: "\n") + "\n--- body\n" + maskFrame(body))
    }

    /// Frame numbers and timestamps of the live capture.
    static func maskFrame(_ text: String) -> String {
        text.replacingOccurrences(
            of: #""frame":[0-9]+,"timestamp":[0-9.e-]+"#, with: #""frame":<n>,"timestamp":<t>"#, options: .regularExpression
        )
        .replacingOccurrences(of: #""frame":[0-9]+,"found""#, with: #""frame":<n>,"found""#, options: .regularExpression)
        .replacingOccurrences(of: #"id: [0-9]+"#, with: "id: <n>", options: .regularExpression)
        .replacingOccurrences(of: #"Content-Length: [0-9]+"#, with: "Content-Length: <n>", options: .regularExpression)
    }

    /// `key: type` for every key of a JSON value, nested keys dotted, arrays by their first element.
    static func shape(_ value: Any, path: String) -> [String] {
        switch value {
        case let object as [String: Any]:
            return [path.isEmpty ? "{}" : "\(path): object"]
                + object.keys.sorted().flatMap { shape(object[$0]!, path: path.isEmpty ? $0 : "\(path).\($0)") }
        case let array as [Any]:
            return ["\(path): array"] + (array.first.map { shape($0, path: path + "[]") } ?? [])
        case let number as NSNumber:
            return ["\(path): " + (String(cString: number.objCType) == "c" ? "boolean" : "number")]
        case is String: return ["\(path): string"]
        case is NSNull: return ["\(path): null"]
        default: return ["\(path): \(type(of: value))"]
        }
    }

    /// The `# TYPE` lines and each sample's name with its label names, sorted and without repeats.
    static func metricNames(_ text: String) -> String {
        var names = Set<String>()
        for line in text.split(separator: "\n") {
            if line.hasPrefix("# TYPE") {
                names.insert(String(line))
                continue
            }
            if line.hasPrefix("#") { continue }
            let sample = line.split(separator: " ").first.map(String.init) ?? ""
            let name = sample.prefix { $0 != "{" }
            let labels =
                sample.contains("{")
                ? sample.drop { $0 != "{" }.dropFirst().dropLast().split(separator: ",").map { $0.prefix { $0 != "=" } }.joined(
                    separator: ",")
                : ""
            names.insert(labels.isEmpty ? String(name) : "\(name){\(labels)}")
        }
        return names.sorted().joined(separator: "\n") + "\n"
    }
}
