import Eyedropper

/// A camera calibrated from one reading of a chart: the tone curve and correction fitted to the
/// usable patches, and how well they do, on the patches fitted and on each patch left out.
///
/// The fit: the tone curve (`ToneCurve`), through the usable neutral patches or one shape through
/// every usable patch (`CurveSource`; what each should read linear is refined with the best 3 x 3
/// correction, see `curveRounds`), then for each model a
/// least-squares start in XYZ (weighted by 1 / Y, so dark patches count), refined by
/// Levenberg-Marquardt to the least mean CIEDE2000 (iteratively reweighted: a sum of squares
/// weighted by 1 / ΔE is the sum of ΔE). The curve, and the model when not given, are chosen by
/// the mean ΔE of leave-one-out: each usable patch predicted by the curve and correction fitted
/// without it.
public struct Calibration: Sendable {
    /// One patch: what the camera read and what the calibration makes of it.
    public struct Patch: Sendable {
        /// 1...24.
        public let number: Int
        public let reading: PatchStatistics
        /// Why the patch was left out of the fit (clipped, not uniform); nil when it was used.
        public let excluded: String?
        /// The reference colour.
        public let reference: CIELab
        /// The corrected colour of the reading's mean.
        public let corrected: CIELab
        /// CIEDE2000 between reference and corrected, with the correction fitted to every usable patch.
        public let deltaE: Double
        /// CIEDE2000 of the patch predicted by a fit without it; nil for a patch not used.
        public let deltaELeaveOneOut: Double?
    }

    /// Mean, median and largest of a set of ΔE.
    public struct Summary: Hashable, Sendable, Codable {
        public let mean: Double
        public let median: Double
        public let max: Double

        init(_ values: [Double]) {
            let sorted = values.sorted()
            let count = sorted.count
            mean = sorted.reduce(0, +) / Double(Swift.max(count, 1))
            median = count == 0 ? 0 : (count % 2 == 1 ? sorted[count / 2] : (sorted[count / 2 - 1] + sorted[count / 2]) / 2)
            max = sorted.last ?? 0
        }
    }

    /// One model tried, with one curve: its errors on the patches fitted and left out.
    public struct Candidate: Hashable, Sendable, Codable {
        public let model: CorrectionModel
        /// nil in a profile written before the curve was chosen (it was then `.neutrals`).
        public let curve: CurveSource?
        public let fitted: Summary
        public let leaveOneOut: Summary
    }

    public let reference: ChartReference
    /// How the light fell across the chart; the curve and correction are for the light at its centre.
    public let light: ChartLight
    public let toneCurve: ToneCurve
    /// How `toneCurve` was found.
    public let curveSource: CurveSource
    public let correction: ColorCorrection
    /// Patch 1 first.
    public let patches: [Patch]
    /// Over the patches used, with the correction fitted to all of them.
    public let fitted: Summary
    /// Over the patches used, each predicted by a fit without it.
    public let leaveOneOut: Summary
    /// Every model tried with every curve, in `CurveSource.allCases` then `CorrectionModel.allCases`
    /// order.
    public let candidates: [Candidate]

    /// The fewest usable patches a calibration takes.
    public static let minimumPatches = 8

    /// Calibrates from the 24 patch readings (patch 1 first): with `model`, or the model whose
    /// leave-one-out error is least when it is nil. `hidden`: patches (0-based) not seen, with
    /// why (covered, beyond the frame), left out of the fit as a clipped patch is.
    /// `measuredCurve`: the camera's tone curve measured from several exposures
    /// (`ResponseRecovery`), used as it is; without it, the curve found as `curve` asks
    /// (`.neutrals` or `.patches`), or by whichever has the least leave-one-out error when it is nil.
    public init(
        readings: [PatchStatistics], reference: ChartReference = .colorChecker2014, model: CorrectionModel? = nil,
        hidden: [Int: String] = [:], curve: CurveSource? = nil, measuredCurve: ToneCurve? = nil
    ) throws(CalibrationError) {
        precondition(curve != .measured, "a measured curve is given as measuredCurve")
        precondition(readings.count == ChartReference.patchCount, "\(readings.count) readings for a 24-patch chart")
        let excluded = Self.screen(readings).merging(hidden) { _, hidden in hidden }
        let used = (0..<readings.count).filter { excluded[$0] == nil }
        guard used.count >= Self.minimumPatches else { throw .tooFewPatches(used: used.count, excluded: excluded) }
        let models = model.map { [$0] } ?? CorrectionModel.allCases.filter { used.count - 1 >= 2 * $0.termCount }
        if let model, used.count - 1 < 2 * model.termCount {
            throw .tooFewPatchesForModel(model, used: used.count, needed: 2 * model.termCount + 1)
        }
        var best: (candidate: Candidate, fit: FitProblem.Fit, loo: [Int: Double], problem: FitProblem)?
        var candidates: [Candidate] = []
        /// Every model with `curve`, each judged by leave-one-out.
        func tryModels(_ curve: CurveSource) throws(CalibrationError) {
            let problem = FitProblem(readings: readings, reference: reference, curveSource: curve, measuredCurve: measuredCurve)
            // The light and the curve fitted to every usable patch (key nil) and without each, made
            // once for every model.
            var bases: [Int?: FitProblem.Base] = [:]
            func base(without patch: Int?) throws(CalibrationError) -> FitProblem.Base {
                if let base = bases[patch] { return base }
                let base = try problem.base(using: used.filter { $0 != patch })
                bases[patch] = base
                return base
            }
            for model in models {
                let fit = try problem.fit(model, try base(without: nil))
                let fittedErrors = used.map { problem.deltaE(patch: $0, fit) }
                var loo: [Int: Double] = [:]
                for patch in used {
                    loo[patch] = problem.deltaE(patch: patch, try problem.fit(model, try base(without: patch)))
                }
                let candidate = Candidate(
                    model: model, curve: curve, fitted: Summary(fittedErrors), leaveOneOut: Summary(used.map { loo[$0]! }))
                candidates.append(candidate)
                if best == nil || candidate.leaveOneOut.mean < best!.candidate.leaveOneOut.mean {
                    best = (candidate, fit, loo, problem)
                }
            }
        }
        if measuredCurve != nil {
            try tryModels(.measured)
        } else if let curve {
            try tryModels(curve)
        } else {
            try tryModels(.neutrals)
            // A shape through every patch is a second guess, never the reason a calibration fails.
            let (kept, keptBest) = (candidates.count, best)
            do {
                try tryModels(.patches)
            } catch {
                candidates.removeSubrange(kept...)
                best = keptBest
            }
        }
        let chosen = best!
        let problem = chosen.problem
        self.reference = reference
        light = chosen.fit.light
        toneCurve = chosen.fit.curve
        curveSource = chosen.problem.curveSource
        correction = chosen.fit.correction
        patches = readings.indices.map { index in
            Patch(
                number: index + 1, reading: readings[index], excluded: excluded[index], reference: reference.lab[index],
                corrected: problem.lab(patch: index, chosen.fit), deltaE: problem.deltaE(patch: index, chosen.fit),
                deltaELeaveOneOut: chosen.loo[index])
        }
        fitted = chosen.candidate.fitted
        leaveOneOut = chosen.candidate.leaveOneOut
        self.candidates = candidates
    }

    /// The model chosen.
    public var model: CorrectionModel { correction.model }

    /// Patches that cannot be trusted, with the reason: half or more of a channel's values clipped
    /// (the true level lies beyond, and no spread says how far: `CensoredLevel`; a patch clipped
    /// less is used at the level its values say), or a spread that says the window is not on one
    /// uniform patch (a corner off the chart, glare, an edge): a largest channel standard
    /// deviation above 3 times the median patch's plus 2 levels (the median of the patches read).
    static func screen(_ readings: [PatchStatistics]) -> [Int: String] {
        func spread(_ statistics: PatchStatistics) -> Double {
            let sd = statistics.standardDeviation
            return max(sd.r, sd.g, sd.b)
        }
        let spreads = readings.filter { $0.count > 0 }.map(spread).sorted()
        let median = spreads.isEmpty ? 0 : (spreads[(spreads.count - 1) / 2] + spreads[spreads.count / 2]) / 2
        let limit = 3 * median + 2
        var excluded: [Int: String] = [:]
        for (index, reading) in readings.enumerated() {
            if reading.count == 0 {
                excluded[index] = "no pixels read"
            } else if reading.clipped > 0, levels(reading) == nil {
                excluded[index] =
                    "clipped: \(reading.clipped) of its \(reading.count * 3) channel values are 0 or 255 (lower the exposure or the light)"
            } else if spread(reading) > limit {
                excluded[index] =
                    "not uniform: sd \(DecimalText.fixed(spread(reading), 1)) levels against \(DecimalText.fixed(median, 1)) for the median patch (glare, or the window is off the patch: check the corners)"
            }
        }
        return excluded
    }

    /// The patch's level in each channel, 0...255: its mean, or where its values are clipped in
    /// part, the level their mean and spread say (`CensoredLevel`); nil when a channel has half or
    /// more of its values clipped.
    package static func levels(_ reading: PatchStatistics) -> SIMD3<Double>? {
        let (mean, sd) = (reading.mean, reading.standardDeviation)
        guard reading.clipped > 0 else { return SIMD3(mean.r, mean.g, mean.b) }
        guard let r = CensoredLevel.level(mean: mean.r, sd: sd.r), let g = CensoredLevel.level(mean: mean.g, sd: sd.g),
            let b = CensoredLevel.level(mean: mean.b, sd: sd.b)
        else { return nil }
        return SIMD3(r, g, b)
    }
}

/// The data of one calibration, shared by every fit of it.
private struct FitProblem {
    /// One fit: the light across the chart, the tone curve and the correction.
    struct Fit {
        let light: ChartLight
        let curve: ToneCurve
        let correction: ColorCorrection
    }

    /// Camera values 0...1: each patch's level (`Calibration.levels`), its mean where it can
    /// have none.
    let camera: [SIMD3<Double>]
    let targetLab: [CIELab]
    let targetXYZ: [CIEXYZ]
    /// How the curve is found.
    let curveSource: CurveSource
    /// A tone curve measured elsewhere, used instead of fitting one (`curve` is then `.measured`).
    let measuredCurve: ToneCurve?

    init(readings: [PatchStatistics], reference: ChartReference, curveSource: CurveSource, measuredCurve: ToneCurve?) {
        precondition((curveSource == .measured) == (measuredCurve != nil))
        camera = readings.map {
            let m = $0.mean
            return (Calibration.levels($0) ?? SIMD3(m.r, m.g, m.b)) / 255
        }
        targetLab = reference.lab
        targetXYZ = reference.lab.map { CIEXYZ($0, white: .d50) }
        self.curveSource = curveSource
        self.measuredCurve = measuredCurve
    }

    func lab(patch: Int, _ fit: Fit) -> CIELab {
        fit.correction.xyz(linear(patch, curve: fit.curve, light: fit.light)).lab(white: .d50)
    }

    func deltaE(patch: Int, _ fit: Fit) -> Double {
        lab(patch: patch, fit).deltaE2000(targetLab[patch])
    }

    /// Rounds of refitting the tone curve to what the 3 x 3 correction says the patches read.
    static let curveRounds = 3
    /// Rounds at most of re-estimating the light across the chart (each starts from the last).
    static let lightRounds = 6

    /// The tone curve through the neutrals' camera values and `linear`.
    private func curve(_ neutrals: [Int], _ linear: [SIMD3<Double>]) throws(CalibrationError) -> ToneCurve {
        do {
            return try ToneCurve.fit(camera: neutrals.map { camera[$0] }, linear: linear)
        } catch {
            throw .toneCurve(error)
        }
    }

    /// The patch's linear camera RGB as it would read under the light at the chart's centre.
    func linear(_ patch: Int, curve: ToneCurve, light: ChartLight) -> SIMD3<Double> {
        curve.linear(camera[patch]) / light.gain(patch: patch)
    }

    /// The tone curve through the neutrals of `patches`, under `light`, and the best 3 x 3 from its
    /// linear RGB to XYZ (nil when the patches do not determine one).
    ///
    /// What should each neutral read, linear, in each channel? Not Y in all three: the neutrals
    /// are a little tinted (white 9.5 has b* 2.9), and the camera sees the tint through its own
    /// primaries. Start from their linear sRGB, then take what the best 3 x 3 from the curve's
    /// linear RGB to XYZ says the camera reads for them (M⁻¹ XYZ), and fit the curve again: a few
    /// rounds settle it. Each neutral's light scales what it reads. With `.patches`, every patch's
    /// M⁻¹ XYZ is a point of the curve after the first round (`ToneCurve.shared`), each channel
    /// weighted by its share of the patch's largest squared: where M⁻¹ XYZ is a small difference of
    /// large terms, a 3 x 3's misfit of the sensor is a large part of it. A measured curve is taken
    /// as it is, and only the 3 x 3 is fitted.
    private func curveAndMatrix(_ patches: [Int], light: ChartLight) throws(CalibrationError) -> (ToneCurve, Matrix3?) {
        let neutrals = patches.filter { ChartReference.neutralIndices.contains($0) }
        var curve: ToneCurve
        if let measuredCurve {
            curve = measuredCurve
        } else {
            curve = try self.curve(neutrals, neutrals.map { SRGB.fromXYZD50 * targetXYZ[$0].vector * light.gain(patch: $0) })
        }
        var matrix: Matrix3?
        for round in 0...Self.curveRounds {
            let linear = patches.map { self.linear($0, curve: curve, light: light) }
            var rows: [SIMD3<Double>] = []
            for channel in 0..<3 {
                guard
                    let row = LeastSquares.fit(
                        rows: linear.map { [$0.x, $0.y, $0.z] }, values: patches.map { targetXYZ[$0].vector[channel] },
                        weights: patches.map { 1 / max(targetXYZ[$0].y, 1) })
                else { break }
                rows.append(SIMD3(row[0], row[1], row[2]))
            }
            guard rows.count == 3 else { return (curve, nil) }
            matrix = Matrix3(rows[0], rows[1], rows[2])
            guard round < Self.curveRounds, measuredCurve == nil else { break }
            let inverse = matrix!.inverse
            if curveSource == .patches {
                var points: [(z: Double, channel: Int, linear: Double, weight: Double)] = []
                for patch in patches {
                    let target = inverse * targetXYZ[patch].vector * light.gain(patch: patch)
                    for c in 0..<3 where target[c] > 0 {
                        let share = target[c] / target.max()
                        points.append((camera[patch][c], c, target[c], share * share))
                    }
                }
                guard let next = ToneCurve.shared(points) else { break }
                curve = next
                continue
            }
            let targets = neutrals.map { inverse * targetXYZ[$0].vector * light.gain(patch: $0) }
            guard targets.allSatisfy({ all($0 .> 0) }), let next = try? self.curve(neutrals, targets) else { break }
            curve = next
        }
        return (curve, matrix)
    }

    /// The light across the chart, as the patches of `patches` show it: fit the curve and 3 x 3
    /// under the light so far, take how much brighter (Y) each colour patch reads than its
    /// reference, and fit a plane through those ratios over the chart's columns and rows (weighted
    /// by Y: dark patches are noisy). The neutrals are left out of the plane: the curve passes
    /// through them, so they read what the light so far says whatever the light is.
    func light(using patches: [Int]) throws(CalibrationError) -> ChartLight {
        var light = ChartLight.even
        let colours = patches.filter { !ChartReference.neutralIndices.contains($0) }
        guard colours.count >= 6 else { return light }
        for _ in 0..<Self.lightRounds {
            guard case (let curve, let matrix?) = try curveAndMatrix(patches, light: light) else { break }
            let ratios = colours.map { patch in
                light.gain(patch: patch) * (matrix * self.linear(patch, curve: curve, light: light)).y / targetXYZ[patch].y
            }
            guard
                let plane = LeastSquares.fit(
                    rows: colours.map { [1, ChartLight.column($0), ChartLight.row($0)] }, values: ratios,
                    weights: colours.map { targetXYZ[$0].y }),
                plane[0] > 0
            else { break }
            let next = ChartLight(perColumn: plane[1] / plane[0], perRow: plane[2] / plane[0])
            // Settled: a ten-thousandth of the light a column or a row is far below what noise moves.
            let settled = abs(next.perColumn - light.perColumn) < 1e-4 && abs(next.perRow - light.perRow) < 1e-4
            light = next
            if settled { break }
        }
        return light
    }

    /// The patches of a fit with the light and the tone curve fitted to them: what every model's
    /// fit to them starts from.
    struct Base {
        let patches: [Int]
        let light: ChartLight
        let curve: ToneCurve
    }

    /// The light and the tone curve fitted to `patches`.
    func base(using patches: [Int]) throws(CalibrationError) -> Base {
        let light = try self.light(using: patches)
        return Base(patches: patches, light: light, curve: try curveAndMatrix(patches, light: light).0)
    }

    /// The correction of `model` fitted to the patches of `base`, under its light and through its curve.
    func fit(_ model: CorrectionModel, _ base: Base) throws(CalibrationError) -> Fit {
        let (patches, light, curve) = (base.patches, base.light, base.curve)
        let n = model.termCount
        let residuals = CorrectionResiduals(
            model: model, linear: patches.map { self.linear($0, curve: curve, light: light) },
            targets: patches.map { targetLab[$0] })
        // The start: each row of M by least squares in XYZ, weighted by 1 / Y.
        let rows = residuals.terms.map { t in (0..<n).map { t[$0] } }
        let weights = patches.map { 1 / max(targetXYZ[$0].y, 1) }
        var flat: [Double] = []
        for channel in 0..<3 {
            let values = patches.map { index -> Double in
                let xyz = targetXYZ[index]
                return channel == 0 ? xyz.x : (channel == 1 ? xyz.y : xyz.z)
            }
            guard let row = LeastSquares.fit(rows: rows, values: values, weights: weights) else { throw .singular(model) }
            flat += row
        }
        // Then the least mean CIEDE2000.
        let ones = [Double](repeating: 1, count: patches.count)
        func meanError(_ p: [Double]) -> Double {
            var out = ones
            residuals.write(p, weights: ones, into: &out)
            return out.reduce(0, +) / Double(out.count)
        }
        var best = (parameters: flat, mean: meanError(flat))
        var parameters = flat
        var rootWeights = ones
        for round in 0..<6 {
            LeastSquares.levenbergMarquardt(
                &parameters, residualCount: patches.count, iterations: round == 0 ? 40 : 15,
                residuals: { p, out in residuals.write(p, weights: rootWeights, into: &out) },
                jacobian: { p, r, out in residuals.jacobian(p, residuals: r, weights: rootWeights, into: &out) })
            let mean = meanError(parameters)
            if mean < best.mean { best = (parameters, mean) }
            // Reweight: Σ (ΔE / √ΔE₀)² ≈ Σ ΔE near the current ΔE₀.
            var current = ones
            residuals.write(parameters, weights: ones, into: &current)
            rootWeights = current.map { 1 / max($0, 0.02).squareRoot() }
        }
        return Fit(light: light, curve: curve, correction: ColorCorrection(model: model, flat: best.parameters))
    }
}

/// Why a calibration could not be made.
public enum CalibrationError: Error, Hashable, Sendable, CustomStringConvertible {
    case tooFewPatches(used: Int, excluded: [Int: String])
    case tooFewPatchesForModel(CorrectionModel, used: Int, needed: Int)
    case toneCurve(ToneCurveError)
    case singular(CorrectionModel)

    public var description: String {
        switch self {
        case .tooFewPatches(let used, let excluded):
            "only \(used) of 24 patches are usable (at least \(Calibration.minimumPatches) are needed): "
                + excluded.keys.sorted().map { "patch \($0 + 1) \(excluded[$0]!)" }.joined(separator: "; ")
        case .tooFewPatchesForModel(let model, let used, let needed):
            "\(model.rawValue) needs at least \(needed) usable patches, and \(used) are: choose a smaller model or --model auto"
        case .toneCurve(let error):
            "no tone curve could be fitted to the neutral patches 19-24: \(error.description)"
        case .singular(let model):
            "the patches do not determine a \(model.rawValue) correction: their colours are too alike (is the chart in the frame?)"
        }
    }
}

extension CalibrationError: ExitStatusError {
    public var exitStatus: Int32 { 65 }
}

/// What the correction is fitted to: each patch's CIEDE2000 from its reference, times a weight,
/// for a correction of `model` given as its `3 * termCount` numbers row by row.
package struct CorrectionResiduals {
    let n: Int
    let terms: [SIMD8<Double>]
    let targets: [CIELab]

    /// `linear`: each patch's linear camera RGB; `targets`: its reference.
    package init(model: CorrectionModel, linear: [SIMD3<Double>], targets: [CIELab]) {
        precondition(linear.count == targets.count)
        n = model.termCount
        terms = linear.map(model.terms)
        self.targets = targets
    }

    private func rows(_ p: [Double]) -> (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>) {
        var r0 = SIMD8<Double>(), r1 = SIMD8<Double>(), r2 = SIMD8<Double>()
        for k in 0..<n {
            r0[k] = p[k]
            r1[k] = p[n + k]
            r2[k] = p[2 * n + k]
        }
        return (r0, r1, r2)
    }

    /// wᵢ ΔEᵢ for each patch.
    package func write(_ p: [Double], weights: [Double], into out: inout [Double]) {
        let (r0, r1, r2) = rows(p)
        for i in terms.indices {
            let t = terms[i]
            let lab = CIEXYZ(x: (r0 * t).sum(), y: (r1 * t).sum(), z: (r2 * t).sum()).lab(white: .d50)
            out[i] = lab.deltaE2000(targets[i]) * weights[i]
        }
    }

    /// The Jacobian of `write` at `p`, whose values are `residuals` (row-major, a row a patch), by the
    /// chain rule. A patch's ΔE depends on the numbers only through its X, Y and Z, each a row
    /// times the patch's terms, so ∂rᵢ/∂(row c, term k) = wᵢ ∂ΔEᵢ/∂XYZ_c · tᵢₖ. The three
    /// derivatives in XYZ are forward differences: three evaluations of ΔE a patch, where
    /// differences in the numbers themselves take one for each of the 9 to 18.
    package func jacobian(_ p: [Double], residuals: [Double], weights: [Double], into jacobian: inout [Double]) {
        let (r0, r1, r2) = rows(p)
        let columns = 3 * n
        for i in terms.indices {
            let t = terms[i]
            let xyz = SIMD3((r0 * t).sum(), (r1 * t).sum(), (r2 * t).sum())
            let base = residuals[i] / weights[i]
            for c in 0..<3 {
                var shifted = xyz
                let step = 1e-7 * max(abs(xyz[c]), 1)
                shifted[c] += step
                let lab = CIEXYZ(x: shifted.x, y: shifted.y, z: shifted.z).lab(white: .d50)
                let derivative = weights[i] * (lab.deltaE2000(targets[i]) - base) / step
                for k in 0..<n { jacobian[i * columns + c * n + k] = derivative * t[k] }
            }
        }
    }
}
