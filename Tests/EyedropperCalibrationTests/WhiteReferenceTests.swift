import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Foundation
import Testing

/// A patch of 1000 pixels whose mean is `value` (0...255) to within 0.0005 a channel: each
/// channel's pixels are its floor or ceiling in the proportion of the fraction. `spread` adds
/// ±spread to alternate pixels (the mean unchanged), `clipped` turns that many pixels to 255.
private func patch(_ value: SIMD3<Double>, spread: Int = 1, clipped: Int = 0) -> PatchStatistics {
    var statistics = PatchStatistics()
    for index in 0..<1000 {
        func level(_ v: Double) -> UInt8 {
            let low = v.rounded(.down), high = index < Int(((v - low) * 1000).rounded()) ? 1.0 : 0.0
            let offset = Double(index % 2 == 0 ? spread : -spread)
            return UInt8(max(0, min(255, low + high + offset)))
        }
        let pixel =
            index < clipped ? RGB8(r: 255, g: 255, b: 255) : RGB8(r: level(value.x), g: level(value.y), b: level(value.z))
        statistics.merge(PatchStatistics(pixel))
    }
    return statistics
}

private func mean(_ statistics: PatchStatistics) -> SIMD3<Double> {
    SIMD3(statistics.mean.r, statistics.mean.g, statistics.mean.b)
}

private let referencePoint = try! SamplePoint(x: 0.9, y: 0.5)
/// A grey card at 150 of 255 where the profile was made: headroom for a brighter light.
private let greyCard = SIMD3<Double>(150, 150, 150)

/// `SimulatedCamera`'s profile with the grey card recorded as its white reference.
private func profileWithReference(model: CorrectionModel = .linear) throws -> CameraProfile {
    try simulatedProfile(colorimetry: .bt601Limited, width: 640, height: 480, model: model)
        .recordingWhiteReference(at: referencePoint, radius: 10, statistics: patch(greyCard))
}

/// The ColorChecker's 24 patches as `SimulatedCamera` sees them at `light` times the exposure
/// the profile was made at, each a patch of 1000 pixels.
private func chart(light: Double) -> [PatchStatistics] {
    ChartReference.colorChecker2014.lab.map { patch(SimulatedCamera().camera(CIEXYZ($0, white: .d50), light: light) * 255) }
}

/// A flat grey of reflectance `level` (0...1) as `SimulatedCamera` sees it at `light`.
private func grey(_ level: Double, light: Double) -> SIMD3<Double> {
    SimulatedCamera().camera(CIEXYZ(x: 96.42 * level, y: 100 * level, z: 82.51 * level), light: light) * 255
}

@Suite struct WhiteReferenceTests {
    /// Whatever the patch reads, both models make it read its recorded colour again: the
    /// correction's direction and size are right. Catches gains inverted (now/then for then/now),
    /// applied to the wrong side of the tone curve, or Bradford's matrix adapting the wrong way.
    @Test(arguments: ReferenceModel.allCases) func theReferenceReadsAsRecorded(model: ReferenceModel) throws {
        let profile = try profileWithReference()
        var reference = try WhiteReference(profile: profile, point: referencePoint, model: model)
        for value in [SIMD3<Double>(120, 150, 170), SIMD3(190, 160, 110), SIMD3(80, 82, 79), SIMD3(150, 150, 150)] {
            let statistics = patch(value)
            let reading = reference.assess(statistics)
            #expect(reading.applied, "\(value): \(reading.state)")
            let corrected = profile.calibrated(statistics.mean, reference: reading).lab
            #expect(corrected.deltaE2000(reference.expectedLab) < 1e-6, "\(value) reads \(corrected)")
            // And the light's move is measured on the uncorrected colour.
            let uncorrected = profile.calibrated(statistics.mean).lab.deltaE2000(reference.expectedLab)
            #expect(abs(reading.deltaE - uncorrected) < 1e-9)
        }
    }

    /// A light 40% dimmer or 10% brighter (the most this camera takes before its white patch clips) moves every patch by several ΔE; with the grey card in
    /// view both models bring the 24 back to within a few tenths of what they read at calibration.
    /// Catches a correction that is not applied to the samples, or only to some channels.
    @Test(arguments: ReferenceModel.allCases, [0.6, 1.1]) func anIntensityChangeIsCorrected(model: ReferenceModel, light: Double)
        throws
    {
        let profile = try profileWithReference()
        let card = SimulatedCamera().camera(CIEXYZ(x: 96.42 * 0.45, y: 45, z: 82.51 * 0.45)) * 255
        let recorded = profile.recordingWhiteReference(at: referencePoint, radius: 10, statistics: patch(card))
        var reference = try WhiteReference(profile: recorded, point: referencePoint, model: model)
        let reading = reference.assess(patch(grey(0.45, light: light)))
        #expect(reading.state == .ok)
        var before: [Double] = [], after: [Double] = []
        for (then, now) in zip(chart(light: 1), chart(light: light)) {
            let calibration = recorded.calibrated(then.mean).lab
            before.append(recorded.calibrated(now.mean).lab.deltaE2000(calibration))
            after.append(recorded.calibrated(now.mean, reference: reading).lab.deltaE2000(calibration))
        }
        let meanBefore = before.reduce(0, +) / 24, meanAfter = after.reduce(0, +) / 24
        #expect(meanBefore > 1.5, "uncorrected \(meanBefore): the light did not change the readings")
        #expect(meanAfter < 0.5, "corrected \(meanAfter), uncorrected \(meanBefore)")
        #expect(reading.deltaE > 1, "the light moved \(reading.deltaE)")
    }

    /// Each way a reference goes wrong is told apart, and then nothing is applied: the samples
    /// read as with the profile alone. Catches a covered or clipped patch whose gains would be
    /// applied anyway, or a state that is never reached.
    @Test func aPatchThatCannotBeTrustedIsNotApplied() throws {
        let profile = try profileWithReference()
        func state(_ statistics: PatchStatistics, maxDrift: Double? = nil) throws -> ReferenceReading {
            var reference = try WhiteReference(profile: profile, point: referencePoint, maxDrift: maxDrift)
            return reference.assess(statistics)
        }
        #expect(try state(patch(greyCard)).state == .ok)
        #expect(try state(patch(greyCard)).deltaE < 0.01)
        #expect(try state(patch(greyCard, clipped: 10)).state == .clipped)
        #expect(try state(patch(greyCard, clipped: 1)).state == .ok)
        #expect(try state(patch(greyCard, spread: 60)).state == .covered)
        #expect(try state(patch(greyCard, spread: 3)).state == .ok)
        #expect(try state(patch(SIMD3(20, 20, 20))).state == .dark)
        // Red up and green down: what a red object on the card does, not a light.
        #expect(try state(patch(SIMD3(200, 90, 90))).state == .implausible)
        // A warmer light is a light.
        #expect(try state(patch(SIMD3(165, 150, 125))).state == .ok)
        let dimmer = try state(patch(SIMD3(120, 120, 120)), maxDrift: 1)
        #expect(dimmer.state == .drift && dimmer.applied)
        #expect(try state(patch(SIMD3(120, 120, 120)), maxDrift: 50).state == .ok)
        for statistics in [patch(greyCard, clipped: 10), patch(greyCard, spread: 60), patch(SIMD3(200, 90, 90))] {
            let reading = try state(statistics)
            #expect(!reading.applied)
            #expect(reading.gains == SIMD3(repeating: 1))
            let sample = SIMD3<Double>(90, 120, 60)
            let given = (r: sample.x, g: sample.y, b: sample.z)
            #expect(profile.calibrated(given, reference: reading) == profile.calibrated(given))
        }
    }

    /// The reference's colour given as L*a*b* instead of recorded: the camera RGB that makes it is
    /// found through every model's matrix, and corrects exactly as the record does. Catches an
    /// inversion that stops short, or lands on another RGB of the same Y.
    @Test(arguments: CorrectionModel.allCases) func aGivenColourCorrectsAsTheRecordDoes(model: CorrectionModel) throws {
        let profile = try profileWithReference(model: model)
        let lab = try #require(profile.whiteReference).lab
        var recorded = try WhiteReference(profile: profile, point: referencePoint, model: .diagonal)
        var given = try WhiteReference(
            profile: profile, point: referencePoint, lab: CIELab(l: lab[0], a: lab[1], b: lab[2]), model: .diagonal)
        #expect(given.recorded == .lab && recorded.recorded == .profile)
        let now = patch(SIMD3(170, 150, 120))
        let (a, b) = (recorded.assess(now), given.assess(now))
        #expect(max(abs(a.gains.x - b.gains.x), abs(a.gains.y - b.gains.y), abs(a.gains.z - b.gains.z)) < 1e-6, "\(a.gains) \(b.gains)")
    }

    /// A profile that recorded no reference, and no colour given: refused with what to do.
    @Test func aProfileWithoutAReferenceSaysWhatToDo() throws {
        let profile = try simulatedProfile(colorimetry: .bt601Limited, width: 640, height: 480)
        #expect(throws: WhiteReferenceError.notRecorded) { try WhiteReference(profile: profile, point: referencePoint) }
        #expect(WhiteReferenceError.notRecorded.description.contains("calibrate --white-reference"))
    }

    /// The record goes into the profile file and back; a profile without one writes no key, so
    /// its file is what it was before references existed. Catches a record lost on the way, or a
    /// `"whiteReference":null` that older readers would trip on.
    @Test func theRecordRoundTripsThroughTheFile() throws {
        let profile = try profileWithReference()
        let decoded = try CameraProfile.decode(profile.json(), path: "profile.json")
        #expect(decoded == profile)
        #expect(decoded.whiteReference?.mean.map { ($0 * 1000).rounded() / 1000 } == [150, 150, 150])
        let plain = try simulatedProfile(colorimetry: .bt601Limited, width: 640, height: 480)
        #expect(!String(decoding: plain.json(), as: UTF8.self).contains("whiteReference"))
    }
}
