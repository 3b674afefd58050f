import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Patches clipped in part: a camera with a deep toe (an S-shaped curve, as phones' are) puts the
/// chart's black at 2 or 3 of 255, and its noise is cut off at 0.
@Suite struct CensoredLevelTests {
    let reference = ChartReference.colorChecker2014

    /// Camera value (0...1) of linear value x: x^a / (x^a + k^a), scaled to 1 at x = 1.
    static func sCurve(_ x: Double) -> Double {
        let (a, k) = (1.7, 0.3)
        return (1 + pow(k, a)) * pow(max(x, 0), a) / (pow(max(x, 0), a) + pow(k, a))
    }

    /// The camera's RGB of XYZ (Y = 100 white) before its curve: a 3 x 3 (white balanced), then
    /// `exposure`.
    static func linear(_ xyz: CIEXYZ, exposure: Double = 0.0085) -> SIMD3<Double> {
        let m = [[1.2, -0.2, -0.05], [-0.4, 1.35, 0.03], [0.02, -0.12, 1.1]]
        let v = [xyz.x, xyz.y, xyz.z]
        return SIMD3((0..<3).map { c in max(0, (0..<3).reduce(0) { $0 + m[c][$1] * v[$1] }) * exposure })
    }

    /// 400 pixels of each patch, Gaussian noise of sd 1.5 levels, clamped to 0...255.
    static func readings(_ lab: [CIELab], seed: UInt64 = 3) -> [PatchStatistics] {
        var random = TestRandom(seed: seed)
        func gaussian() -> Double {
            let u = (Double(random.next() >> 11) + 0.5) / 9_007_199_254_740_992
            let v = Double(random.next() >> 11) / 9_007_199_254_740_992
            return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
        return lab.map { lab in
            let level = linear(CIEXYZ(lab, white: .d50)) * 255
            var statistics = PatchStatistics()
            for _ in 0..<400 {
                func value(_ c: Double) -> UInt8 { UInt8(min(255, max(0, (255 * sCurve(c / 255) + 1.5 * gaussian()).rounded()))) }
                statistics.merge(PatchStatistics(RGB8(r: value(level.x), g: value(level.y), b: value(level.z))))
            }
            return statistics
        }
    }

    /// The black, at 2 or 3 of 255 with part of its noise cut off at 0, is used (it was left out
    /// as clipped: more than 0.1 % of its values at 0), at the level its values say (within a
    /// fifth of a level of the camera's own). Caught: the black left out again, a level read
    /// wrongly from its values (the clamped mean's correction itself is checked below, on
    /// levels clipped more deeply).
    @Test func theBlackClippedInPartIsUsedAtTheLevelItsValuesSay() throws {
        let readings = Self.readings(reference.lab)
        let black = readings[23]
        #expect(black.mean.g > 1 && black.mean.g < 5, "black at \(black.mean.g)")
        #expect(black.clipped * 1000 > black.count * 3, "the black's noise is cut off at 0: \(black.clipped) values")
        let calibration = try Calibration(readings: readings, model: .linear)
        #expect(calibration.patches[23].excluded == nil, "\(calibration.patches[23].excluded ?? "")")
        // The level the camera's curve gives the black, before its noise.
        let truth = 255 * Self.sCurve(Self.linear(CIEXYZ(reference.lab[23], white: .d50)).y)
        let level = try #require(Calibration.levels(black)).y
        #expect(abs(level - truth) < 0.2, "read \(level), truth \(truth), clamped mean \(black.mean.g)")
    }

    /// A level read with its noise cut off at 0 (or 255), from the clamped values' mean and spread.
    @Test func aLevelClippedInPartIsReadAtTheLevelItsValuesSay() throws {
        var random = TestRandom(seed: 7)
        func gaussian() -> Double {
            let u = (Double(random.next() >> 11) + 0.5) / 9_007_199_254_740_992
            let v = Double(random.next() >> 11) / 9_007_199_254_740_992
            return (-2 * log(u)).squareRoot() * cos(2 * Double.pi * v)
        }
        for (truth, sd) in [(0.8, 1.5), (2.0, 1.5), (4.0, 2.0), (253.5, 1.5)] {
            let values = (0..<200_000).map { _ in min(255, max(0, truth + sd * gaussian())) }
            let mean = values.reduce(0, +) / Double(values.count)
            let spread = (values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)).squareRoot()
            let level = try #require(CensoredLevel.level(mean: mean, sd: spread))
            #expect(abs(level - truth) < 0.03, "\(truth): read \(level) (mean of the clamped values \(mean))")
            // The clamped mean itself is off by more: the test can tell a correction from none.
            if truth < 3 || truth > 252 { #expect(abs(mean - truth) > 0.05) }
        }
        // More than half the values at 0: nothing says where the level is.
        #expect(CensoredLevel.level(mean: 0.3, sd: 0.5) == nil)
        // Far from the bounds, the mean as it is.
        #expect(CensoredLevel.level(mean: 100, sd: 2) == 100)
    }
}
