import Eyedropper

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A camera's tone curve measured from the chart read at several known exposures, instead of
/// fitted through its six neutral patches: each patch's channel seen at several exposures of the
/// same light traces the curve over its whole range, between and below the neutrals, with no model
/// of its shape beyond smoothness.
///
/// Debevec and Malik (1997): every level z of patch p, channel c, at exposure k satisfies
/// g_c(z) = ln E_pc + ln t_k, g_c the log of the inverse response, E_pc what the patch sends the
/// channel, t_k the exposure (known, relative to the base's). g_c and every E_pc are unknown, and
/// linear least squares with a smoothness term finds them: one g for the three channels (a white
/// balance only scales E_pc), or one each when that fits clearly better (`sharedResidualLimit`).
/// g_c is piecewise linear between knots spaced evenly in `spacing(z)`, which packs them towards
/// both ends like ln z and ln(1 - z) (a toe and a shoulder bend most) without leaving the middle
/// of the range bare. Each level counts by what it can say (`informationWeights`): one in a flat
/// toe, where a fraction of a level spans a range of light, hardly at all. No patch's colour is
/// needed, nor light that is even across the chart: only light that stays the same between the
/// exposures.
///
/// Exposures that are all close to powers of one ratio (1/16, 1/4, 1, 4; or 1/10, 1/4, 1/1.6, 1,
/// 2.5, all near powers of 1.6) leave the curve free to ripple with that period in ln light
/// (`ladder`): no patch is then seen at light between the steps' ratios. Steps off any ladder
/// (3/200, 1/40, 3/50, 3/25, 1/4, 17/40, 1, 1.25, 1.75, 4) pin it.
public struct ResponseRecovery: Sendable {
    /// The curve, each channel through its knots (camera value, linear value; 1 at the top knot).
    public let curve: ToneCurve
    /// Each reading's exposure, as given.
    public let exposures: [Double]
    /// How far the levels are from the curve: the rms of ln linear value over the levels, each as
    /// it was weighted (0.01 is 1%).
    public let residual: Double
    /// The levels used: up to 24 x 3 an exposure.
    public let samples: Int
    /// The exposures (indices of the readings) with no level in `usableLevels`: all too dark or
    /// clipped to say anything, left out.
    public let unusedExposures: [Int]
    /// The camera values (0...1) the levels covered: the curve is measured there and extrapolated
    /// beyond.
    public let range: ClosedRange<Double>
    /// Whether the three channels were measured as one curve (`sharedResidualLimit`).
    public let sharedByChannels: Bool
    /// The exposures used: `exposures` less `unusedExposures`.
    public var usedExposures: [Double] {
        exposures.indices.filter { !unusedExposures.contains($0) }.map { exposures[$0] }
    }
    /// The ratio the exposures used are all close to powers of, leaving the curve free to ripple
    /// with that step (`ladder`, worked out at each use); nil when they are off any ladder.
    public var ladderRatio: Double? { Self.ladder(usedExposures) }

    /// The levels used. Near 255 what is left of a patch's values once the top is clipped says
    /// little of its level (the clipping happens in RGB, after the frame's YCbCr and its shared
    /// chroma): those levels bent the top of the curve by 15 to 30 % on measured curves.
    public static let usableLevels = 1.0...250.0
    /// Knots of g per channel.
    static let knotCount = 60
    /// Weight of the second differences of g at the knots, per level of a channel and knot: enough
    /// to carry the curve across a gap between levels, small beside a real bend.
    static let smoothness = 0.01
    /// One curve is measured for the three channels unless a curve each leaves the levels' rms
    /// residual smaller than one curve's by more than this factor. A camera applies one curve after
    /// its white balance, and the three channels' levels then pin one curve three times as well: on
    /// 39 measured curves (at exposures near powers of 1.6), 1.34 levels at worst where a curve each
    /// missed by 2.19, the two residuals within 3 % of each other or one curve's the smaller (it is
    /// reweighted). Channels that really differ (a power 1.5 in blue against 1.9) leave no rising
    /// curve that fits them all.
    static let sharedResidualLimit = 1.25
    /// The spread of a level (levels) and the floor of the relative error of what it says of the
    /// light (`informationWeights`).
    static let levelSpread = 0.5
    static let relativeFloor = 0.01
    /// Rounds of solving and reweighting by each level's information.
    static let rounds = 3

    /// Recovers the response from `readings[k]`, the 24 patches at exposure k (patch 1 first),
    /// each screened as a calibration screens them; `exposures[k]`: that exposure relative to any
    /// one of them (e.g. exposure times).
    public init(readings: [[PatchStatistics]], exposures: [Double]) throws(ResponseRecoveryError) {
        precondition(readings.allSatisfy { $0.count == ChartReference.patchCount })
        precondition(exposures.count == readings.count && exposures.allSatisfy { $0 > 0 && $0.isFinite })
        guard readings.count >= 2 else { throw .tooFewExposures(readings.count) }
        guard Set(exposures).count == exposures.count else { throw .sameExposure }
        // (exposure, patch, channel, camera value 0...1) for every level that can be used.
        var rows: [(k: Int, p: Int, c: Int, z: Double)] = []
        for (k, exposure) in readings.enumerated() {
            let excluded = Calibration.screen(exposure)
            for (p, reading) in exposure.enumerated() where excluded[p] == nil {
                guard let level = Calibration.levels(reading) else { continue }
                for c in 0..<3 where Self.usableLevels.contains(level[c]) { rows.append((k, p, c, level[c] / 255)) }
            }
        }
        rows = Self.withoutFloor(rows, exposures: exposures)
        let unused = readings.indices.filter { k in !rows.contains { $0.k == k } }
        guard readings.count - unused.count >= 2 else { throw .tooFewExposures(readings.count - unused.count) }
        let n = Self.knotCount
        guard let (knots, intervals) = Self.knots(n, over: rows.map(\.z)) else { throw .noRange }
        let logExposures = exposures.map { log($0) }
        let smoothness = Self.smoothness * Double(rows.count) / Double(3 * n)
        /// g and every ln E by weighted least squares, with one g for every channel (`curves` 1) or
        /// one each (3); and the rms of the levels' residuals, each weighted as it counted.
        func fit(curves: Int) throws(ResponseRecoveryError) -> (solution: [Double], residual: Double) {
            // Unknowns: g at the knots (n a curve), then ln E of each (patch, channel) read.
            func knot(_ c: Int, _ i: Int) -> Int { (curves == 1 ? 0 : c) * n + i }
            var energyIndex: [Int: Int] = [:]
            for row in rows where energyIndex[row.p * 3 + row.c] == nil {
                energyIndex[row.p * 3 + row.c] = curves * n + energyIndex.count
            }
            let unknowns = curves * n + energyIndex.count
            /// A level's equation: g(z) - ln E = ln t.
            func terms(_ r: Int) -> [(Int, Double)] {
                let (i, t) = intervals[r], row = rows[r]
                return [(knot(row.c, i), 1 - t), (knot(row.c, i + 1), t), (energyIndex[row.p * 3 + row.c]!, -1)]
            }
            var fixedNormal = [Double](repeating: 0, count: unknowns * unknowns)
            func add(_ terms: [(Int, Double)], weight: Double, to normal: inout [Double]) {
                for (i, a) in terms { for (j, b) in terms { normal[i * unknowns + j] += weight * a * b } }
            }
            // Each g is 0 at its top knot: g and the E's share a constant otherwise.
            for c in 0..<curves { add([(knot(c, n - 1), 1)], weight: 1, to: &fixedNormal) }
            for c in 0..<curves {
                for i in 1..<n - 1 {
                    add([(knot(c, i - 1), 1), (knot(c, i), -2), (knot(c, i + 1), 1)], weight: smoothness, to: &fixedNormal)
                }
            }
            var weights = [Double](repeating: 1, count: rows.count)
            var solution: [Double] = []
            for _ in 0..<Self.rounds {
                var normal = fixedNormal
                var right = [Double](repeating: 0, count: unknowns)
                for r in rows.indices {
                    let equation = terms(r)
                    add(equation, weight: weights[r], to: &normal)
                    for (i, a) in equation { right[i] += weights[r] * a * logExposures[rows[r].k] }
                }
                guard let next = LeastSquares.solve(normal, right) else { throw .noRange }
                solution = next
                weights = Self.informationWeights(
                    rows.indices.map { r in
                        let (i, _) = intervals[r], c = rows[r].c
                        // d g / d z: the slope in knot space times d spacing / d z.
                        let slope = (solution[knot(c, i + 1)] - solution[knot(c, i)]) / (knots[i + 1] - knots[i])
                        return slope * Self.spacingSlope(rows[r].z)
                    })
            }
            var squares = 0.0, total = 0.0
            for r in rows.indices {
                let residual = terms(r).reduce(0) { $0 + $1.1 * solution[$1.0] } - logExposures[rows[r].k]
                squares += weights[r] * residual * residual
                total += weights[r]
            }
            return (Array(solution[..<(curves * n)]), (squares / total).squareRoot())
        }
        // One curve for the three channels, as a camera applies one after its white balance, unless
        // a curve of their own fits the channels' levels clearly better. A channel with no level
        // (no light in it at any exposure) leaves nothing to pin a curve of its own: then the shared
        // curve is all the levels say.
        let one = try fit(curves: 1)
        let (solution, fitted, shared) =
            if let each = try? fit(curves: 3), one.residual > Self.sharedResidualLimit * each.residual {
                (each.solution, each.residual, false)
            } else {
                (one.solution, one.residual, true)
            }
        // g must rise with z in every channel. Where the levels are sparse (a clipped end, a gap)
        // noise can leave a dip of a few percent, taken out by the nearest rising curve; a dip
        // deeper than `dipLimit` is not noise.
        var channels: [ToneCurve.Channel] = []
        let cameraValues = knots.map(Self.inverseSpacing)
        for c in 0..<3 {
            var g = (0..<n).map { solution[(shared ? 0 : c) * n + $0] }
            var highest = -Double.infinity, dip = (depth: 0.0, at: 0)
            for (i, value) in g.enumerated() {
                if highest - value > dip.depth { dip = (highest - value, i) }
                highest = max(highest, value)
            }
            guard dip.depth <= Self.dipLimit else {
                throw .notRising(channel: c, level: 255 * cameraValues[dip.at], drop: 1 - exp(-dip.depth))
            }
            g = Self.rising(g)
            do {
                channels.append(try ToneCurve.Channel(points: (0..<n).map { [cameraValues[$0], exp(g[$0])] }))
            } catch {
                throw .notRising(channel: c, level: 255 * cameraValues[0], drop: 0)
            }
        }
        curve = ToneCurve(red: channels[0], green: channels[1], blue: channels[2])
        residual = fitted
        sharedByChannels = shared
        samples = rows.count
        self.exposures = exposures
        unusedExposures = unused
        range = cameraValues[0]...cameraValues[n - 1]
    }

    /// The ratio r, from `ladderRatios`, that all of `exposures` are close to powers of; nil when
    /// there is none. A ripple of period ln r in ln light added to g is then taken up by every
    /// patch's ln E, and fits every level as well as g does: only the smoothness holds it down.
    /// On the 39 measured curves of Tests/Calibration/bracket.py, worst over the curves: a ladder of
    /// 2 from 1/64 to 4, 3.16 levels; one near 1.6 (1/64, 1/40, 1/16, 1/10, 1/4, 1/2.5, 1, 1.6,
    /// 2.5, 4), 1.34; of 1.41 (17 exposures), 1.09; the steps off any ladder named above, 0.79.
    /// Close means: the mean of exp(2πi ln t / ln r) over the exposures is at least `ladderLimit`
    /// long (1 when every ln t is a multiple of ln r; those ladders 0.998 to 1, the steps off any
    /// ladder 0.64).
    public static func ladder(_ exposures: [Double]) -> Double? {
        guard exposures.count >= 2 else { return nil }
        let logs = exposures.map { log($0) }
        let (low, high) = (log(ladderRatios.lowerBound), log(ladderRatios.upperBound))
        let periods = (0...ladderSteps).map { low + (high - low) * Double($0) / Double(ladderSteps) }
        let lengths = periods.map { period in
            var c = 0.0, s = 0.0
            for value in logs {
                c += cos(2 * .pi * value / period)
                s += sin(2 * .pi * value / period)
            }
            return (c * c + s * s).squareRoot() / Double(logs.count)
        }
        // Peaks inside the ratios scanned: lengths still rising at the widest step say the
        // exposures span too little for any step to repeat, not a ladder.
        let peaks = (1..<ladderSteps).filter { lengths[$0] >= lengths[$0 - 1] && lengths[$0] >= lengths[$0 + 1] }
        guard let longest = peaks.map({ lengths[$0] }).max(), longest >= ladderLimit else { return nil }
        // A ladder of 2 is one of 1.41 too: it is named by its widest step, the widest peak about
        // as long as the longest.
        return peaks.last { lengths[$0] >= max(longest - 0.02, ladderLimit) }.map { exp(periods[$0]) }
    }
    /// The steps looked for, from under half a stop (a finer ladder's ripple is short enough for the
    /// smoothness to hold down) to three stops; and how many periods between them are tried: steps
    /// of 0.001 in ln r, where a ladder's peak over exposures 1/64 to 4 is several steps wide.
    static let ladderRatios = 1.35...8.0
    static let ladderSteps = 2000
    static let ladderLimit = 0.9

    /// `rows` without the patches' channels that sit on the camera's floor: the same level (within
    /// `floorSpread`) at exposures at least twice apart, as a channel with no light in it reads
    /// its pedestal. They say nothing of the curve, and kept, they would say it is flat there.
    static func withoutFloor(_ rows: [(k: Int, p: Int, c: Int, z: Double)], exposures: [Double])
        -> [(k: Int, p: Int, c: Int, z: Double)]
    {
        let series = Dictionary(grouping: rows) { $0.p * 3 + $0.c }
        let floor = Set(
            series.compactMap { key, levels in
                let z = levels.map(\.z), light = levels.map { exposures[$0.k] }
                return 255 * (z.max()! - z.min()!) < floorSpread && light.max()! >= 2 * light.min()! ? key : nil
            })
        return rows.filter { !floor.contains($0.p * 3 + $0.c) }
    }
    /// Levels (of 255).
    static let floorSpread = 0.5

    /// `count` knots spaced evenly in `spacing` from the least of `values` (camera values 0...1) to
    /// the largest, and each value's interval and where in it: g(z) = (1 - t) g[i] + t g[i + 1].
    /// Nil when the values span too little to place them.
    static func knots(_ count: Int, over values: [Double]) -> (knots: [Double], intervals: [(i: Int, t: Double)])? {
        let positions = values.map(spacing)
        guard let low = positions.min(), let high = positions.max(), high - low > 0.1 else { return nil }
        let knots = (0..<count).map { low + (high - low) * Double($0) / Double(count - 1) }
        let intervals = positions.map { u -> (i: Int, t: Double) in
            let position = min(max((u - low) / (high - low) * Double(count - 1), 0), Double(count - 1) - 1e-9)
            return (Int(position), position - Double(Int(position)))
        }
        return (knots, intervals)
    }

    /// The deepest dip of g (ln linear) taken for noise and straightened out (`rising`).
    static let dipLimit = 0.1

    /// The rising sequence nearest `values` by least squares (pool adjacent violators), each step
    /// up at least 1e-6 so that the curve through them is strictly rising.
    static func rising(_ values: [Double]) -> [Double] {
        var blocks: [(sum: Double, count: Int)] = []
        for value in values {
            blocks.append((value, 1))
            while blocks.count > 1,
                blocks[blocks.count - 2].sum / Double(blocks[blocks.count - 2].count) >= blocks[blocks.count - 1].sum
                    / Double(blocks[blocks.count - 1].count)
            {
                let last = blocks.removeLast()
                blocks[blocks.count - 1].sum += last.sum
                blocks[blocks.count - 1].count += last.count
            }
        }
        var result: [Double] = []
        for block in blocks { result += Array(repeating: block.sum / Double(block.count), count: block.count) }
        for i in result.indices.dropFirst() where result[i] < result[i - 1] + 1e-6 { result[i] = result[i - 1] + 1e-6 }
        return result
    }

    /// Where the knots are even: 0.15 ln(z / (1 - z)) + 4 z, rising over 0 < z < 1; steep like
    /// ln z near 0 and like -ln(1 - z) near 1, nearly even in between.
    static func spacing(_ z: Double) -> Double { 0.15 * (log(z) - log1p(-z)) + 4 * z }
    static func spacingSlope(_ z: Double) -> Double { 0.15 / (z * (1 - z)) + 4 }
    /// The z of `spacing` u, by bisection (it rises).
    static func inverseSpacing(_ u: Double) -> Double {
        var low = 1e-9, high = 1 - 1e-9
        for _ in 0..<80 {
            let middle = (low + high) / 2
            if spacing(middle) < u { low = middle } else { high = middle }
        }
        return (low + high) / 2
    }

    /// How much each level counts, from the slope of g (d ln linear / dz) where it lies: a level's
    /// spread of `levelSpread` is that slope times as much spread in ln linear, and relative errors
    /// below `relativeFloor` are not told apart. 1 where the curve is steep in z, towards 0 in a
    /// flat toe or a clipped shoulder.
    static func informationWeights(_ slopes: [Double]) -> [Double] {
        slopes.map { slope in
            let spread = levelSpread / 255 * max(slope, 0)
            return relativeFloor * relativeFloor / (spread * spread + relativeFloor * relativeFloor)
        }
    }
}

/// Why no response could be recovered from the exposures.
public enum ResponseRecoveryError: Error, Hashable, Sendable, CustomStringConvertible {
    case tooFewExposures(Int)
    case sameExposure
    case noRange
    /// The channel's light falls by `drop` (0...1) of itself up to camera value `level` (0...255).
    case notRising(channel: Int, level: Double, drop: Double)

    public var description: String {
        switch self {
        case .tooFewExposures(let count):
            "\(count) exposure\(count == 1 ? "" : "s") with a patch that is neither black nor clipped: measuring the tone curve takes at least 2 (6 to 10, from 1/64 to 4 times the base, cover it)"
        case .sameExposure:
            "two exposures are the same: each reading must be at an exposure of its own"
        case .noRange:
            "the exposures all read the same levels: step the exposure further between them"
        case .notRising(let channel, let level, let drop):
            "the \(["red", "green", "blue"][channel]) response measured does not rise with the light (it falls \(DecimalText.fixed(100 * drop, 0))% up to level \(DecimalText.fixed(level, 0))): did the light, the chart or the camera's automatic exposure change between the exposures, or are the exposures given in another order than the readings?"
        }
    }
}

extension ResponseRecoveryError: ExitStatusError {
    public var exitStatus: Int32 { 65 }
}
