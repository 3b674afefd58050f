import Eyedropper

/// The small dense linear algebra the calibration needs: systems of at most 18 unknowns, solved a
/// few thousand times per calibration, and once a few times a bracket of exposures some 250
/// (`ResponseRecovery`); never per frame.
package enum LeastSquares {
    /// Solves the n x n system `a` x = `b` (a row-major) by Gaussian elimination with partial
    /// pivoting; nil when `a` is singular to working precision.
    static func solve(_ a: [Double], _ b: [Double]) -> [Double]? {
        let n = b.count
        precondition(a.count == n * n, "a \(a.count)-element matrix is not \(n) x \(n)")
        var a = a, b = b
        let scale = a.reduce(0) { max($0, abs($1)) }
        guard scale > 0, scale.isFinite else { return nil }
        for column in 0..<n {
            var pivot = column
            for row in column + 1..<n where abs(a[row * n + column]) > abs(a[pivot * n + column]) { pivot = row }
            guard abs(a[pivot * n + column]) > scale * 1e-14 else { return nil }
            if pivot != column {
                for k in 0..<n { a.swapAt(column * n + k, pivot * n + k) }
                b.swapAt(column, pivot)
            }
            for row in column + 1..<n {
                let factor = a[row * n + column] / a[column * n + column]
                guard factor != 0 else { continue }
                for k in column..<n { a[row * n + k] -= factor * a[column * n + k] }
                b[row] -= factor * b[column]
            }
        }
        var x = [Double](repeating: 0, count: n)
        for row in stride(from: n - 1, through: 0, by: -1) {
            var sum = b[row]
            for k in row + 1..<n { sum -= a[row * n + k] * x[k] }
            x[row] = sum / a[row * n + row]
        }
        return x.allSatisfy(\.isFinite) ? x : nil
    }

    /// The x minimising Σ wᵢ (rowᵢ · x - yᵢ)², by the normal equations; nil when the rows do not
    /// determine x.
    static func fit(rows: [[Double]], values: [Double], weights: [Double]) -> [Double]? {
        guard let n = rows.first?.count else { return nil }
        var normal = [Double](repeating: 0, count: n * n), right = [Double](repeating: 0, count: n)
        for (i, row) in rows.enumerated() {
            for j in 0..<n {
                right[j] += weights[i] * row[j] * values[i]
                for k in 0..<n { normal[j * n + k] += weights[i] * row[j] * row[k] }
            }
        }
        return solve(normal, right)
    }

    /// The m x n Jacobian (row-major) of `residuals` at `parameters`, whose residuals are `r`, by
    /// forward differences: one evaluation of every residual per parameter.
    package static func forwardDifferences(
        _ parameters: [Double], residuals r: [Double], into jacobian: inout [Double],
        of residuals: ([Double], inout [Double]) -> Void
    ) {
        let (m, n) = (r.count, parameters.count)
        var trial = r
        for j in 0..<n {
            var shifted = parameters
            let step = 1e-7 * max(abs(parameters[j]), 1)
            shifted[j] += step
            residuals(shifted, &trial)
            for i in 0..<m { jacobian[i * n + j] = (trial[i] - r[i]) / step }
        }
    }

    /// Levenberg-Marquardt: moves `parameters` to lower Σ rᵢ², where `residuals` writes the rᵢ
    /// for given parameters. `jacobian` writes their m x n Jacobian (row-major) at given parameters
    /// and residuals; without it, it is taken by forward differences. Returns the final cost.
    @discardableResult
    static func levenbergMarquardt(
        _ parameters: inout [Double], residualCount m: Int, iterations: Int,
        residuals: ([Double], inout [Double]) -> Void,
        jacobian writeJacobian: ((_ parameters: [Double], _ residuals: [Double], _ jacobian: inout [Double]) -> Void)? = nil
    ) -> Double {
        let n = parameters.count
        var r = [Double](repeating: 0, count: m), trial = r
        residuals(parameters, &r)
        var cost = r.reduce(0) { $0 + $1 * $1 }
        var jacobian = [Double](repeating: 0, count: m * n)  // m x n, row-major
        var lambda = 1e-3
        for _ in 0..<iterations {
            if let writeJacobian {
                writeJacobian(parameters, r, &jacobian)
            } else {
                forwardDifferences(parameters, residuals: r, into: &jacobian, of: residuals)
            }
            var normal = [Double](repeating: 0, count: n * n), gradient = [Double](repeating: 0, count: n)
            for i in 0..<m {
                for j in 0..<n {
                    let jij = jacobian[i * n + j]
                    gradient[j] -= jij * r[i]
                    for k in j..<n { normal[j * n + k] += jij * jacobian[i * n + k] }
                }
            }
            for j in 0..<n { for k in 0..<j { normal[j * n + k] = normal[k * n + j] } }
            var improved = false
            while lambda < 1e12 {
                var damped = normal
                for j in 0..<n { damped[j * n + j] += lambda * max(normal[j * n + j], 1e-12) }
                guard let step = solve(damped, gradient) else {
                    lambda *= 10
                    continue
                }
                let candidate = zip(parameters, step).map { $0 + $1 }
                residuals(candidate, &trial)
                let trialCost = trial.reduce(0) { $0 + $1 * $1 }
                if trialCost.isFinite, trialCost < cost {
                    let gain = cost - trialCost
                    parameters = candidate
                    swap(&r, &trial)
                    cost = trialCost
                    lambda = max(lambda / 3, 1e-12)
                    improved = gain > cost * 1e-12
                    break
                }
                lambda *= 4
            }
            if !improved { break }
        }
        return cost
    }
}
