import Eyedropper
import EyedropperCalibration
import EyedropperTestSupport
import Testing

/// The Jacobian the correction's fit takes by the chain rule, against forward differences in the
/// correction's own numbers (how it was taken before, one evaluation per number).
@Suite struct CorrectionResidualsTests {
    /// At random corrections near the identity of linear sRGB to XYZ, random camera values and
    /// weights, with the chart's 24 references as targets, every entry agrees with forward
    /// differences within 1e-4 of the largest entry of its row. Caught: a derivative put in another
    /// row or term's column (the rows are 3 x termCount numbers row by row), the weight left out or
    /// applied twice, the derivative in one XYZ channel used for another.
    @Test(arguments: CorrectionModel.allCases)
    func theJacobianIsTheForwardDifferencesOfTheResiduals(model: CorrectionModel) {
        var random = TestRandom(seed: 7)
        let targets = ChartReference.colorChecker2014.lab
        for _ in 0..<5 {
            let linear = targets.indices.map { _ in
                SIMD3((0..<3).map { _ in Double.random(in: 0.02...1, using: &random) })
            }
            let weights = targets.indices.map { _ in Double.random(in: 0.5...2, using: &random) }
            let n = model.termCount
            // sRGB's linear-to-XYZ (D65) rows times 100, each number moved up to 20 %; 0 for the other terms.
            let srgb: [[Double]] = [[41.24, 35.76, 18.05], [21.26, 71.52, 7.22], [1.93, 11.92, 95.05]]
            let parameters = (0..<3).flatMap { row in
                (0..<n).map { term in (term < 3 ? srgb[row][term] : 2) * Double.random(in: 0.8...1.2, using: &random) }
            }
            let residuals = CorrectionResiduals(model: model, linear: linear, targets: targets)
            var r = [Double](repeating: 0, count: targets.count)
            residuals.write(parameters, weights: weights, into: &r)
            var chain = [Double](repeating: .nan, count: targets.count * 3 * n), differences = chain
            residuals.jacobian(parameters, residuals: r, weights: weights, into: &chain)
            LeastSquares.forwardDifferences(parameters, residuals: r, into: &differences) { p, out in
                residuals.write(p, weights: weights, into: &out)
            }
            for i in targets.indices {
                let row = (0..<3 * n).map { i * 3 * n + $0 }
                let scale = row.map { abs(differences[$0]) }.max()!
                #expect(scale > 0)
                for index in row {
                    #expect(abs(chain[index] - differences[index]) <= 1e-4 * scale, "patch \(i + 1), number \(index % (3 * n))")
                }
            }
        }
    }
}
