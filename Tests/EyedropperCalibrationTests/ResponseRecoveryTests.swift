import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The tone curve measured from the chart at several exposures, on the simulated camera (a power
/// 1/1.9 over a 2 % pedestal, ±3 levels of noise a pixel).
@Suite struct ResponseRecoveryTests {
    let reference = ChartReference.colorChecker2014
    /// From 1/64 to 4 times the base, off any ladder (docs/calibration.md's).
    static let factors = [1, 3.0 / 200, 1.0 / 40, 3.0 / 50, 3.0 / 25, 1.0 / 4, 17.0 / 40, 1.25, 1.75, 4]

    /// The chart at each factor of an exposure that puts its white at about 166 of 255, each
    /// exposure with noise of its own.
    func readings(
        _ factors: [Double], exponents: SIMD3<Double> = SIMD3(repeating: 1.9), gains: SIMD3<Double> = SimulatedCamera().gains,
        pedestal: Double = SimulatedCamera().pedestal
    ) -> [[PatchStatistics]] {
        factors.enumerated().map { index, factor in
            var camera = SimulatedCamera(seed: UInt64(index + 1))
            camera.exposure = 0.35 * factor
            camera.exponents = exponents
            camera.gains = gains
            camera.pedestal = pedestal
            return camera.readings(reference.lab)
        }
    }

    /// One curve is measured for the three channels, and every linear value it gives codes 10 to
    /// 225, scaled per channel to the truth, encodes back within a level of its code (it reads
    /// 0.67, with this camera's noise of ±3 levels, more than a measured camera's; the steps near
    /// powers of 1.6 this suite once used read 1.53, the curve rippling; "within a level" is judged
    /// on measured cameras by Tests/Calibration/bracket.py). A power law through the same range
    /// misses by more than 3, so the measure tells a good curve from a poor one. Caught: the
    /// exposures taken in another order than the readings, knots too few or too smooth for the
    /// toe, the levels in a flat toe counted as much as the rest, a curve each for a camera with
    /// one.
    @Test func theCurveIsMeasuredOverTheLevelsRead() throws {
        let recovery = try ResponseRecovery(readings: readings(Self.factors), exposures: Self.factors)
        #expect(recovery.unusedExposures.isEmpty)
        #expect(recovery.sharedByChannels)
        #expect(recovery.ladderRatio == nil)
        #expect(recovery.residual < 0.02, "residual \(recovery.residual)")
        #expect(255 * recovery.range.lowerBound < 10 && 255 * recovery.range.upperBound > 235, "\(recovery.range)")
        let worst = Self.worstLevelError(recovery.curve)
        #expect(worst <= 1, "worst \(worst) levels")
        let straight = try ToneCurve.Channel(points: [[10.0 / 255, pow(10.0 / 255, 1.9)], [1, 1]])
        #expect(Self.worstLevelError(ToneCurve(red: straight, green: straight, blue: straight)) > 3)
    }

    /// Exposures close to powers of one ratio are named by it, for the warning that the curve is
    /// free to ripple with that step; steps off any ladder are not. Caught: a ladder missed (the
    /// warning never given), one named by a finer step of its own (2 as 1.41), near powers taken
    /// for no ladder (the steps this suite once used, all near powers of 1.6), and the steps
    /// docs/calibration.md gives taken for a ladder, the edge of the ratios scanned taken for a
    /// ladder's step. And the reason: on powers of 2 the curve measured ripples past a level
    /// (1.43), where the steps off any ladder stay within (0.67).
    @Test func exposuresOnALadderAreNamed() throws {
        let twos = (-6...2).map { pow(2.0, Double($0)) }
        #expect(try abs(#require(ResponseRecovery.ladder(twos)) - 2) < 0.01)
        #expect(try abs(#require(ResponseRecovery.ladder([1.0 / 16, 1.0 / 4, 1, 4])) - 4) < 0.04)
        let nearOnePointSix = [1, 1.0 / 64, 1.0 / 40, 1.0 / 16, 1.0 / 10, 1.0 / 4, 1 / 2.5, 1.6, 2.5, 4]
        #expect(try abs(#require(ResponseRecovery.ladder(nearOnePointSix)) - 1.59) < 0.02)
        #expect(ResponseRecovery.ladder(Self.factors) == nil)
        // One exposure, or two too close for any step scanned to repeat: no ladder to name (the
        // widest step scanned, 8, was named when its edge counted as a peak).
        #expect(ResponseRecovery.ladder([1]) == nil)
        #expect(ResponseRecovery.ladder([1, 1.2]) == nil)
        #expect(try abs(#require(ResponseRecovery.ladder([1, 16])) - 4) < 0.04)
        let rippled = try ResponseRecovery(readings: readings(twos), exposures: twos)
        #expect(rippled.ladderRatio.map { abs($0 - 2) < 0.01 } == true)
        #expect(Self.worstLevelError(rippled.curve) > 1, "worst \(Self.worstLevelError(rippled.curve)) levels")
    }

    /// A camera whose blue has a curve of its own (a power 1/1.5 where red and green have 1/1.9)
    /// gets a curve for each channel, each within 1.25 levels. Caught: one curve forced on the
    /// three channels (no rising curve then fits red and blue at once: refused), and a curve each
    /// chosen for a camera with one (the test above).
    @Test func channelsWithCurvesOfTheirOwnAreMeasuredEach() throws {
        let exponents = SIMD3(1.9, 1.9, 1.5)
        let recovery = try ResponseRecovery(readings: readings(Self.factors, exponents: exponents), exposures: Self.factors)
        #expect(!recovery.sharedByChannels)
        let worst = Self.worstLevelError(recovery.curve, exponents: exponents)
        #expect(worst <= 1.25, "worst \(worst) levels")
    }

    /// A channel with no level (blue with no light at any exposure, on a camera with no pedestal:
    /// below level 1 in every patch) cannot have a curve of its own measured, but red and green
    /// still measure the one curve the three share: within a level, as above. Caught: the
    /// bracket refused ("the exposures all read the same levels") because the fit of a curve each,
    /// tried beside the shared one, had nothing to pin blue's.
    @Test func aChannelWithNothingToSayLeavesTheSharedCurve() throws {
        let dark = readings(Self.factors, gains: SIMD3(1.15, 1, 0), pedestal: 0)
        let recovery = try ResponseRecovery(readings: dark, exposures: Self.factors)
        #expect(recovery.sharedByChannels)
        let worst = Self.worstLevelError(recovery.curve, pedestal: 0)
        #expect(worst <= 1, "worst \(worst) levels")
    }

    /// A channel with no light in it on a camera with a pedestal reads the pedestal (5 levels) in
    /// every patch at every exposure: left out, red and green measure the shared curve within a
    /// level. Caught: those levels kept, they say the curve is flat at 5 while the exposure
    /// changes 256 times, and the curve measured falls 97 % up to level 9 (refused).
    @Test func aChannelOnItsPedestalIsLeftOut() throws {
        let recovery = try ResponseRecovery(readings: readings(Self.factors, gains: SIMD3(1.15, 1, 0)), exposures: Self.factors)
        #expect(recovery.sharedByChannels)
        let worst = Self.worstLevelError(recovery.curve)
        #expect(worst <= 1, "worst \(worst) levels")
    }

    /// Exposures given in the reverse of the readings' order say the light falls as the exposure
    /// rises: refused, naming a channel, rather than made into a curve.
    @Test func exposuresInTheWrongOrderAreRefused() {
        #expect {
            try ResponseRecovery(readings: readings(Self.factors), exposures: Self.factors.reversed())
        } throws: { error in
            guard case .notRising = error as? ResponseRecoveryError else { return false }
            return true
        }
    }

    /// One exposure, or two the same, cannot measure a curve; an exposure with nothing between
    /// levels 1 and 250 (here no pixel at all) is left out and said, the rest measured.
    @Test func tooFewExposuresAreRefusedAndAnEmptyOneIsLeftOut() throws {
        let chart = readings([1])[0]
        #expect(throws: ResponseRecoveryError.tooFewExposures(1)) { try ResponseRecovery(readings: [chart], exposures: [1]) }
        #expect(throws: ResponseRecoveryError.sameExposure) { try ResponseRecovery(readings: [chart, chart], exposures: [1, 1]) }
        let empty = [PatchStatistics](repeating: PatchStatistics(), count: ChartReference.patchCount)
        #expect(throws: ResponseRecoveryError.tooFewExposures(1)) {
            try ResponseRecovery(readings: [chart, empty], exposures: [1, 2])
        }
        var withEmpty = readings(Self.factors)
        withEmpty.insert(empty, at: 3)
        let recovery = try ResponseRecovery(readings: withEmpty, exposures: Array(Self.factors[..<3]) + [1.0 / 32] + Self.factors[3...])
        #expect(recovery.unusedExposures == [3])
        #expect(Self.worstLevelError(recovery.curve) <= 1)
    }

    /// The worst distance, in levels, between each code of 10...225 and the code the simulated
    /// camera gives for the linear value `curve` finds for it, each channel scaled to the truth by
    /// the mean of ln linear (a response is known only up to the exposure's scale).
    static func worstLevelError(
        _ curve: ToneCurve, exponents: SIMD3<Double> = SIMD3(repeating: 1.9), pedestal: Double = SimulatedCamera().pedestal
    ) -> Double {
        let codes = (10...225).map { Double($0) / 255 }
        var worst = 0.0
        for (c, channel) in [curve.red, curve.green, curve.blue].enumerated() {
            let truth = codes.map { pow(($0 - pedestal) / (1 - pedestal), exponents[c]) }
            let scale = exp(zip(codes, truth).map { log($1) - log(channel.linear($0)) }.reduce(0, +) / Double(codes.count))
            for code in codes {
                let back = pedestal + (1 - pedestal) * pow(channel.linear(code) * scale, 1 / exponents[c])
                worst = max(worst, 255 * abs(back - code))
            }
        }
        return worst
    }
}
