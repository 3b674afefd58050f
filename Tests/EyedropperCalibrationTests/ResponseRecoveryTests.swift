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
    /// From 1/64 to 4 times the base, not all powers of one ratio.
    static let factors = [1, 1.0 / 64, 1.0 / 40, 1.0 / 16, 1.0 / 10, 1.0 / 4, 1 / 2.5, 1.6, 2.5, 4]

    /// The chart at each factor of an exposure that puts its white at about 166 of 255, each
    /// exposure with noise of its own.
    func readings(_ factors: [Double]) -> [[PatchStatistics]] {
        factors.enumerated().map { index, factor in
            var camera = SimulatedCamera(seed: UInt64(index + 1))
            camera.exposure = 0.35 * factor
            return camera.readings(reference.lab)
        }
    }

    /// Every linear value the measured curve gives codes 10 to 225, scaled per channel to the
    /// truth, encodes back within 1.25 levels of its code (this camera's blue reads no higher than
    /// 228 short of clipping at any of these exposures: above, its curve is extrapolated; and its
    /// noise, ±3 levels, is more than a measured camera's: "within a level" is judged on those,
    /// by Tests/Calibration/bracket.py; here it reads 1.08). A power
    /// law through the same range misses by more than 3, so the measure tells a good curve from a
    /// poor one. Caught: the
    /// exposures taken in another order than the readings, knots too few or too smooth for the
    /// toe, the levels in a flat toe counted as much as the rest.
    @Test func theCurveIsMeasuredOverTheLevelsRead() throws {
        let recovery = try ResponseRecovery(readings: readings(Self.factors), exposures: Self.factors)
        #expect(recovery.unusedExposures.isEmpty)
        #expect(recovery.residual < 0.02, "residual \(recovery.residual)")
        #expect(255 * recovery.range.lowerBound < 10 && 255 * recovery.range.upperBound > 235, "\(recovery.range)")
        let worst = Self.worstLevelError(recovery.curve)
        #expect(worst <= 1.25, "worst \(worst) levels")
        let straight = try ToneCurve.Channel(points: [[10.0 / 255, pow(10.0 / 255, 1.9)], [1, 1]])
        #expect(Self.worstLevelError(ToneCurve(red: straight, green: straight, blue: straight)) > 3)
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
        #expect(Self.worstLevelError(recovery.curve) <= 1.25)
    }

    /// The worst distance, in levels, between each code of 10...225 and the code the simulated
    /// camera gives for the linear value `curve` finds for it, each channel scaled to the truth by
    /// the mean of ln linear (a response is known only up to the exposure's scale).
    static func worstLevelError(_ curve: ToneCurve) -> Double {
        let codes = (10...225).map { Double($0) / 255 }
        let truth = codes.map { pow(($0 - 0.02) / 0.98, 1.9) }
        var worst = 0.0
        for channel in [curve.red, curve.green, curve.blue] {
            let scale = exp(zip(codes, truth).map { log($1) - log(channel.linear($0)) }.reduce(0, +) / Double(codes.count))
            for code in codes {
                let back = 0.02 + 0.98 * pow(channel.linear(code) * scale, 1 / 1.9)
                worst = max(worst, 255 * abs(back - code))
            }
        }
        return worst
    }
}
