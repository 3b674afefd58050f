import Eyedropper
import EyedropperCalibration
import Testing

#if canImport(Glibc)
    import Glibc
#endif

@Suite struct ToneCurveTests {
    /// Camera values of six neutrals through `encode`, and the curve fitted to them.
    private func curve(_ encode: (Double) -> Double) throws -> ToneCurve.Channel {
        let linear = [0.88, 0.58, 0.36, 0.19, 0.09, 0.03]
        return try ToneCurve.Channel(points: linear.reversed().map { [encode($0), $0] })
    }

    @Test func aPowerLawComesOutExactlyBetweenAndBeyondThePoints() throws {
        let channel = try curve { pow($0, 1 / 2.2) }
        for linear in stride(from: 0.001, through: 1.0, by: 0.013) {
            let back = channel.linear(pow(linear, 1 / 2.2))
            #expect(abs(back - linear) <= 1e-9 * max(linear, 1), "\(linear) came back as \(back)")
        }
        #expect(channel.linear(0) == 0)
    }

    /// A highlight shoulder: a power 1/1.9 that bends over above 0.8, as webcams' curves do. A
    /// single power or a log-log quadratic misses it by 4-6% at the top neutrals.
    @Test func aShoulderIsFollowedBetweenThePoints() throws {
        func encode(_ linear: Double) -> Double {
            let v = pow(linear, 1 / 1.9)
            return v < 0.8 ? v : 0.8 + 0.2 * tanh((v - 0.8) / 0.2)
        }
        let channel = try curve(encode)
        // Exact at the six points; between 0.58 and 0.88, where the shoulder bends, up to 1.9%.
        var worst = 0.0
        for linear in stride(from: 0.03, through: 0.88, by: 0.01) {
            worst = max(worst, abs(channel.linear(encode(linear)) / linear - 1))
        }
        #expect(worst < 0.02, "worst relative error \(worst)")
        // A single power law through the end points misses the shoulder: the test can tell.
        let straight = try ToneCurve.Channel(points: [[encode(0.03), 0.03], [encode(0.88), 0.88]])
        var straightWorst = 0.0
        for linear in stride(from: 0.03, through: 0.88, by: 0.01) {
            straightWorst = max(straightWorst, abs(straight.linear(encode(linear)) / linear - 1))
        }
        #expect(straightWorst > 0.03, "a power law's worst relative error \(straightWorst)")
    }

    @Test func pointsThatDoNotRiseAreRefused() {
        #expect(throws: ToneCurveError.notRising) { try ToneCurve.Channel(points: [[0.2, 0.1], [0.5, 0.05]]) }
        #expect(throws: ToneCurveError.flat) { try ToneCurve.Channel(points: [[0.2, 0.1], [0.2, 0.3]]) }
        #expect(throws: ToneCurveError.points) { try ToneCurve.Channel(points: [[0.2, 0.1]]) }
        #expect(throws: ToneCurveError.points) { try ToneCurve.Channel(points: [[0, 0.1], [0.5, 0.3]]) }
    }
}
