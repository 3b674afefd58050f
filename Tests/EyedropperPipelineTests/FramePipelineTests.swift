import Eyedropper
import EyedropperPipeline
import EyedropperTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
    import EyedropperCalibration
#endif

private func point(_ x: Double, _ y: Double) -> SamplePoint { try! SamplePoint(x: x, y: y) }

/// The centre of each of the test pattern's eight bars, left to right.
private let barCentres = (0..<8).map { point((Double($0) + 0.5) / 8, 0.25) }

private func seconds(_ clock: clockid_t) -> Double {
    var time = timespec()
    clock_gettime(clock, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// `buffer` converted to RGB24 and read through `pipeline` from the RGB, as serve reads it.
private func readConverted(
    _ buffer: FrameBuffer, _ pipeline: inout FramePipeline, number: Int, timestamp: Double
) throws -> Reading? {
    try buffer.withFrame { frame in
        var rgb = [UInt8](repeating: 0, count: frame.width * frame.height * 3)
        try rgb.withUnsafeMutableBytes { try YCbCrConverter(colorimetry: frame.colorimetry).convert(frame, to: .rgb24, into: $0) }
        return try rgb.withUnsafeBytes { bytes in
            let converted = ConvertedFrame(
                rgb: RGBFrame(bytes: bytes, width: frame.width, height: frame.height), colorimetry: frame.colorimetry)
            return try pipeline.read(converted, number: number, timestamp: timestamp)
        }
    }
}

@Suite struct FramePipelineTests {
    /// The eight bars read from the planes are the pattern's colours within a level, in the order
    /// of the points, stamped with the frame's number and timestamp. Catches points read out of
    /// order, a wrong colorimetry, or a reading stamped with another frame's number.
    @Test func testPatternBarsAreTheirColours() throws {
        let buffer = try TestPattern(width: 1280, height: 720).makeFrameBuffer()
        var pipeline = FramePipeline(points: barCentres, radius: 2, driverClock: false)
        let reading = try #require(try buffer.withFrame { try pipeline.read($0, number: 7, timestamp: 0.25) })
        #expect(reading.frame == 7 && reading.frames == nil && reading.timestamp == 0.25)
        #expect(reading.colorimetry == .bt709Limited && reading.width == 1280 && reading.height == 720)
        #expect(reading.samples.map(\.point) == barCentres)
        for (sample, nominal) in zip(reading.samples, TestPattern.barColors) {
            let color = sample.color
            let apart = max(abs(Int(color.r) - Int(nominal.r)), abs(Int(color.g) - Int(nominal.g)), abs(Int(color.b) - Int(nominal.b)))
            #expect(apart <= 1, "\(color.hex) for \(nominal.hex)")
            #expect(sample.statistics.count == 25)
        }
        #expect(reading.calibrated.isEmpty)
    }

    /// The planes (`PlanarFrame`, through the sampler) and the converted RGB (`ConvertedFrame`)
    /// give the same reading, JSON line and all. Catches the two sources drifting apart (the CLI
    /// and serve answering differently for one frame).
    @Test func planesAndConvertedRGBGiveOneReading() throws {
        let buffer = try TestPattern(width: 640, height: 480).makeFrameBuffer()
        let points = barCentres + [point(0.3, 0.75), point(0.6, 0.9), point(1, 1), point(0, 0)]
        var planes = FramePipeline(points: points, radius: 3, driverClock: false)
        var converted = FramePipeline(points: points, radius: 3, driverClock: false)
        let fromPlanes = try #require(try buffer.withFrame { try planes.read($0, number: 3, timestamp: 1.5) })
        let fromRGB = try #require(try readConverted(buffer, &converted, number: 3, timestamp: 1.5))
        #expect(fromPlanes.json == fromRGB.json)
        #expect(
            fromPlanes.json.hasPrefix(#"{"frame":3,"timestamp":1.5,"matrix":"bt601","range":"limited","samples":[{"x":0.0625,"y":0.25,"#))
    }

    /// With a profile and a target, every sample is calibrated as the profile calibrates its mean,
    /// and the target's ΔE and pass are there: the white bar's own colour passes, the others fail.
    /// Catches calibration left out, calibrated samples out of order, or the target dropped.
    @Test func calibratesAgainstProfileAndTarget() throws {
        let profile = try simulatedProfile(colorimetry: .bt709Limited, width: 1280, height: 720)
        let buffer = try TestPattern(width: 1280, height: 720).makeFrameBuffer()
        var plain = FramePipeline(points: barCentres, radius: 1, driverClock: false)
        let samples = try #require(try buffer.withFrame { try plain.read($0, number: 0, timestamp: 0) }).samples
        let white = profile.calibrated(samples[0].statistics.mean)
        var pipeline = FramePipeline(
            points: barCentres, radius: 1, profile: profile, target: ColorTarget(lab: white.lab), driverClock: false)
        let reading = try #require(try buffer.withFrame { try pipeline.read($0, number: 0, timestamp: 0) })
        #expect(reading.calibrated.count == barCentres.count)
        for (sample, calibrated) in zip(samples, reading.calibrated) {
            #expect(calibrated.color.lab == profile.calibrated(sample.statistics.mean).lab)
        }
        #expect(reading.calibrated.map(\.pass) == [true] + Array(repeating: false, count: 7))
        #expect(reading.calibrated[0].deltaE.map { $0 < 1e-9 } == true)
        #expect(reading.json.contains(#""deltaE":0.00,"pass":true"#))
    }

    /// A white reference is read beside the points, never among them: the samples are the
    /// points', the reading carries the reference's own, after the samples in the JSON line, and
    /// with --average it is added up over the block like the points. Catches the reference
    /// leaking into the samples (or the calibrated list), one point dropped for it, or a block's
    /// reference read from its last frame alone.
    @Test func aWhiteReferenceIsReadBesideThePoints() throws {
        let white = point(1.0 / 16, 0.25)
        let pattern = try TestPattern(width: 640, height: 480).makeFrameBuffer()
        var plain = FramePipeline(points: [white], radius: 3, driverClock: false)
        let whiteBar = try #require(try pattern.withFrame { try plain.read($0, number: 0, timestamp: 0) }).samples[0].statistics
        let profile = try simulatedProfile(colorimetry: pattern.colorimetry, width: 640, height: 480)
            .recordingWhiteReference(at: white, radius: 3, statistics: whiteBar)
        let reference = try WhiteReference(profile: profile, point: white, maxDrift: 0.5)
        let points = Array(barCentres[1...3])
        var pipeline = FramePipeline(points: points, radius: 3, profile: profile, reference: reference, driverClock: false)
        let reading = try #require(try pattern.withFrame { try pipeline.read($0, number: 0, timestamp: 0) })
        #expect(reading.samples.map(\.point) == points)
        #expect(reading.calibrated.count == 3)
        let read = try #require(reading.reference)
        #expect(read.point == white && read.statistics == whiteBar)
        #expect(read.state == .ok && read.deltaE < 0.01)
        #expect(reading.json.contains(#"}],"reference":{"x":0.0625,"y":0.25,"#))
        #expect(reading.json.hasSuffix(#""applied":true,"state":"ok","model":"bradford"}}"#))
        var block = FramePipeline(
            points: points, radius: 3, profile: profile, reference: reference, average: 3, driverClock: false)
        var last: Reading?
        for number in 0..<3 { last = try pattern.withFrame { try block.read($0, number: number, timestamp: 0) } }
        let averaged = try #require(last)
        #expect(averaged.samples.count == 3)
        #expect(averaged.reference?.statistics.count == 3 * whiteBar.count)
        // Without a profile there is nothing to correct: no reference is read.
        var unprofiled = FramePipeline(points: points, radius: 3, reference: reference, driverClock: false)
        let bare = try #require(try pattern.withFrame { try unprofiled.read($0, number: 0, timestamp: 0) })
        #expect(bare.reference == nil && bare.samples.count == 3)
    }

    /// The reference is read over its own window whatever radius the points use: the one the
    /// profile recorded it over, else `--white-reference X,Y,R`'s, else the default for a colour
    /// given as L*a*b*. Catches the reference read at the points' radius (one pixel at
    /// `--radius 0`, which lets a noisy pixel set the gains).
    @Test func theReferenceIsReadOverItsOwnWindow() throws {
        let white = point(1.0 / 16, 0.25)
        let pattern = try TestPattern(width: 640, height: 480).makeFrameBuffer()
        var plain = FramePipeline(points: [white], radius: 3, driverClock: false)
        let whiteBar = try #require(try pattern.withFrame { try plain.read($0, number: 0, timestamp: 0) }).samples[0].statistics
        let unrecorded = try simulatedProfile(colorimetry: pattern.colorimetry, width: 640, height: 480)
        let recorded = unrecorded.recordingWhiteReference(at: white, radius: 3, statistics: whiteBar)
        let lab = try #require(recorded.whiteReference.map { CIELab(l: $0.lab[0], a: $0.lab[1], b: $0.lab[2]) })
        let cases: [(CameraProfile, WhiteReferenceSettings, Int)] = [
            (recorded, WhiteReferenceSettings(point: white), 3),
            (recorded, WhiteReferenceSettings(point: white, radius: 5), 5),
            (unrecorded, WhiteReferenceSettings(point: white, lab: lab), WhiteReference.defaultRadius),
        ]
        for (profile, settings, radius) in cases {
            let reference = try WhiteReference(profile: profile, settings: settings)
            #expect(reference.radius == radius)
            var pipeline = FramePipeline(points: [barCentres[2]], radius: 0, profile: profile, reference: reference, driverClock: false)
            let reading = try #require(try pattern.withFrame { try pipeline.read($0, number: 0, timestamp: 0) })
            #expect(reading.samples.map(\.statistics.count) == [1])
            #expect(reading.reference?.statistics.count == (2 * radius + 1) * (2 * radius + 1), "\(settings)")
            #expect(reading.json.contains(#""n":\#((2 * radius + 1) * (2 * radius + 1)),"clipped""#))
        }
    }

    /// A reading says which profile calibrated it, last in its line, and only when one did.
    /// Catches the stamp missing, put before the samples, or written without a profile.
    @Test func aReadingNamesItsProfile() throws {
        let pattern = try TestPattern(width: 640, height: 480).makeFrameBuffer()
        let profile = try simulatedProfile(colorimetry: pattern.colorimetry, width: 640, height: 480)
        let stamp = ProfileStamp(path: "/etc/eyedropper/profiles/desk \"A\".json", generation: 3)
        var calibrated = FramePipeline(points: [barCentres[0]], radius: 0, profile: profile, driverClock: false, profileStamp: stamp)
        let line = try #require(try pattern.withFrame { try calibrated.read($0, number: 0, timestamp: 0) }).json
        #expect(line.hasSuffix(#"}],"profile":{"file":"desk \"A\".json","generation":3}}"#), "\(line)")
        var bare = FramePipeline(points: [barCentres[0]], radius: 0, driverClock: false, profileStamp: stamp)
        let plain = try #require(try pattern.withFrame { try bare.read($0, number: 0, timestamp: 0) })
        #expect(plain.profile == nil && !plain.json.contains("profile"))
    }

    /// Names from a palette: without a profile by the camera colour read as sRGB (so the white
    /// bar, #bfbfbf, is the entry made from that hex at ΔE 0), with one by the calibrated colour;
    /// past --max-delta-e `unknown`, whose next is the nearest and margin how far past. Catches
    /// names matched on the wrong colour, a margin of the wrong sign, or `unknown` never said.
    @Test func samplesAreNamedFromAPalette() throws {
        func lab(_ hex: RGB8) -> SIMD3<Double> {
            let lab = SRGB.xyzD50(hex).lab(white: .d50)
            return SIMD3(lab.l, lab.a, lab.b)
        }
        let palette = try Palette(entries: [
            .init(name: "grey", lab: lab(RGB8(r: 191, g: 191, b: 191))), .init(name: "teal", lab: lab(RGB8(r: 0, g: 191, b: 190))),
        ])
        let pattern = try TestPattern(width: 640, height: 480).makeFrameBuffer()
        let points = [barCentres[0], barCentres[1], barCentres[2]]
        var camera = FramePipeline(
            points: points, radius: 2, palette: PaletteSettings(palette: palette, maxDeltaE: 5), driverClock: false)
        let named = try #require(try pattern.withFrame { try camera.read($0, number: 0, timestamp: 0) })
        #expect(named.names.map(\.entry) == [0, nil, 1])
        #expect(named.names.allSatisfy { !$0.calibrated })
        #expect(named.names[0].match.deltaE < 1e-9)
        #expect(named.names[0].next == 1 && named.names[0].margin == named.names[0].match.nextDeltaE)
        let yellow = named.names[1]
        #expect(yellow.next == yellow.match.entry && yellow.margin == yellow.match.deltaE - 5 && yellow.margin! > 0)
        #expect(named.json.contains(#""nearest":{"name":"grey","deltaE":0.00,"next":"teal","#))
        #expect(named.json.contains(#""nearest":{"name":"unknown","#))
        let profile = try simulatedProfile(colorimetry: pattern.colorimetry, width: 640, height: 480)
        var calibrated = FramePipeline(
            points: points, radius: 2, profile: profile, palette: PaletteSettings(palette: palette), driverClock: false)
        let reading = try #require(try pattern.withFrame { try calibrated.read($0, number: 0, timestamp: 0) })
        for (name, sample) in zip(reading.names, reading.calibrated) {
            #expect(name.calibrated && name.known)
            let lab = sample.color.lab
            #expect(name.match == palette.match(SIMD3(lab.l, lab.a, lab.b)))
        }
    }

    /// The profile check: said for the first frame (empty: it matches), not again while frames
    /// stay alike, and again when one differs. Catches warnings repeated every frame or missed.
    @Test func frameCheckSaysOncePerChange() throws {
        let profile = try simulatedProfile(colorimetry: .bt709Limited, width: 1280, height: 720)
        var pipeline = FramePipeline(points: [.center], radius: 0, profile: profile, driverClock: false)
        let large = try TestPattern(width: 1280, height: 720).makeFrameBuffer()
        let small = try TestPattern(width: 640, height: 480).makeFrameBuffer()
        _ = try large.withFrame { try pipeline.read($0, number: 0, timestamp: 0) }
        #expect(pipeline.warnings == [])
        _ = try large.withFrame { try pipeline.read($0, number: 1, timestamp: 0) }
        #expect(pipeline.warnings == nil)
        _ = try small.withFrame { try pipeline.read($0, number: 2, timestamp: 0) }
        #expect(pipeline.warnings?.isEmpty == false)
    }

    /// --average: a block's reading is each point's statistics over all its frames' pixels,
    /// numbered and timed by its first frame; a change of colorimetry closes it early (the frame
    /// then starts the next); `finish` gives the shorter last block, once. Catches a block
    /// averaged wrongly (n, mean), stamped with its last frame, not closed on a change, or
    /// printed twice.
    @Test func averageBlocks() throws {
        let points = [point(0.3, 0.25), point(0.6, 0.75)]
        // The same labels, other code values: BT.601's bars read as BT.709 are other colours.
        let first = try TestPattern(width: 640, height: 480, colorimetry: .bt709Limited).makeFrameBuffer()
        let second = try TestPattern(width: 640, height: 480, colorimetry: .bt601Limited).makeFrameBuffer()
        second.colorimetry = .bt709Limited
        let other = try TestPattern(width: 640, height: 480, colorimetry: .bt601Limited).makeFrameBuffer()
        var single = FramePipeline(points: points, radius: 1, driverClock: false)
        let a = try #require(try first.withFrame { try single.read($0, number: 0, timestamp: 0) }).samples
        let b = try #require(try second.withFrame { try single.read($0, number: 0, timestamp: 0) }).samples
        #expect(a.map(\.color) != b.map(\.color))

        var pipeline = FramePipeline(points: points, radius: 1, average: 3, driverClock: false)
        #expect(try first.withFrame { try pipeline.read($0, number: 10, timestamp: 2.0) } == nil)
        #expect(try second.withFrame { try pipeline.read($0, number: 11, timestamp: 2.5) } == nil)
        let block = try #require(try first.withFrame { try pipeline.read($0, number: 12, timestamp: 3.0) })
        #expect(block.frame == 10 && block.frames == 3 && block.timestamp == 2.0)
        #expect(block.json.hasPrefix(#"{"frame":10,"frames":3,"timestamp":2.0,"#))
        for index in points.indices {
            let statistics = block.samples[index].statistics
            #expect(statistics.count == 27)
            let (ma, mb) = (a[index].statistics.mean, b[index].statistics.mean)
            #expect(abs(statistics.mean.r - (2 * ma.r + mb.r) / 3) < 1e-9)
            #expect(abs(statistics.mean.g - (2 * ma.g + mb.g) / 3) < 1e-9)
            #expect(abs(statistics.mean.b - (2 * ma.b + mb.b) / 3) < 1e-9)
        }

        #expect(try first.withFrame { try pipeline.read($0, number: 13, timestamp: 3.5) } == nil)
        let closed = try #require(try other.withFrame { try pipeline.read($0, number: 14, timestamp: 4.0) })
        #expect(closed.frame == 13 && closed.frames == 1 && closed.colorimetry == .bt709Limited)
        #expect(closed.samples.map(\.color) == a.map(\.color))
        let last = try #require(pipeline.finish() as Reading?)
        #expect(last.frame == 14 && last.frames == 1 && last.colorimetry == .bt601Limited)
        let again = pipeline.finish()
        #expect(again == nil)
    }

    /// The wall-clock time, stamped once: now for a file or the test pattern; for a camera the
    /// driver's monotonic timestamp moved onto the wall clock; now again for a driver whose
    /// timestamps are not the monotonic clock. Catches the driver's timestamp used as it is, the
    /// rule applied to files, or a bogus driver clock believed.
    @Test func wallClockFollowsTheDriverClockRule() throws {
        let buffer = try TestPattern(width: 64, height: 48).makeFrameBuffer()
        func time(driverClock: Bool, timestamp: () -> Double) throws -> (Double, before: Double, after: Double) {
            var pipeline = FramePipeline(points: [.center], radius: 0, driverClock: driverClock)
            let before = seconds(CLOCK_REALTIME)
            let reading = try #require(try buffer.withFrame { try pipeline.read($0, number: 0, timestamp: timestamp()) })
            return (reading.time, before, seconds(CLOCK_REALTIME))
        }
        let file = try time(driverClock: false) { 5 }
        #expect(file.0 >= file.before && file.0 <= file.after)
        let camera = try time(driverClock: true) { seconds(CLOCK_MONOTONIC) - 5 }
        let slack = camera.after - camera.before
        #expect(camera.0 >= camera.before - 5 - slack && camera.0 <= camera.after - 5 + slack)
        let bogus = try time(driverClock: true) { seconds(CLOCK_MONOTONIC) + 1000 }
        #expect(bogus.0 >= bogus.before && bogus.0 <= bogus.after)
    }
}
