import Eyedropper
import EyedropperCapture
import EyedropperServer
import Foundation
import Hummingbird
import Logging
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

/// Where a test's server gets its frames.
enum FrameFeed {
    /// From the test: no capture runs, and each frame is read when the test hands it (`FrameHand`),
    /// so what is asked of a frame does not depend on the machine's speed. For every test that
    /// does not test the capture itself.
    case handed
    /// From a live capture at the source's rate: for what a capture does (rates, a failing
    /// source, compression as frames come).
    case capturing
}

/// Hands frames of a configuration's source (the test pattern, a file's next frame) to a server
/// with no capture. The test's own: `current` while its server runs.
final class FrameHand: @unchecked Sendable {
    let frames: HandedFrames
    private let source: FrameSource
    private let lock = NSLock()

    @TaskLocal static var current: FrameHand?

    init(_ configuration: ServeConfiguration, frames: HandedFrames) throws {
        var source = configuration.source
        source.pacing = .asRead
        self.source = try FrameSource(source, logger: Logger(label: "eyedropper-test"), isStopped: { false })
        self.frames = frames
    }

    /// Reads `count` frames, each read through the server's capture path and published.
    func hand(_ count: Int = 1) throws {
        try lock.withLock {
            for _ in 0..<count {
                guard try source.next({ frame, timestamp in frames.publish(frame, timestamp: timestamp, stream: source.stream) })
                else { throw FrameHandError("the source ended") }
            }
        }
    }

    /// Reads `count` frames one at a time, each once `taken` says the one before was taken by
    /// whoever the test waits for (a JPEG stream's encoder); 10 s at most for each.
    func hand(_ count: Int, eachOnce taken: () -> Int) async throws {
        for _ in 0..<count {
            let before = taken()
            try hand()
            guard try await poll(until: { taken() > before }) else { throw FrameHandError("a frame handed in was not taken within 10 s") }
        }
    }
}

/// A frame buffer a test draws in and hands to its server from the test's own task (one task at
/// a time uses it).
struct TestFrame: @unchecked Sendable {
    let buffer: FrameBuffer
}

struct FrameHandError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Runs `test` against the application for `configuration`, in process (no socket), once it has
/// its first frame (unless `waitForFrame` is false): handed in by the test (`FrameFeed.handed`,
/// the default) or captured.
func withServer<Value: Sendable>(
    _ configuration: ServeConfiguration, waitForFrame: Bool = true, feed: FrameFeed = .handed,
    _ test: @escaping @Sendable (InProcessClient) async throws -> Value
) async throws -> Value {
    guard feed == .handed else {
        let app = try buildApplication(configuration)
        return try await onServerThreads {
            try await app.test { client in
                if waitForFrame { try await waitForFrames(1, client) }
                return try await test(client)
            }
        }
    }
    let (app, frames) = try HandedFrames.application(configuration)
    let hand = try FrameHand(configuration, frames: frames)
    return try await FrameHand.$current.withValue(hand) {
        try await onServerThreads {
            try await app.test { client in
                if waitForFrame { try hand.hand() }
                return try await test(client)
            }
        }
    }
}

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

/// Until the status says `count` frames were read: with handed frames, hands those missing; with
/// a capture, waits (up to 10 s).
func waitForFrames(_ count: Int, _ client: InProcessClient) async throws {
    if let hand = FrameHand.current {
        let read = try await client.get("/api/v1/status").json["framesCaptured"] as? Int ?? 0
        try hand.hand(max(0, count - read))
        return
    }
    let captured = try await poll(every: .milliseconds(20)) {
        try await client.get("/api/v1/status").json["framesCaptured"] as? Int ?? 0 >= count
    }
    if !captured { Issue.record("fewer than \(count) frames captured in 10 s") }
}

/// Whether `condition` came to hold within 10 s: the server's tasks change what it reads, and
/// nothing announces the change, so it is looked at every `step` until then (the tests' one wait
/// on the server's state; a condition that asks the server over HTTP looks less often).
func poll(every step: Duration = .milliseconds(2), until condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(10)
    while try await !condition() {
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: step)
    }
    return true
}

/// Waits until `condition` holds; records an issue past 10 s.
func waitUntil(_ what: String, _ condition: () -> Bool) async throws {
    if try await !poll(until: condition) { Issue.record("not within 10 s: \(what)") }
}

/// Reads an endless response while `frames` more frames are read, then leaves, and returns what
/// arrived. With handed frames: once the stream is open, hands them, then ends the streams (each
/// sends what it has first); with a capture: waits for them (10 s at most), then cancels the
/// request, which ends the stream as a client's leaving does.
func readStream(_ uri: String, whileCapturing frames: Int, _ client: InProcessClient) async throws -> TestResponse {
    if let hand = FrameHand.current {
        let open = hand.frames.streamClients
        let request = serverTask { try await client.get(uri) }
        _ = try await poll(until: { hand.frames.streamClients > open })
        // An event stream keeps every frame (the history); an MJPEG stream sends the newest when
        // it is ready: each frame is handed once the one before was compressed.
        if uri.contains("mjpg") { try await hand.hand(frames, eachOnce: { hand.frames.framesEncoded }) } else { try hand.hand(frames) }
        await hand.frames.endStreams()
        return try await request.value
    }
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

extension InProcessClient {
    func get(_ uri: String) async throws -> TestResponse { try await execute(uri: uri, method: .get) }
    func post(_ uri: String, body: ByteBuffer) async throws -> TestResponse { try await execute(uri: uri, method: .post, body: body) }
    func delete(_ uri: String) async throws -> TestResponse { try await execute(uri: uri, method: .delete) }
    func put(_ uri: String, body: String) async throws -> TestResponse {
        try await execute(uri: uri, method: .put, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
    }
}
