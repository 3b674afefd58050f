import Eyedropper
import EyedropperCalibration
import EyedropperServer
import EyedropperTestSupport
import Foundation
import HTTPTypes
import Hummingbird
import Testing

extension HTTPTypes.HTTPField.Name {
    fileprivate static let lastEventIDHeader = Self("Last-Event-ID")!
}

/// serve's one live settings value, on a server whose frames are handed in (`HandedFrames`): no
/// capture runs, so what a test asks of a frame is answered from that frame on any machine. A
/// profile applied from the page or by a reload: which readings carry it, when the answer comes,
/// what a reload keeps; the event stream's history for clients that come back.
@Suite(.timeLimit(.minutes(1))) struct LiveSettingsTests {
    static let colorimetry = Colorimetry(matrix: .bt709, range: .limited)
    /// Two profiles that calibrate the same camera colour differently.
    static let linear = try! simulatedProfile(colorimetry: colorimetry, width: 320, height: 240, model: .linear)
    static let affine = try! simulatedProfile(colorimetry: colorimetry, width: 320, height: 240, model: .affine)
    /// The magenta bar's centre: flat, so its mean is the bar's colour.
    static let point = try! SamplePoint(x: 0.5625, y: 0.25)

    /// A profile directory with A.json (linear) and B.json (affine), and a configuration that
    /// starts with A.
    struct Setup: @unchecked Sendable {
        let scratch: ScratchDirectory
        let configuration: ServeConfiguration
        let pattern: FrameBuffer

        init(frameWait: Duration = .seconds(30), target: ColorTarget? = nil) throws {
            scratch = try ScratchDirectory()
            try ScratchDirectory.write(LiveSettingsTests.linear.json(), to: scratch.file("A.json"))
            try ScratchDirectory.write(LiveSettingsTests.affine.json(), to: scratch.file("B.json"))
            var configuration = serveConfiguration(.testPattern(width: 320, height: 240), points: [LiveSettingsTests.point])
            var options = ServeSettings.Options()
            options.profile = scratch.file("A.json")
            options.target = target
            configuration.settings = try ServeSettings.load(options).settings
            configuration.profileDirectory = scratch.path
            configuration.frameWait = frameWait
            self.configuration = configuration
            pattern = try TestPattern(width: 320, height: 240).makeFrameBuffer()
        }

        /// Reads the test pattern as the next frame.
        func hand(_ frames: HandedFrames, count: Int = 1) {
            for _ in 0..<count { pattern.withFrame { frames.publish($0) } }
        }

        /// The options serve started with, as a reload would read them.
        var options: ServeSettings.Options { configuration.settings.options }
    }

    /// A line's profile stamp, and whether its samples are calibrated by `profile` (what that
    /// profile makes of each sample's own mean, to the printed decimals).
    static func stamp(_ line: [String: Any]) -> (file: String, generation: Int)? {
        guard let profile = line["profile"] as? [String: Any], let file = profile["file"] as? String,
            let generation = profile["generation"] as? Int
        else { return nil }
        return (file, generation)
    }

    static func isCalibrated(_ line: [String: Any], by profile: CameraProfile) -> Bool {
        guard let samples = line["samples"] as? [[String: Any]], !samples.isEmpty else { return false }
        return samples.allSatisfy { sample in
            guard let mean = sample["mean"] as? [Double], let lab = (sample["calibrated"] as? [String: Any])?["lab"] as? [Double] else {
                return false
            }
            let expected = profile.calibrated((mean[0], mean[1], mean[2])).lab
            return zip(lab, [expected.l, expected.a, expected.b]).allSatisfy { abs($0 - $1) <= 0.0051 }
        }
    }

    static func lines(ofEvents text: String) -> [[String: Any]] {
        text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any]
        }
    }

    /// The two profiles differ where the test looks: else every check below would pass for
    /// either.
    @Test func theTwoProfilesCalibrateTheBarDifferently() {
        let a = Self.linear.calibrated((191, 0, 192)).lab, b = Self.affine.calibrated((191, 0, 192)).lab
        #expect(a.deltaE2000(b) > 0.05, "\(a) \(b)")
    }

    /// `PUT /api/v1/profile` answers once a frame read with the new profile is published, with
    /// that frame and the new generation; the first `GET /api/v1/sample` after the answer is the
    /// new profile's reading, and says so. Catches an answer before the profile reaches the
    /// readings (a client asking at once gets the old profile's), or readings that do not say
    /// which profile made them.
    @Test func aProfileAppliedIsAnsweredOnceAFrameIsReadWithIt() async throws {
        let setup = try Setup()
        let (app, frames) = try HandedFrames.application(setup.configuration)
        try await onServerThreads {
            try await app.test { client in
                setup.hand(frames)
                let before = try await client.get("/api/v1/sample").json
                #expect(Self.stamp(before)?.file == "A.json" && Self.stamp(before)?.generation == 0, "\(before)")
                #expect(Self.isCalibrated(before, by: Self.linear), "\(before)")

                let put = serverTask { try await client.put("/api/v1/profile", body: #"{"name": "B.json"}"#) }
                try await waitUntil("the PUT replaced the settings") { frames.generation == 1 }
                // Until a frame is read with it, the newest reading is still A's.
                #expect(Self.stamp(try await client.get("/api/v1/sample").json)?.file == "A.json")
                setup.hand(frames)
                let answer = try await put.value
                #expect(answer.status == .ok, "\(answer.text)")
                #expect(answer.json["generation"] as? Int == 1 && answer.json["frame"] as? Int == 1, "\(answer.text)")
                #expect((answer.json["profile"] as? [String: Any])?["path"] as? String == setup.scratch.file("B.json"))

                let after = try await client.get("/api/v1/sample").json
                #expect(Self.stamp(after)?.file == "B.json" && Self.stamp(after)?.generation == 1, "\(after)")
                #expect(Self.isCalibrated(after, by: Self.affine), "\(after)")
                // A request's own points are read with the frame's settings too.
                let own = try await client.get("/api/v1/sample?at=0.5625,0.25&radius=1").json
                #expect(Self.stamp(own)?.file == "B.json" && Self.isCalibrated(own, by: Self.affine), "\(own)")
                let status = try await client.get("/api/v1/status").json
                #expect(status["generation"] as? Int == 1, "\(status)")
            }
        }
    }

    /// With no frame within the wait (a source failing, stopped), the profile is applied all the
    /// same and the answer is 202 with no frame: readings that name its generation are its own.
    /// Catches a PUT that hangs, fails, or is lost when no frame comes.
    @Test func aProfileAppliedWithNoFrameIsAccepted() async throws {
        let setup = try Setup(frameWait: .milliseconds(50))
        let (app, frames) = try HandedFrames.application(setup.configuration)
        try await onServerThreads {
            try await app.test { client in
                setup.hand(frames)
                let answer = try await client.put("/api/v1/profile", body: #"{"name": "B.json"}"#)
                #expect(answer.status == .accepted, "\(answer.text)")
                #expect(answer.text.contains(#""frame":null"#) && answer.json["generation"] as? Int == 1, "\(answer.text)")
                setup.hand(frames)
                let after = try await client.get("/api/v1/sample").json
                #expect(Self.stamp(after)?.generation == 1 && Self.isCalibrated(after, by: Self.affine), "\(after)")
            }
        }
    }

    /// An event stream open while a profile is applied, by the page (PUT) and by a reload: each
    /// event is calibrated by the profile it names, those before the change by the old and every
    /// one after the answer by the new, with no frame missing. Catches an event made with one
    /// profile and stamped with the other, a frame read with a mix, or events lost at the change.
    @Test(arguments: ["page", "reload"])
    func eventsSayWhichProfileMadeThem(by change: String) async throws {
        let setup = try Setup()
        let (app, frames) = try HandedFrames.application(setup.configuration)
        let text = try await onServerThreads {
            try await app.test { client in
                setup.hand(frames, count: 3)
                // From frame 0 on: as a client that has seen nothing yet and says so.
                let stream = serverTask {
                    try await client.execute(uri: "/api/v1/samples", method: .get, headers: [.lastEventIDHeader: "-1"]).text
                }
                if change == "page" {
                    let put = serverTask { try await client.put("/api/v1/profile", body: #"{"name": "B.json"}"#) }
                    try await waitUntil("the PUT replaced the settings") { frames.generation == 1 }
                    setup.hand(frames)
                    #expect(try await put.value.json["frame"] as? Int == 3)
                } else {
                    var options = setup.options
                    options.profile = setup.scratch.file("B.json")
                    frames.reload(ReloadedOptions(options: options, restartNeeded: []))
                    setup.hand(frames)
                }
                setup.hand(frames, count: 2)
                frames.close()  // the stream ends once it has sent every frame
                return try await stream.value
            }
        }
        let lines = Self.lines(ofEvents: text)
        #expect(lines.map { $0["frame"] as? Int } == [0, 1, 2, 3, 4, 5], "\(text)")
        for line in lines {
            let frame = line["frame"] as? Int ?? -1
            let (file, generation, profile) = frame < 3 ? ("A.json", 0, Self.linear) : ("B.json", 1, Self.affine)
            #expect(Self.stamp(line)?.file == file && Self.stamp(line)?.generation == generation, "\(line)")
            #expect(Self.isCalibrated(line, by: profile), "frame \(frame): \(line)")
        }
    }

    /// A client that comes back with `Last-Event-ID` gets every event after it from the history,
    /// then goes on live; without one, or with an id this server has not reached, it starts from
    /// the newest frame; an id that is no frame number is refused. Catches a reconnect that
    /// resumes at the newest frame (the events between lost), repeats the last one, or waits for a
    /// frame that will never come.
    @Test func aClientThatComesBackGetsWhatItMissed() async throws {
        let setup = try Setup()
        let (app, frames) = try HandedFrames.application(setup.configuration)
        let ids = try await onServerThreads {
            try await app.test { client in
                setup.hand(frames, count: 10)
                let streams = [nil, "3", "9", "1000"].map { (id: String?) in
                    serverTask {
                        var headers = HTTPFields()
                        if let id { headers[.lastEventIDHeader] = id }
                        return try await client.execute(uri: "/api/v1/samples", method: .get, headers: headers).text
                    }
                }
                // Every stream is open once each has written (the newest frame at least).
                try await waitUntil("four streams open") { frames.streamClients == 4 }
                // An id no event of this stream had is refused at once, not streamed.
                let refused = try await client.execute(uri: "/api/v1/samples", method: .get, headers: [.lastEventIDHeader: "abc"])
                #expect(refused.status == .badRequest && refused.json["parameter"] as? String == "Last-Event-ID", "\(refused.text)")
                setup.hand(frames, count: 2)
                frames.close()
                var ids: [[Int]] = []
                for stream in streams {
                    ids.append(Self.lines(ofEvents: try await stream.value).compactMap { $0["frame"] as? Int })
                }
                return ids
            }
        }
        #expect(ids[0] == [9, 10, 11], "no id: from the newest frame")
        #expect(ids[1] == Array(4...11), "Last-Event-ID 3: from frame 4")
        #expect(ids[2] == [10, 11], "Last-Event-ID 9: from frame 10")
        #expect(ids[3] == [9, 10, 11], "an id not reached yet: from the newest")
    }

    /// A reload keeps a profile applied from the page while the configuration's profile line is
    /// as it was (reading its file again), and gives way to the configuration when that changes
    /// or goes; the target and white reference are always the configuration's now. Catches a
    /// reload that undoes the page's profile, one that ignores a changed configuration, and a
    /// page's profile applied with the target of the start.
    @Test func aReloadKeepsThePagesProfileUntilTheConfigurationChangesIt() throws {
        let setup = try Setup()
        let start = setup.configuration.settings
        let applied = start.applying(.init(profile: Self.affine, path: setup.scratch.file("B.json")))
        var options = setup.options
        let kept = try ServeSettings.load(options, over: applied)
        #expect(kept.settings.profile?.path == setup.scratch.file("B.json") && kept.errors.isEmpty)
        #expect(kept.loaded == ["the profile \(setup.scratch.file("B.json"))"])

        options.target = ColorTarget(lab: CIELab(l: 50, a: 0, b: 0))
        let retargeted = try ServeSettings.load(options, over: applied).settings
        #expect(retargeted.profile?.path == setup.scratch.file("B.json") && retargeted.target == options.target)
        let reapplied = retargeted.applying(.init(profile: Self.linear, path: setup.scratch.file("A.json")))
        #expect(reapplied.target == options.target, "a profile applied later keeps the configuration's target")

        try ScratchDirectory.write(Self.linear.json(), to: setup.scratch.file("C.json"))
        options.profile = setup.scratch.file("C.json")
        #expect(try ServeSettings.load(options, over: applied).settings.profile?.path == setup.scratch.file("C.json"))
        options.profile = nil
        let none = try ServeSettings.load(options, over: applied)
        #expect(none.settings.profile == nil && none.settings.target == nil && none.loaded == ["no profile"])
    }

    /// A profile's file that fails at a reload keeps the profile served, and says why. Catches a
    /// failed load that leaves serve without a profile.
    @Test func aProfileThatFailsAtAReloadIsKept() throws {
        let setup = try Setup()
        var options = setup.options
        options.profile = setup.scratch.file("missing.json")
        let reloaded = try ServeSettings.load(options, over: setup.configuration.settings)
        #expect(reloaded.settings.profile?.path == setup.scratch.file("A.json"))
        #expect(reloaded.errors.count == 1 && reloaded.errors[0].hasSuffix("(the profile served is kept)"), "\(reloaded.errors)")
        #expect(throws: (any Error).self) { try ServeSettings.load(options) }
    }
}
