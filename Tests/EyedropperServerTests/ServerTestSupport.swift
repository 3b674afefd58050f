import Eyedropper
import EyedropperCapture
import EyedropperServer
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

/// What the tests serve.
enum TestSource {
    /// The built-in test pattern (BT.709 from 720 lines, limited range).
    case testPattern(width: Int, height: Int)
    /// A camera that does not exist: the source fails at once.
    case missingCamera
    /// A `.y4m` file, read at its frame rate.
    case file(String)
}

/// The one place the tests make a `ServeConfiguration`: a free port, the source asked for.
func serveConfiguration(
    _ source: TestSource = .testPattern(width: 1280, height: 720), fps: Double = 30, points: [SamplePoint] = [.center],
    maxStreams: Int = 16
) -> ServeConfiguration {
    var frames: FrameSource.Configuration
    switch source {
    case let .testPattern(width, height):
        frames = FrameSource.Configuration(source: .testPattern)
        (frames.width, frames.height) = (width, height)
    case .missingCamera:
        frames = FrameSource.Configuration(source: .camera("/dev/eyedropper-no-such-camera"))
    case let .file(path):
        frames = FrameSource.Configuration(source: .file(path))
    }
    frames.pacing = .live
    frames.fps = fps
    var configuration = ServeConfiguration(source: frames)
    configuration.port = 0
    configuration.points = points
    configuration.maxStreams = maxStreams
    return configuration
}

/// Runs `test` against the application for `configuration`, in process (no socket), once the
/// capture has published its first frame (unless `waitForFrame` is false).
func withServer<Value: Sendable>(
    _ configuration: ServeConfiguration, waitForFrame: Bool = true,
    _ test: @escaping @Sendable (any TestClientProtocol) async throws -> Value
) async throws -> Value {
    let app = try buildApplication(configuration)
    return try await onServerThreads {
        try await app.test(.router) { client in
            if waitForFrame { try await waitForFrames(1, client) }
            return try await test(client)
        }
    }
}

/// Waits (up to 10 s) until the status says `count` frames were captured.
/// Patches 1, 6, 24 and 19 of a chart answer (`eyedropper chart`'s or a calibration report's
/// `patches`) each within 2 pixels of `corners`, where `writeChartY4M` drew them in its 640x480
/// frame (patches about 75 pixels apart).
func expectCornerPatches(_ patches: [[String: Any]], drawnAt corners: [SamplePoint], sourceLocation: SourceLocation = #_sourceLocation)
    throws
{
    for (index, corner) in zip([0, 5, 23, 18], corners) {
        let center = try #require(patches[index]["center"] as? [Double], sourceLocation: sourceLocation)
        let distance = ((center[0] - corner.x) * 640).magnitude + ((center[1] - corner.y) * 480).magnitude
        #expect(distance < 2, "patch \(index + 1) at \(center), drawn at \(corner)", sourceLocation: sourceLocation)
    }
}

func waitForFrames(_ count: Int, _ client: some TestClientProtocol) async throws {
    for _ in 0..<500 {
        if try await client.get("/api/v1/status").json["framesCaptured"] as? Int ?? 0 >= count { return }
        try await Task.sleep(for: .milliseconds(20))
    }
    Issue.record("fewer than \(count) frames captured in 10 s")
}

/// Reads an endless response while the capture publishes `frames` more frames (10 s at most),
/// then leaves (the request is cancelled, which ends the stream as a client's leaving does), and
/// returns what arrived.
func readStream(_ uri: String, whileCapturing frames: Int, _ client: some TestClientProtocol) async throws -> TestResponse {
    let start = try await client.get("/api/v1/status").json["framesCaptured"] as? Int ?? 0
    let request = serverTask { try await client.get(uri) }
    try await waitForFrames(start + frames, client)
    request.cancel()
    return try await request.value
}

extension TestResponse {
    var text: String { String(buffer: body) }
    var bytes: [UInt8] { Array(buffer: body) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any] ?? [:] }
}

/// Whether each channel of `pixel` is within `tolerance` of `color`.
func isClose(_ pixel: [Int], _ color: RGB8, within tolerance: Int) -> Bool {
    abs(pixel[0] - Int(color.r)) <= tolerance && abs(pixel[1] - Int(color.g)) <= tolerance
        && abs(pixel[2] - Int(color.b)) <= tolerance
}

/// The byte slices of `bytes` between occurrences of `separator`.
func split(_ bytes: [UInt8], on separator: [UInt8]) -> [ArraySlice<UInt8>] {
    var parts: [ArraySlice<UInt8>] = []
    var rest = bytes[...]
    while let index = firstIndex(of: separator, in: rest) {
        parts.append(rest[..<index])
        rest = rest[(index + separator.count)...]
    }
    parts.append(rest)
    return parts
}

func firstIndex(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
    guard bytes.count >= pattern.count else { return nil }
    return (bytes.startIndex...(bytes.endIndex - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
}

/// `promtool check metrics` on `text`: its output, or nil when it passed. Records an issue when
/// promtool is not installed (Debian's `prometheus` package has it).
func promtoolProblems(_ text: String) throws -> String? {
    guard let promtool = ["/usr/bin/promtool", "/usr/local/bin/promtool"].first(where: FileManager.default.isExecutableFile) else {
        return "promtool not found: install it with `Scripts/install-deps prometheus` (Debian's prometheus package)"
    }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: promtool)
    process.arguments = ["check", "metrics"]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let report = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    return process.terminationStatus == 0 ? nil : "promtool exit \(process.terminationStatus): \(report)"
}

extension TestClientProtocol {
    func get(_ uri: String) async throws -> TestResponse { try await execute(uri: uri, method: .get) }
    func post(_ uri: String, body: ByteBuffer) async throws -> TestResponse { try await execute(uri: uri, method: .post, body: body) }
    func delete(_ uri: String) async throws -> TestResponse { try await execute(uri: uri, method: .delete) }
}

extension TestClientProtocol {
    func put(_ uri: String, body: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .put, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }
}
