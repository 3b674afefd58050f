import Eyedropper
import EyedropperCalibration
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Testing

/// `serve --profile` and `--target`, in process, against the test pattern: every
/// sample's calibrated colour, ΔE and pass checked against what `CameraProfile` makes of the
/// sample's own `mean`, the status's new fields, and every body as it was without a profile.
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct CalibratedServerTests {
    /// The magenta and the green bar's centres (a quarter of the height), flat: their means are
    /// the bars' colours exactly.
    static let points = [try! SamplePoint(x: 0.5625, y: 0.25), try! SamplePoint(x: 0.4375, y: 0.25)]
    /// A profile said to be made from frames like the 1280x720 test pattern's (so no warning).
    static let profile = try! simulatedProfile(colorimetry: Colorimetry(matrix: .bt709, range: .limited), width: 1280, height: 720)
    /// The magenta bar's calibrated colour itself: it passes (ΔE 0) where the green bar fails.
    static let target = ColorTarget(lab: profile.calibrated((191, 0, 192)).lab, tolerance: 2)

    static func configuration(target: ColorTarget? = Self.target, fps: Double = 30) -> ServeConfiguration {
        var configuration = serveConfiguration(fps: fps, points: points)
        configuration.settings = try! ServeSettings(profile: .init(profile: profile, path: "/profiles/bench.json"), target: target)
        return configuration
    }

    /// The samples of one body (a sample response or an event's data).
    static func samples(_ json: String) throws -> [[String: Any]] {
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
        return try #require(object["samples"] as? [[String: Any]], "\(json)")
    }

    /// Each sample's `calibrated` (and with a target `deltaE` and `pass`) is what the profile
    /// makes of that sample's own `mean`, to the decimals printed; returns the passes.
    @discardableResult
    static func expectCalibrated(_ samples: [[String: Any]], target: ColorTarget?, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> [Bool]
    {
        var passes: [Bool] = []
        for sample in samples {
            let mean = try #require(sample["mean"] as? [Double], "\(sample)", sourceLocation: sourceLocation)
            let expected = profile.calibrated((mean[0], mean[1], mean[2]))
            let calibrated = try #require(sample["calibrated"] as? [String: Any], "\(sample)", sourceLocation: sourceLocation)
            func close(_ key: String, _ values: [Double], within tolerance: Double) {
                let shown = calibrated[key] as? [Double] ?? []
                #expect(
                    shown.count == 3 && zip(shown, values).allSatisfy { abs($0 - $1) <= tolerance },
                    "\(key): \(shown), expected \(values)", sourceLocation: sourceLocation)
            }
            close("xyz", [expected.xyz.x, expected.xyz.y, expected.xyz.z], within: 0.00051)
            close("lab", [expected.lab.l, expected.lab.a, expected.lab.b], within: 0.0051)
            close("srgb", [expected.srgb.x, expected.srgb.y, expected.srgb.z], within: 0.0051)
            #expect(calibrated["hex"] as? String == expected.srgb8.hex, "\(calibrated)", sourceLocation: sourceLocation)
            #expect(calibrated["inGamut"] as? Bool == expected.inGamut, "\(calibrated)", sourceLocation: sourceLocation)
            #expect(Set(calibrated.keys) == ["xyz", "lab", "srgb", "hex", "inGamut"], "\(calibrated)", sourceLocation: sourceLocation)
            guard let target else {
                #expect(sample["deltaE"] == nil && sample["pass"] == nil, "no target: \(sample)", sourceLocation: sourceLocation)
                continue
            }
            let (deltaE, pass) = target.compare(expected)
            #expect(abs((sample["deltaE"] as? Double ?? -1) - deltaE) <= 0.0051, "ΔE \(deltaE): \(sample)", sourceLocation: sourceLocation)
            #expect(sample["pass"] as? Bool == pass, "\(sample)", sourceLocation: sourceLocation)
            passes.append(sample["pass"] as? Bool ?? !pass)
        }
        return passes
    }

    /// The capture's line (the default points), a sample at other points and radius (the
    /// endpoint's own), and events all carry the calibrated colour of each sample's mean, and
    /// the magenta bar passes where the green fails. Catches the calibrated colour of another
    /// sample or of the rounded r, g, b (the bars' are integers; the 5x5 patch across the
    /// green/magenta edge has a mean of fifths), a target not applied, a pass that does not
    /// follow ΔE, and one path of the three left uncalibrated.
    @Test func samplesAndEventsCarryTheCalibratedColour() async throws {
        try await withServer(Self.configuration(fps: 10)) { client in
            let line = try Self.samples(try await client.get("/api/v1/sample").text)
            #expect(try Self.expectCalibrated(line, target: Self.target) == [true, false])

            let asked = try Self.samples(try await client.get("/api/v1/sample?at=0.5,0.5&at=0.5625,0.25&radius=2").text)
            try #require(asked.count == 2)
            #expect((asked[0]["mean"] as? [Double]).map { $0.contains { $0 != $0.rounded() } } == true, "across the edge: \(asked[0])")
            #expect(try Self.expectCalibrated(asked, target: Self.target).last == true)

            let stream = try await readStream("/api/v1/samples", whileCapturing: 4, client)
            let events = stream.text.components(separatedBy: "\n\n").dropLast()
            #expect(events.count >= 2, "\(stream.text)")
            for event in events {
                let data = try #require(event.firstMatch(of: /\ndata: (\{.*\})/)?.1, "\(event)")
                #expect(try Self.expectCalibrated(try Self.samples(String(data)), target: Self.target) == [true, false])
            }
        }
    }

    /// A profile without a target: the calibrated colour, no deltaE or pass, and no target in the
    /// status. Catches a ΔE to some default colour.
    @Test func aProfileWithoutATargetAddsOnlyTheColour() async throws {
        try await withServer(Self.configuration(target: nil)) { client in
            try Self.expectCalibrated(try Self.samples(try await client.get("/api/v1/sample").text), target: nil)
            try Self.expectCalibrated(try Self.samples(try await client.get("/api/v1/sample?at=0.1,0.1").text), target: nil)
            let status = try await client.get("/api/v1/status").json
            #expect(status["profile"] != nil && status["target"] == nil, "\(status)")
        }
    }

    /// Status names the profile (file, when and how it was made, the frames it was made from)
    /// and the target, with no warning while the frames are those the profile was made from.
    /// Catches the fields missing, a target's L*a*b* or tolerance other than the one given, or a
    /// warning where nothing differs.
    @Test func statusNamesTheProfileAndTarget() async throws {
        try await withServer(Self.configuration()) { client in
            let status = try await client.get("/api/v1/status").json
            let profile = try #require(status["profile"] as? [String: Any], "\(status)")
            #expect(profile["path"] as? String == "/profiles/bench.json")
            #expect(profile["created"] as? String == "2026-11-23T21:05:00Z")
            #expect(profile["model"] as? String == "linear-3x3")
            #expect(profile["matrix"] as? String == "bt709" && profile["range"] as? String == "limited")
            #expect(profile["width"] as? Int == 1280 && profile["height"] as? Int == 720)
            #expect(profile["warnings"] as? [String] == [], "\(profile)")
            #expect(Set(profile.keys) == ["path", "created", "model", "matrix", "range", "width", "height", "warnings"])
            let target = try #require(status["target"] as? [String: Any], "\(status)")
            let lab = Self.target.lab
            #expect(target["lab"] as? [Double] == [lab.l, lab.a, lab.b].map { ($0 * 100).rounded() / 100 }, "\(target)")
            #expect(target["tolerance"] as? Double == 2)
            #expect(target["hex"] as? String == CalibratedColor(xyz: CIEXYZ(lab, white: .d50)).srgb8.hex, "\(target)")
            // The target is the magenta bar's calibrated colour: its swatch is that bar's.
            #expect(target["hex"] as? String == Self.profile.calibrated((191, 0, 192)).srgb8.hex)
        }
    }

    /// Frames of another colorimetry and size than the profile's: the status gives the
    /// profile's own sentences for both (the samples still come). Catches a mismatch not noticed,
    /// or noticed only for size or only for colorimetry.
    @Test func statusWarnsOfFramesUnlikeTheProfiles() async throws {
        let other = try simulatedProfile(colorimetry: Colorimetry(matrix: .bt709, range: .full), width: 640, height: 480)
        var configuration = serveConfiguration(.testPattern(width: 320, height: 240))
        configuration.settings = try ServeSettings(profile: .init(profile: other, path: "other.json"))
        try await withServer(configuration) { client in
            let profile = try await client.get("/api/v1/status").json["profile"] as? [String: Any] ?? [:]
            let expected = [
                "the profile was made from bt709 full frames, these are bt601 limited: its colours will be off (use --matrix/--range to match, or calibrate again)",
                "the profile was made at 640x480, these frames are 320x240: a camera's processing can differ by size (calibrate again at this size if colours look off)",
            ]
            #expect(profile["warnings"] as? [String] == expected, "\(profile)")
            #expect((try Self.samples(try await client.get("/api/v1/sample").text).first?["calibrated"]) != nil)
        }
    }

    /// Without a profile, the sample bodies (the capture's line and the endpoint's own), the
    /// events and the status's keys are exactly what they are without calibration; with one, the
    /// same bodies less the calibrated fields are again exactly those. Catches a `"calibrated"`,
    /// `"profile":null` or empty array where there is no profile, and a field before the new ones
    /// changed by them.
    @Test(arguments: [false, true]) func bodiesAreAsBeforeLessTheNewFields(profile: Bool) async throws {
        var configuration = serveConfiguration(fps: 10, points: Self.points)
        if profile { configuration.settings = Self.configuration().settings }
        try await withServer(configuration) { client in
            let calibratedFields =
                #/,"calibrated":\{"xyz":\[[-0-9.,]+\],"lab":\[[-0-9.,]+\],"srgb":\[[-0-9.,]+\],"hex":"#[0-9a-f]{6}","inGamut":(true|false)\},"deltaE":[0-9.]+,"pass":(true|false)/#
            // Last in the line, once: the profile that made it.
            let stamp = #/,"profile":\{"file":"bench.json","generation":0\}\}$/#
            func lessNew(_ body: String) -> String {
                #expect(body.matches(of: calibratedFields).count == (profile ? 2 : 0), "\(body)")
                #expect(body.matches(of: stamp).count == (profile ? 1 : 0), "\(body)")
                return body.replacing(calibratedFields, with: "").replacing(stamp, with: "}")
            }
            let before =
                ##"\{"frame":\d+,"timestamp":[0-9.e-]+,"matrix":"bt709","range":"limited","samples":\[\{"x":0.5625,"y":0.25,"r":191,"g":0,"b":192,"hex":"#bf00c0","mean":\[191.00,0.00,192.00\],"sd":\[0.00,0.00,0.00\],"n":1,"clipped":1\},\{"x":0.4375,"y":0.25,"r":0,"g":191,"b":0,"hex":"#00bf00","mean":\[0.00,191.00,0.00\],"sd":\[0.00,0.00,0.00\],"n":1,"clipped":2\}\]\}"##
            let line = try await client.get("/api/v1/sample").text
            #expect(lessNew(line).wholeMatch(of: try Regex(before)) != nil, "\(line)")
            let asked = try await client.get("/api/v1/sample?at=0.5625,0.25&at=0.4375,0.25").text
            #expect(lessNew(asked).wholeMatch(of: try Regex(before)) != nil, "\(asked)")
            let stream = try await readStream("/api/v1/samples", whileCapturing: 2, client)
            let event = try #require(stream.text.components(separatedBy: "\n\n").first)
            #expect(lessNew(event).wholeMatch(of: try Regex(#"id: \d+\ndata: "# + before)) != nil, "\(event)")
            let keys = Set(try await client.get("/api/v1/status").json.keys)
            let earlier: Set = [
                "source", "state", "format", "matrix", "range", "framesCaptured", "framesDropped", "framesEncoded", "frameRate",
                "conversionMilliseconds", "streamClients", "points", "controls", "controlWarnings",
                // the two timeout counters, always there
                "stalledStreamsClosed", "headerTimeouts",
                // the settings' generation, always there
                "generation",
            ]
            #expect(keys == earlier.union(profile ? ["profile", "target"] : []), "\(keys)")
        }
    }
}
