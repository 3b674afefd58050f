import Eyedropper
import EyedropperCalibration
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Hummingbird
import Testing

/// `POST /api/v1/calibration` and `PUT /api/v1/profile` on a served chart: the fit found the
/// patches where they were drawn and fits the simulated camera, the profile it wrote is the one
/// it answered, and once applied every reading is what that profile makes of the reading's own
/// mean; and each refusal with its status.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct CalibrationEndpointTests {
    static func json(_ text: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any], "\(text.prefix(300))")
    }

    @Test func fitsTheServedChartAndAppliesItToTheNextFrames() async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("chart.y4m")
        let corners = try writeChartY4M(path: path, camera: SimulatedCamera(seed: 3), frames: 30)
        var configuration = serveConfiguration(.file(path), points: [try SamplePoint(x: 0.5, y: 0.5)])
        configuration.source.matrix = .bt601
        configuration.profileDirectory = scratch.path
        let directory = scratch.path
        // A calibration reads the frames that come after it is asked: a capture brings them.
        try await withServer(configuration, feed: .capturing) { client in
            let before = try Self.json(try await client.get("/api/v1/sample").text)
            let beforeSamples = try #require(before["samples"] as? [[String: Any]])
            #expect(beforeSamples.allSatisfy { $0["calibrated"] == nil }, "no profile yet: \(beforeSamples)")

            let fitted = try await client.post("/api/v1/calibration?frames=3", body: ByteBuffer())
            #expect(fitted.status == .created, "\(fitted.text.prefix(300))")
            let answer = try Self.json(fitted.text)
            let name = try #require(answer["name"] as? String)
            #expect(name.wholeMatch(of: /\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ(-\d+)?\.json/) != nil, "\(name)")
            #expect(answer["path"] as? String == (directory + "/" + name))
            let report = try #require(answer["report"] as? [String: Any])
            #expect(report["frames"] as? Int == 3 && report["chosenBy"] as? String == "leave-one-out", "\(report.keys)")
            // Found where drawn.
            let patches = try #require(report["patches"] as? [[String: Any]])
            #expect(patches.map { $0["number"] as? Int } == Array(1...24))
            try expectCornerPatches(patches, drawnAt: corners)
            // The simulated camera against the chart it was drawn from: a close fit (an off
            // reference or misread patches would be several ΔE out).
            let summary = try #require(report["fitted"] as? [String: Double])
            #expect(try #require(summary["mean"]) < 1.5, "\(summary)")

            // The profile written is the one answered.
            let written = try CameraProfile.load(path: (directory + "/" + name))
            #expect(written.report.model.rawValue == report["model"] as? String)
            #expect(abs(written.report.fitted.mean - (summary["mean"] ?? .nan)) < 1e-12, "\(written.report.fitted), \(summary)")

            // Applied: answered as the status shows it, and every reading from then on uses it.
            let applied = try await client.put("/api/v1/profile", body: #"{"name":"\#(name)"}"#)
            #expect(applied.status == .ok, "\(applied.text)")
            let profile = try #require(try Self.json(applied.text)["profile"] as? [String: Any])
            #expect(profile["path"] as? String == (directory + "/" + name) && profile["warnings"] as? [String] == [], "\(profile)")
            var calibrated: [String: Any]?
            for _ in 0..<100 where calibrated == nil {
                let sample = try #require(try Self.json(try await client.get("/api/v1/sample").text)["samples"] as? [[String: Any]])
                calibrated = sample[0]["calibrated"] as? [String: Any]
                if let calibrated {
                    let mean = try #require(sample[0]["mean"] as? [Double])
                    let expected = written.calibrated((mean[0], mean[1], mean[2]))
                    let lab = try #require(calibrated["lab"] as? [Double])
                    #expect(
                        zip(lab, [expected.lab.l, expected.lab.a, expected.lab.b]).allSatisfy { abs($0 - $1) <= 0.0051 },
                        "\(lab), the profile makes \(expected.lab) of \(mean)")
                } else {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
            #expect(calibrated != nil, "the readings never gained the profile's colour")
            let status = try Self.json(try await client.get("/api/v1/status").text)
            #expect((status["profile"] as? [String: Any])?["path"] as? String == (directory + "/" + name), "\(status["profile"] ?? "none")")
        }
        withExtendedLifetime(scratch) {}  // the directory the server writes into
    }

    /// Each refusal, its status and the parameter named. Catches a fit attempted with no
    /// directory to keep it, a name that climbs out of the directory, a missing or damaged file
    /// applied (or answered 500), and a frame without a chart taken for one.
    @Test func refusesWhatItCannotDo() async throws {
        let scratch = try ScratchDirectory()
        try ScratchDirectory.write(Array(#"{"format":"something else"}"#.utf8), to: scratch.file("damaged.json"))
        try ScratchDirectory.write(Array(#"{"format":"x"}"#.utf8), to: scratch.path + "/../outside.json")
        defer { try? FileManager.default.removeItem(atPath: scratch.path + "/../outside.json") }
        var configuration = serveConfiguration(.testPattern(width: 320, height: 240))
        try await withServer(configuration) { client in
            let post = try await client.post("/api/v1/calibration", body: ByteBuffer())
            #expect(post.status == .conflict && post.text.contains("--profile-dir"), "\(post.text)")
            let put = try await client.put("/api/v1/profile", body: #"{"name":"damaged.json"}"#)
            #expect(put.status == .conflict, "\(put.text)")
        }
        configuration.profileDirectory = scratch.path
        try await withServer(configuration) { client in
            let noChart = try await client.post("/api/v1/calibration?frames=2", body: ByteBuffer())
            #expect(noChart.status == .conflict, "\(noChart.text)")
            let error = try Self.json(noChart.text)["error"] as? String
            #expect(error?.hasPrefix("frame 1: no ColorChecker found") == true, "\(noChart.text)")
            for (query, parameter) in [("frames=0", "frames"), ("frames=61", "frames"), ("model=best", "model"), ("colour=red", "colour")] {
                let response = try await client.post("/api/v1/calibration?\(query)", body: ByteBuffer())
                let named = try Self.json(response.text)["parameter"] as? String
                #expect(response.status == .badRequest && named == parameter, "\(query): \(response.text)")
            }
            let cases: [(String, HTTPResponse.Status)] = [
                (#"{"name":"../outside.json"}"#, .badRequest), (#"{"name":".hidden.json"}"#, .badRequest),
                (#"{"name":"chart.y4m"}"#, .badRequest), (#"{"nom":"x.json"}"#, .badRequest), ("not json", .badRequest),
                (#"{"name":"missing.json"}"#, .notFound), (#"{"name":"damaged.json"}"#, .unprocessableContent),
            ]
            for (body, status) in cases {
                let response = try await client.put("/api/v1/profile", body: body)
                let named = try Self.json(response.text)["parameter"] as? String
                #expect(response.status == status && named == "name", "\(body): \(response.status) \(response.text)")
            }
            // Nothing was applied.
            let status = try Self.json(try await client.get("/api/v1/status").text)
            #expect(status["profile"] == nil, "\(status["profile"] ?? "")")
        }
        withExtendedLifetime(scratch) {}
    }
}
