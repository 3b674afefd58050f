import Eyedropper
import EyedropperCalibration
import EyedropperPipeline
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Testing

/// `serve --white-reference`, in process, against the test pattern: the white bar is the
/// reference, its L*a*b* given (the simulated profile recorded none). The status, `/metrics` and
/// the sample endpoint say the same reading of the still frame; a profile that cannot take the
/// reference is served without it, and the status says why.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct WhiteReferenceServerTests {
    /// The 75 % white bar's centre, flat.
    static let white = try! SamplePoint(x: 0.0625, y: 0.25)
    static let profile = CalibratedServerTests.profile
    /// What the reference "read at calibration": a darker grey than the bar, so the light seems
    /// to have moved (a ΔE well above 0) and the gains are not 1.
    static let lab = profile.calibrated((150, 150, 150)).lab

    static func configuration(_ settings: WhiteReferenceSettings?) -> ServeConfiguration {
        var configuration = serveConfiguration(fps: 10, points: CalibratedServerTests.points)
        configuration.settings = try! ServeSettings(profile: .init(profile: profile, path: "/profiles/bench.json"), reference: settings)
        return configuration
    }

    /// The status's reference is the sample endpoint's reading of the same still frame, with
    /// where it came from and the limit; the metrics show its ΔE, gains and applied. Catches the
    /// status or metrics without the reference, a reading of another frame or model, and a
    /// reference left out of the sample endpoint's line.
    @Test func statusMetricsAndSampleSayTheSameReading() async throws {
        let settings = WhiteReferenceSettings(point: Self.white, lab: Self.lab, model: .diagonal, maxDrift: 2)
        try await withServer(Self.configuration(settings)) { client in
            let line = try await client.get("/api/v1/sample").json
            let reading = try #require(line["reference"] as? [String: Any], "\(line)")
            let deltaE = try #require(reading["deltaE"] as? Double, "\(reading)")
            #expect(deltaE > 2, "\(reading)")
            #expect(reading["state"] as? String == "drift" && reading["applied"] as? Bool == true, "\(reading)")
            var status: [String: Any] = [:]
            _ = try await poll(every: .milliseconds(100)) {
                status = try await client.get("/api/v1/status").json
                return (status["reference"] as? [String: Any])?["deltaE"] is Double
            }
            let reference = try #require(status["reference"] as? [String: Any], "\(status)")
            #expect(reference["x"] as? Double == 0.0625 && reference["y"] as? Double == 0.25, "\(reference)")
            #expect(reference["recorded"] as? String == "lab" && reference["model"] as? String == "diagonal", "\(reference)")
            #expect(reference["maxDrift"] as? Double == 2, "\(reference)")
            #expect(reference["lab"] as? [Double] == [Self.lab.l, Self.lab.a, Self.lab.b].map { ($0 * 100).rounded() / 100 })
            #expect(reference["deltaE"] as? Double == deltaE, "status \(reference), sample \(reading)")
            #expect(reference["gains"] as? [Double] == reading["gains"] as? [Double], "status \(reference), sample \(reading)")
            #expect(reference["applied"] as? Bool == true && reference["state"] as? String == "drift", "\(reference)")
            #expect((reference["why"] as? String)?.contains("--max-drift") == true, "\(reference)")
            let gains = try #require(reading["gains"] as? [Double])
            #expect(gains.allSatisfy { $0 < 1 }, "a brighter patch than recorded is scaled down: \(gains)")

            let metrics = try await client.get("/metrics").text
            func value(_ name: String) -> Double? {
                metrics.split(separator: "\n").first { $0.hasPrefix(name + " ") }.flatMap { Double($0.split(separator: " ")[1]) }
            }
            #expect(value("eyedropper_reference_drift_delta_e").map { abs($0 - deltaE) < 1e-9 } == true, "\(metrics)")
            #expect(value("eyedropper_reference_applied") == 1, "\(metrics)")
            for (channel, gain) in zip(["r", "g", "b"], gains) {
                #expect(value("eyedropper_reference_gain{channel=\"\(channel)\"}") == gain, "\(channel): \(metrics)")
            }
        }
    }

    /// A hand over the reference in one frame: the event stream's line, the sample endpoint's own
    /// points and the status say the same of that frame, covered and not applied. The reference's
    /// baseline spread comes from the first frame (its colour is given, not recorded), so a
    /// request that read the reference afresh would take the covered frame as its baseline and
    /// call it fine. Catches the endpoint or the status disagreeing with the stream on one frame.
    @Test func aCoveredReferenceIsSaidAlikeByStreamSampleAndStatus() async throws {
        let settings = WhiteReferenceSettings(point: Self.white, radius: 3, lab: Self.lab)
        let configuration = Self.configuration(settings)
        let (app, frames) = try HandedFrames.application(configuration)
        let frame = TestFrame(buffer: try TestPattern(width: 1280, height: 720).makeFrameBuffer())
        try await onServerThreads {
            try await app.test { client in
                let pattern = frame.buffer
                pattern.withFrame { frames.publish($0) }
                let clean = try #require(try await client.get("/api/v1/sample").json["reference"] as? [String: Any])
                #expect(clean["state"] as? String == "ok" && clean["applied"] as? Bool == true, "\(clean)")
                // Fingers across the tile: dark and light pixels in its 7 x 7 window.
                for y in 177...183 {
                    for x in 77...83 { pattern.set(x: x, y: y, to: YCbCr8(y: (x + y) % 2 == 0 ? 40 : 200, cb: 128, cr: 128)) }
                }
                pattern.withFrame { frames.publish($0) }
                let events = try await readStream("/api/v1/samples", whileCapturing: 0, client).text
                let streamed = try #require(
                    events.split(separator: "\n").last { $0.hasPrefix("data: ") }.flatMap {
                        try JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any]
                    })
                let own = try await client.get("/api/v1/sample?at=0.5625,0.25&radius=1").json
                let status = try #require(try await client.get("/api/v1/status").json["reference"] as? [String: Any])
                for (name, line) in [("stream", streamed["reference"]), ("own points", own["reference"])] {
                    let reference = try #require(line as? [String: Any], "\(name)")
                    #expect(reference["state"] as? String == "covered" && reference["applied"] as? Bool == false, "\(name): \(reference)")
                    #expect(reference["gains"] as? [Double] == [1, 1, 1], "\(name): \(reference)")
                }
                #expect(status["state"] as? String == "covered" && status["applied"] as? Bool == false, "\(status)")
                // Uncorrected: the profile's own colour of the bar.
                let lab = try #require((own["samples"] as? [[String: Any]])?.first?["calibrated"] as? [String: Any])["lab"] as? [Double]
                let expected = Self.profile.calibrated((191, 0, 192)).lab
                #expect(lab.map { zip($0, [expected.l, expected.a, expected.b]).allSatisfy { abs($0 - $1) <= 0.0051 } } == true, "\(own)")
            }
        }
    }

    /// A profile that recorded no reference, with no L*a*b* given: served without the reference
    /// (the samples come, calibrated, with no "reference"), and the status says why. Catches a
    /// crash or a refusal, and a reference said to be applied that is not there.
    @Test func aProfileThatCannotTakeTheReferenceIsServedWithout() async throws {
        try await withServer(Self.configuration(WhiteReferenceSettings(point: Self.white))) { client in
            let line = try await client.get("/api/v1/sample").json
            #expect(line["reference"] == nil, "\(line)")
            #expect((line["samples"] as? [[String: Any]])?.first?["calibrated"] != nil, "\(line)")
            let reference = try #require(try await client.get("/api/v1/status").json["reference"] as? [String: Any])
            #expect(reference["recorded"] is NSNull && reference["deltaE"] is NSNull && reference["state"] is NSNull, "\(reference)")
            #expect(reference["applied"] as? Bool == false && reference["lab"] == nil, "\(reference)")
            #expect((reference["why"] as? String)?.contains("recorded no white reference") == true, "\(reference)")
            let metrics = try await client.get("/metrics").text
            #expect(metrics.contains("\neyedropper_reference_applied 0"), "\(metrics)")
        }
    }
}

/// `serve --palette`, in process, on the test pattern without a profile: each sample served is
/// named by its camera colour, and the status says which palette and by what. Catches names left
/// out of the served line, the status's palette missing or claiming calibrated colours.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct PaletteServerTests {
    @Test func samplesAreNamedAndTheStatusSaysByWhat() async throws {
        func lab(_ color: RGB8) -> SIMD3<Double> {
            let lab = SRGB.xyzD50(color).lab(white: .d50)
            return SIMD3(lab.l, lab.a, lab.b)
        }
        let palette = try Palette(
            entries: [
                .init(name: "grey 75", lab: lab(RGB8(r: 191, g: 191, b: 191))), .init(name: "black", lab: lab(RGB8(r: 0, g: 0, b: 0))),
            ],
            path: "/palettes/two.json")
        var configuration = serveConfiguration(fps: 10, points: [WhiteReferenceServerTests.white])
        configuration.settings = try ServeSettings(palette: PaletteSettings(palette: palette, maxDeltaE: 4))
        try await withServer(configuration) { client in
            let line = try await client.get("/api/v1/sample").json
            let samples = try #require(line["samples"] as? [[String: Any]], "\(line)")
            let nearest = try #require(samples.first?["nearest"] as? [String: Any], "\(line)")
            #expect(nearest["name"] as? String == "grey 75" && nearest["next"] as? String == "black", "\(nearest)")
            #expect(nearest["of"] as? String == "camera" && (nearest["deltaE"] as? Double).map { $0 < 0.5 } == true, "\(nearest)")
            let status = try await client.get("/api/v1/status").json
            let named = try #require(status["palette"] as? [String: Any], "\(status)")
            #expect(named["path"] as? String == "/palettes/two.json" && named["entries"] as? Int == 2, "\(named)")
            #expect(named["colours"] as? Int == 2 && named["of"] as? String == "camera" && named["maxDeltaE"] as? Double == 4, "\(named)")
        }
    }
}
