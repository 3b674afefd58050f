import Eyedropper
import EyedropperJPEG
import EyedropperTestSupport
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// `eyedropper serve` over real HTTP: the built executable on a free loopback port, reading the
/// 1280x720 test pattern (BT.709 limited), whose colours are known.
@Suite(.timeLimit(.minutes(1))) struct ServeCommandTests {
    /// The centres of the eight bars, at a quarter of the height.
    static let barPoints = (0..<8).map { "\((Double($0) + 0.5) / 8),0.25" }

    /// The sample endpoint gives what `eyedropper sample` prints for the same points, from a
    /// frame the capture published: the centre is the magenta bar, 191/0/192 in 8-bit BT.709.
    @Test func sampleAnswersLikeTheSampleCommand() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        let centre = try server.get("/api/v1/sample?at=0.5,0.5")
        #expect(centre.status == 200)
        #expect(centre.headers["content-type"] == "application/json")
        #expect(centre.text.wholeMatch(of: #/\{"frame":\d+,"timestamp":[0-9.e-]+,"matrix":"bt709","range":"limited","samples":\[\{"x":0.5,"y":0.5,"r":191,"g":0,"b":192,"hex":"#bf00c0"\}\]\}/#) != nil,
                "\(centre.text)")

        let query = Self.barPoints.map { "at=\($0)" }.joined(separator: "&") + "&radius=3"
        let served = try server.get("/api/v1/sample?" + query)
        let printed = try runEyedropper(["sample", "--source", "testpattern", "--radius", "3"] + Self.barPoints.flatMap { ["--at", $0] })
        #expect(printed.status == 0)
        #expect(Self.samplesField(served.text) == Self.samplesField(printed.stdout), "\(served.text)\n\(printed.stdout)")
        let hexes = (served.json["samples"] as? [[String: Any]] ?? []).compactMap { $0["hex"] as? String }
        #expect(hexes.count == 8)
        for (hex, color) in zip(hexes, TestPattern.barColors) {
            let rgb = Int(hex.dropFirst(), radix: 16)!
            #expect(abs((rgb >> 16) - Int(color.r)) <= 1 && abs((rgb >> 8 & 255) - Int(color.g)) <= 1 && abs((rgb & 255) - Int(color.b)) <= 1,
                    "\(hex) is not \(color)")
        }
        _ = server.stop()
    }

    /// frame.jpg decodes to the whole frame; the bars keep their colour within JPEG's loss.
    @Test func frameJPEGIsTheNewestFrame() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        for target in ["/api/v1/frame.jpg", "/api/v1/frame.jpg?quality=95"] {
            let response = try server.get(target)
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "image/jpeg")
            let image = try JPEGDecoder.decode(response.body)
            #expect((image.width, image.height) == (1280, 720))
            for (bar, color) in TestPattern.barColors.enumerated() {
                let offset = (180 * 1280 + bar * 160 + 80) * 3
                let pixel = image.pixels[offset..<(offset + 3)].map(Int.init)
                #expect(abs(pixel[0] - Int(color.r)) <= 6 && abs(pixel[1] - Int(color.g)) <= 6 && abs(pixel[2] - Int(color.b)) <= 6,
                        "\(target) bar \(bar): \(pixel)")
            }
        }
        _ = server.stop()
    }

    /// Nothing is compressed while nobody watches; with three stream clients each frame is
    /// compressed at most once.
    @Test func jpegIsEncodedOnlyOnDemandAndOncePerFrame() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        usleep(300_000)
        let idle = try server.get("/api/v1/status").json
        #expect(idle["framesEncoded"] as? Int == 0)
        #expect((idle["framesCaptured"] as? Int ?? 0) > 0)
        let viewers = try (0..<3).map { _ in try HTTPConnection(port: server.port) }
        for viewer in viewers { _ = try viewer.get("/api/v1/stream.mjpg") }
        for viewer in viewers { _ = try viewer.readBody { Self.count("Content-Type: image/jpeg", in: $0) >= 10 } }
        let watched = try server.get("/api/v1/status").json
        let encoded = watched["framesEncoded"] as? Int ?? 0, captured = watched["framesCaptured"] as? Int ?? 0
        #expect(encoded >= 10)
        #expect(encoded <= captured - (idle["framesCaptured"] as? Int ?? 0) + 1, "\(watched)")
        _ = server.stop()
    }

    /// The MJPEG stream's parts are whole JPEGs of the frame, one per frame at most.
    @Test func mjpegStreamSendsJPEGParts() throws {
        let server = try ServerProcess(["--source", "testpattern", "--size", "320x240"])
        let connection = try HTTPConnection(port: server.port)
        let head = try connection.get("/api/v1/stream.mjpg")
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "multipart/x-mixed-replace; boundary=eyedropperframe")
        let body = try connection.readBody { Self.count("--eyedropperframe", in: $0) >= 4 }
        let parts = Self.split(body, on: Array("--eyedropperframe\r\n".utf8)).dropFirst().prefix(3)
        #expect(parts.count == 3)
        for part in parts {
            let headerEnd = Self.index(of: [13, 10, 13, 10], in: part)!
            let headers = String(decoding: part[..<headerEnd], as: UTF8.self)
            let length = Int(headers.firstMatch(of: /Content-Length: (\d+)/)!.1)!
            let jpeg = Array(part[(headerEnd + 4)..<(headerEnd + 4 + length)])
            let image = try JPEGDecoder.decode(jpeg)
            #expect((image.width, image.height) == (320, 240))
            let centre = (120 * 320 + 160 + 20) * 3  // inside the magenta bar
            #expect(abs(Int(image.pixels[centre]) - 191) <= 8 && image.pixels[centre + 1] <= 8, "\(image.pixels[centre..<centre + 3])")
        }
        _ = server.stop()
    }

    /// The event stream: one event per frame, in order, with the colours at the --at points.
    @Test func eventStreamSendsTheConfiguredPointsEachFrame() throws {
        let server = try ServerProcess(["--source", "testpattern", "--at", "0.5625,0.25", "--at", "0.0625,0.25"])
        let connection = try HTTPConnection(port: server.port)
        let head = try connection.get("/api/v1/samples")
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        let body = try connection.readBody { Self.count("\n\n", in: $0) >= 4 }
        let events = String(decoding: body, as: UTF8.self).components(separatedBy: "\n\n").prefix(4)
        var ids: [Int] = []
        for event in events {
            let match = try #require(event.wholeMatch(of: /id: (\d+)\ndata: (\{.*\})/), "\(event)")
            ids.append(Int(match.1)!)
            #expect(match.2.contains(#""frame":\#(match.1),"#))
            #expect(match.2.hasSuffix(##""samples":[{"x":0.5625,"y":0.25,"r":191,"g":0,"b":192,"hex":"#bf00c0"},{"x":0.0625,"y":0.25,"r":191,"g":191,"b":191,"hex":"#bfbfbf"}]}"##), "\(match.2)")
        }
        #expect(ids == ids.sorted() && Set(ids).count == ids.count, "\(ids)")
        _ = server.stop()
    }

    /// Status and metrics give the source, its format and colorimetry, and the capture's figures.
    @Test func statusAndMetricsDescribeTheCapture() throws {
        let server = try ServerProcess(["--source", "testpattern", "--fps", "25"])
        usleep(1_200_000)
        let status = try server.get("/api/v1/status")
        #expect(status.status == 200)
        let json = status.json
        #expect(json["source"] as? String == "testpattern")
        #expect(json["state"] as? String == "running")
        #expect(json["format"] as? String == "1280x720 YU12 (test pattern)")
        #expect(json["matrix"] as? String == "bt709" && json["range"] as? String == "limited")
        #expect((json["framesCaptured"] as? Int ?? 0) >= 10)
        #expect(json["framesDropped"] is Int)
        let rate = json["frameRate"] as? Double ?? 0
        #expect(rate > 10 && rate < 27, "\(rate)")
        let conversion = json["conversionMilliseconds"] as? [String: Double] ?? [:]
        #expect(Set(conversion.keys) == ["p50", "p90", "p99", "max"])
        #expect((conversion["p50"] ?? 0) > 0 && (conversion["p50"] ?? 0) <= (conversion["p99"] ?? 0))

        let metrics = try server.get("/metrics")
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        for line in ["# TYPE eyedropper_frames_captured_total counter", "eyedropper_source_up 1", "eyedropper_frames_dropped_total ",
                     "# TYPE eyedropper_conversion_seconds summary", "eyedropper_conversion_seconds{quantile=\"0.99\"} "] {
            #expect(metrics.text.contains(line), "\(line)")
        }
        _ = server.stop()
    }

    @Test func pageShowsTheStreamAndSamplesOnClick() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        let page = try server.get("/")
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        #expect(page.text.contains(#"<img id="picture" src="/api/v1/stream.mjpg""#))
        #expect(page.text.contains("/api/v1/sample?at="))
        _ = server.stop()
    }

    /// Bad parameters are 400 with JSON naming the parameter; unknown paths 404.
    @Test func badRequestsNameTheParameter() throws {
        let server = try ServerProcess(["--source", "testpattern"])
        let cases: [(String, String)] = [
            ("/api/v1/sample?at=1.5,0", "at"), ("/api/v1/sample?at=-0.1,0.5", "at"), ("/api/v1/sample?at=nan,0.5", "at"),
            ("/api/v1/sample?at=0.5", "at"), ("/api/v1/sample?at=a,b", "at"), ("/api/v1/sample?radius=513", "radius"),
            ("/api/v1/sample?radius=-1", "radius"), ("/api/v1/sample?radius=two", "radius"), ("/api/v1/sample?colour=red", "colour"),
            ("/api/v1/sample?at=%zz", "at=%zz"), ("/api/v1/sample?at", "at"), ("/api/v1/frame.jpg?quality=0", "quality"),
            ("/api/v1/frame.jpg?quality=101", "quality"),
        ]
        for (target, parameter) in cases {
            let response = try server.get(target)
            #expect(response.status == 400, "\(target)")
            #expect(response.headers["content-type"] == "application/json")
            #expect(response.json["parameter"] as? String == parameter, "\(target): \(response.text)")
            #expect((response.json["error"] as? String)?.isEmpty == false)
        }
        #expect(try server.get("/api/v1/sample?at=1.5,0").json["error"] as? String
            == "point 1.5,0.0 is outside the frame: both coordinates must be within 0...1, (0, 0) the top-left corner")
        for target in ["/api/v1/nothing", "/favicon.ico", "/api/v2/sample"] {
            #expect(try server.get(target).status == 404, "\(target)")
        }
        _ = server.stop()
    }

    /// A camera that cannot be opened: the server keeps running and says why with 503.
    @Test func failingSourceIsServiceUnavailable() throws {
        let server = try ServerProcess(["--source", "/dev/eyedropper-no-such-camera"], waitForFrame: false)
        usleep(300_000)
        for target in ["/api/v1/sample?at=0.5,0.5", "/api/v1/frame.jpg"] {
            let response = try server.get(target)
            #expect(response.status == 503, "\(target)")
            #expect((response.json["error"] as? String)?.contains("/dev/eyedropper-no-such-camera: no such device") == true, "\(response.text)")
        }
        let status = try server.get("/api/v1/status").json
        #expect(status["state"] as? String == "failed")
        #expect(try server.get("/metrics").text.contains("eyedropper_source_up 0"))
        let stopped = server.stop()
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }

    /// Past --max-streams, stream requests get 503; a place frees when a client leaves.
    @Test func streamClientsAreCapped() throws {
        let server = try ServerProcess(["--source", "testpattern", "--size", "320x240", "--max-streams", "2"])
        var open = try [HTTPConnection(port: server.port), HTTPConnection(port: server.port)]
        #expect(try open[0].get("/api/v1/stream.mjpg").status == 200)
        #expect(try open[1].get("/api/v1/samples").status == 200)
        let refused = try server.get("/api/v1/stream.mjpg")
        #expect(refused.status == 503)
        #expect((refused.json["error"] as? String)?.contains("--max-streams") == true)
        #expect(try server.get("/api/v1/samples").status == 503)
        #expect(try server.get("/api/v1/sample").status == 200)
        open.removeLast()  // closes the event stream; the server notices at its next write
        var status = 0
        for _ in 0..<50 where status != 200 {
            usleep(100_000)
            status = try HTTPConnection(port: server.port).get("/api/v1/samples").status  // the head only: the body never ends
        }
        #expect(status == 200)
        // Clients that leave at once, some before the head is written, free their places too.
        for _ in 0..<10 { try HTTPConnection(port: server.port).send("/api/v1/stream.mjpg") }
        usleep(500_000)
        let again = try HTTPConnection(port: server.port)
        #expect(try again.get("/api/v1/stream.mjpg").status == 200)
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

    @Test func nonLoopbackListenWarns() throws {
        let result = try runEyedropper(["serve", "--listen", "nonsense"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("'nonsense' is invalid for '--listen <HOST:PORT>'"))
        let server = try ServerProcess(["--source", "testpattern", "--size", "64x64"], listen: "0.0.0.0:0")
        let stopped = server.stop()
        #expect(stopped.stderr.contains("warning: listening on 0.0.0.0, not loopback"))
    }

    private static func samplesField(_ line: String) -> Substring? {
        line.firstMatch(of: /"samples":\[.*\]/)?.output
    }

    static func count(_ text: String, in bytes: [UInt8]) -> Int {
        split(bytes, on: Array(text.utf8)).count - 1
    }

    static func index(of pattern: [UInt8], in bytes: ArraySlice<UInt8>) -> Int? {
        guard bytes.count >= pattern.count else { return nil }
        return (bytes.startIndex...(bytes.endIndex - pattern.count)).first { bytes[$0..<($0 + pattern.count)].elementsEqual(pattern) }
    }

    static func split(_ bytes: [UInt8], on separator: [UInt8]) -> [ArraySlice<UInt8>] {
        var parts: [ArraySlice<UInt8>] = []
        var rest = bytes[...]
        while let index = index(of: separator, in: rest) {
            parts.append(rest[..<index])
            rest = rest[(index + separator.count)...]
        }
        parts.append(rest)
        return parts
    }
}
