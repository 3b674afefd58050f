import Eyedropper

/// Named colours, and the exact nearest of them to a colour by CIEDE2000.
///
/// Entries keep the order they were given in (an entry's number is its index in that order);
/// entries with equal L*a*b* (aliases, as CSS's aqua and cyan) are one colour. `match` finds the
/// nearest entry and the nearest entry of another colour, exactly as comparing with every entry
/// would, without allocating: entries are kept sorted by L* and searched outward from the
/// colour's L*, and most are passed over by a lower bound on CIEDE2000 that needs no
/// trigonometry (`deltaE2000LowerBound`).
public struct Palette: Sendable {
    /// A name and its colour.
    public struct Entry: Sendable, Hashable {
        public var name: String
        /// CIELAB (D50).
        public var lab: SIMD3<Double>

        public init(name: String, lab: SIMD3<Double>) {
            self.name = name
            self.lab = lab
        }
    }

    /// The most entries a palette may have: the search stays in microseconds well past this.
    public static let maximumCount = 100_000
    /// The longest name, in UTF-8 bytes: a name is a label, and each output (an OSC datagram
    /// above all) must hold it beside the rest of a point.
    public static let maximumNameUTF8 = 256

    /// The file the palette was read from, if any.
    public let path: String?
    /// The entries in the order given; `-0` components are stored as `0`.
    public let entries: [Entry]
    /// The number of distinct L*a*b* among the entries.
    public let colourCount: Int
    /// The most UTF-8 bytes a name has.
    public let longestNameUTF8: Int

    private let jsonNames: [String]
    private let csvNames: [String]
    /// Every name's UTF-8, one after another; name `i` is `utf8[utf8Starts[i]..<utf8Starts[i + 1]]`.
    private let utf8: [UInt8]
    private let utf8Starts: [Int]
    /// Structure of arrays over the entries sorted by L* (then by entry number): L*, a*, b* and
    /// C*ab, each `count` long, one after another.
    private let sorted: [Double]
    /// The sorted entries' entry numbers, then their colour ids, each `count` long.
    private let sortedIDs: [Int32]

    /// Checks and indexes `entries`; `path` is the file they came from, for messages. Refused:
    /// no entries or more than `maximumCount`, an empty name or one longer than `maximumNameUTF8`, a name given twice, the name
    /// "unknown" in any case (outputs say it of colours too far from every entry), L*a*b* that is
    /// not finite, L* outside 0...100.
    public init(entries: [Entry], path: String? = nil) throws(PaletteFileError) {
        try self.init(entries: entries, path: path, location: { .entry($0 + 1) })
    }

    /// `location` says where entry `i` was in the file (an entry number or a CSV line).
    init(entries given: [Entry], path: String?, location: (Int) -> PaletteFileError.Location) throws(PaletteFileError) {
        func fail(_ index: Int?, _ reason: String) -> PaletteFileError {
            .malformed(path: path, at: index.map(location), reason: reason)
        }
        guard !given.isEmpty else { throw fail(nil, "it has no entries: give at least one name and colour") }
        guard given.count <= Self.maximumCount else {
            throw fail(nil, "it has \(given.count) entries, more than \(Self.maximumCount): split it, or keep the colours you use")
        }
        var entries = given
        var firstWithName: [String: Int] = [:]
        var colourOfLab: [SIMD3<Double>: Int32] = [:]
        var colours: [Int32] = []
        for (index, entry) in given.enumerated() {
            let quoted = JSONText.string(entry.name)
            guard !entry.name.isEmpty else { throw fail(index, "the name is empty: give every entry a name") }
            guard entry.name.utf8.count <= Self.maximumNameUTF8 else {
                throw fail(index, "the name \(quoted) is \(entry.name.utf8.count) bytes long: give at most \(Self.maximumNameUTF8)")
            }
            guard entry.name.lowercased() != "unknown" else {
                throw fail(index, "the name \(quoted) is kept for colours too far from every entry: choose another")
            }
            if let first = firstWithName[entry.name] {
                throw fail(index, "the name \(quoted) is also \(location(first)): give each entry its own name")
            }
            firstWithName[entry.name] = index
            let lab = entry.lab
            guard lab.x.isFinite, lab.y.isFinite, lab.z.isFinite else {
                throw fail(index, "\(quoted)'s L*a*b* (\(lab.x), \(lab.y), \(lab.z)) is not a number: give finite values")
            }
            guard (0...100).contains(lab.x) else {
                throw fail(index, "\(quoted)'s L* is \(lab.x): L* must be in 0...100")
            }
            // -0 becomes 0, so that equal colours are equal bit for bit and are one colour.
            let canonical = lab + SIMD3(repeating: 0)
            entries[index].lab = canonical
            if let colour = colourOfLab[canonical] {
                colours.append(colour)
            } else {
                let colour = Int32(colourOfLab.count)
                colourOfLab[canonical] = colour
                colours.append(colour)
            }
        }
        self.path = path
        self.entries = entries
        colourCount = colourOfLab.count
        jsonNames = entries.map { JSONText.string($0.name) }
        csvNames = entries.map { csvField($0.name) }
        var utf8: [UInt8] = []
        var starts = [0]
        for entry in entries {
            utf8.append(contentsOf: entry.name.utf8)
            starts.append(utf8.count)
        }
        self.utf8 = utf8
        utf8Starts = starts
        longestNameUTF8 = entries.map(\.name.utf8.count).max() ?? 0
        let order = entries.indices.sorted { (entries[$0].lab.x, $0) < (entries[$1].lab.x, $1) }
        let labs = order.map { entries[$0].lab }
        sorted =
            labs.map(\.x) + labs.map(\.y) + labs.map(\.z) + labs.map { ($0.y * $0.y + $0.z * $0.z).squareRoot() }
        sortedIDs = order.map { Int32($0) } + order.map { colours[$0] }
    }

    /// The number of entries.
    public var count: Int { entries.count }

    /// Entry `entry`'s name.
    public func name(_ entry: Int32) -> String { entries[Int(entry)].name }

    /// Entry `entry`'s L*a*b* (D50).
    public func lab(_ entry: Int32) -> SIMD3<Double> { entries[Int(entry)].lab }

    /// Entry `entry`'s name as a complete JSON string literal: quotes and escapes included.
    public func jsonName(_ entry: Int32) -> String { jsonNames[Int(entry)] }

    /// Entry `entry`'s name as a CSV field (RFC 4180): in quotes, its quotes doubled, only when it
    /// holds a comma, a quote or a line break.
    public func csvName(_ entry: Int32) -> String { csvNames[Int(entry)] }

    /// The UTF-8 length of entry `entry`'s name.
    public func utf8Count(_ entry: Int32) -> Int { utf8Starts[Int(entry) + 1] - utf8Starts[Int(entry)] }

    /// Calls `body` with entry `entry`'s name in UTF-8, without allocating.
    public func withUTF8Name<R>(_ entry: Int32, _ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        let range = utf8Starts[Int(entry)]..<utf8Starts[Int(entry) + 1]
        return try utf8.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[range])) }
    }
}

/// The nearest palette entry to a colour, and the nearest of another colour.
public struct PaletteMatch: Sendable, Hashable {
    /// The nearest entry's number (its index in the palette's order); among entries equally
    /// near, the first.
    public var entry: Int32
    /// CIEDE2000 from that entry to the colour, exactly as `CIELab.deltaE2000` gives it.
    public var deltaE: Double
    /// The nearest entry whose colour differs from `entry`'s (aliases of it do not count); -1 when
    /// every entry has `entry`'s colour.
    public var next: Int32
    /// CIEDE2000 to `next`; NaN when there is none.
    public var nextDeltaE: Double

    public init(entry: Int32, deltaE: Double, next: Int32, nextDeltaE: Double) {
        self.entry = entry
        self.deltaE = deltaE
        self.next = next
        self.nextDeltaE = nextDeltaE
    }
}

// MARK: - Search

extension Palette {
    /// The nearest entry to `lab` (CIELAB D50) by CIEDE2000 and the nearest of another colour,
    /// as `matchByBruteForce` gives them (ties go to the lower entry number), without allocating.
    /// A colour with a component that is not finite matches entry 0 at NaN, with no `next`.
    public func match(_ lab: SIMD3<Double>) -> PaletteMatch {
        guard lab.x.isFinite, lab.y.isFinite, lab.z.isFinite else {
            return PaletteMatch(entry: 0, deltaE: .nan, next: -1, nextDeltaE: .nan)
        }
        let query = CIELab(l: lab.x, a: lab.y, b: lab.z)
        let queryChroma = (lab.y * lab.y + lab.z * lab.z).squareRoot()
        let n = count
        // ΔE00 >= |ΔL*| / S_L, and S_L is largest at the mean L* farthest from 50: the entries'
        // L* are in 0...100, so the mean is in L/2 ... L/2 + 50. A side of the scan stops once
        // |ΔL*| exceeds this times the second-best ΔE00 (the margin covers rounding).
        let farthest = max(abs(lab.x / 2 - 50), abs(lab.x / 2))
        let stop = Self.sL(farthest * farthest) * (1 + 1e-9)
        var best = (d: Double.infinity, entry: Int32(-1), colour: Int32(-1))
        var second = (d: Double.infinity, entry: Int32(-1))
        sorted.withUnsafeBufferPointer { values in
            sortedIDs.withUnsafeBufferPointer { ids in
                let l = values.baseAddress!, a = l + n, b = a + n, chroma = b + n
                let entryOf = ids.baseAddress!, colourOf = entryOf + n
                @inline(__always) func visit(_ i: Int) {
                    let limit = second.d
                    // Passed over only when it cannot be nearer than the second best.
                    if limit.isFinite {
                        let bound = Self.lowerBoundSquared(lab.x, lab.y, lab.z, queryChroma, l[i], a[i], b[i], chroma[i])
                        if bound * (1 - 1e-9) > limit * limit { return }
                    }
                    let d = CIELab(l: l[i], a: a[i], b: b[i]).deltaE2000(query)
                    let entry = entryOf[i], colour = colourOf[i]
                    if d < best.d || (d == best.d && entry < best.entry) {
                        if colour != best.colour { second = (best.d, best.entry) }
                        best = (d, entry, colour)
                    } else if colour != best.colour && (d < second.d || (d == second.d && entry < second.entry)) {
                        second = (d, entry)
                    }
                }
                // The first entry with L* >= the colour's, then outward, nearer L* first.
                var low = 0, high = n
                while low < high {
                    let middle = (low + high) / 2
                    if l[middle] < lab.x { low = middle + 1 } else { high = middle }
                }
                var up = low, down = low - 1
                while true {
                    let reach = stop * second.d
                    let upOpen = up < n && !(l[up] - lab.x > reach)
                    let downOpen = down >= 0 && !(lab.x - l[down] > reach)
                    if upOpen && (!downOpen || l[up] - lab.x <= lab.x - l[down]) {
                        visit(up)
                        up += 1
                    } else if downOpen {
                        visit(down)
                        down -= 1
                    } else {
                        break
                    }
                }
            }
        }
        return PaletteMatch(
            entry: best.entry, deltaE: best.d, next: second.entry, nextDeltaE: second.entry < 0 ? .nan : second.d)
    }

    /// `match` by comparing with every entry, in one pass: the peer of the search in the
    /// benchmarks, and a second reference in the tests. Allocates nothing either.
    public func matchByBruteForce(_ lab: SIMD3<Double>) -> PaletteMatch {
        guard lab.x.isFinite, lab.y.isFinite, lab.z.isFinite else {
            return PaletteMatch(entry: 0, deltaE: .nan, next: -1, nextDeltaE: .nan)
        }
        let query = CIELab(l: lab.x, a: lab.y, b: lab.z)
        var best = (d: Double.infinity, entry: -1)
        var second = (d: Double.infinity, entry: -1)
        for (index, entry) in entries.enumerated() {
            let d = CIELab(l: entry.lab.x, a: entry.lab.y, b: entry.lab.z).deltaE2000(query)
            // Entries come in order, so only a strictly nearer one displaces an earlier one.
            if d < best.d {
                if best.entry >= 0 && entries[best.entry].lab != entry.lab { second = best }
                best = (d, index)
            } else if d < second.d && entries[best.entry].lab != entry.lab {
                second = (d, index)
            }
        }
        return PaletteMatch(
            entry: Int32(best.entry), deltaE: best.d, next: Int32(second.entry), nextDeltaE: second.entry < 0 ? .nan : second.d)
    }

    /// A lower bound on `first.deltaE2000(second)` that needs no trigonometry (Sharma, Wu and
    /// Dalal's steps, cited at `deltaE2000`). Exact without trigonometry: ΔL', S_L, G, C'1, C'2,
    /// ΔC', S_C, R_C and ΔH'^2 = Δa'^2 + Δb^2 - ΔC'^2 (since ΔH' = 2 sqrt(C'1 C'2) sin(Δh'/2)).
    /// Only T and R_T need the hue, and over every hue T is in [0.3621, 1.5725] (so S_H is
    /// bounded) and |R_T| <= R_C sin 60°, since Δθ is in (0°, 30°]. With x = |ΔC'|/S_C and
    /// y = |ΔH'|/S_H, ΔE00^2 >= (ΔL'/S_L)^2 + x^2 + y^2 - r x y (r = R_C sin 60°), least over y in
    /// its range at y = r x / 2 clamped to it.
    package static func deltaE2000LowerBound(_ first: CIELab, _ second: CIELab) -> Double {
        lowerBoundSquared(
            first.l, first.a, first.b, (first.a * first.a + first.b * first.b).squareRoot(), second.l, second.a, second.b,
            (second.a * second.a + second.b * second.b).squareRoot()
        ).squareRoot()
    }

    /// The square of the bound above, from two colours' L*, a*, b* and C*ab.
    @inline(__always)
    private static func lowerBoundSquared(
        _ l1: Double, _ a1: Double, _ b1: Double, _ c1: Double, _ l2: Double, _ a2: Double, _ b2: Double, _ c2: Double
    ) -> Double {
        let meanChroma = (c1 + c2) / 2
        let meanChroma2 = meanChroma * meanChroma
        let meanChroma7 = meanChroma2 * meanChroma2 * meanChroma2 * meanChroma
        let g = 0.5 * (1 - (meanChroma7 / (meanChroma7 + twentyFive7)).squareRoot())
        let a1p = (1 + g) * a1, a2p = (1 + g) * a2
        let c1p = (a1p * a1p + b1 * b1).squareRoot(), c2p = (a2p * a2p + b2 * b2).squareRoot()
        let deltaL = l2 - l1, deltaC = c2p - c1p, deltaA = a2p - a1p, deltaB = b2 - b1
        let deltaH2 = max(deltaA * deltaA + deltaB * deltaB - deltaC * deltaC, 0)
        let meanL = (l1 + l2) / 2, meanCp = (c1p + c2p) / 2
        let meanCp2 = meanCp * meanCp
        let meanCp7 = meanCp2 * meanCp2 * meanCp2 * meanCp
        let r = 2 * (meanCp7 / (meanCp7 + twentyFive7)).squareRoot() * sin60
        let lOffset = (meanL - 50) * (meanL - 50)
        let lTerm = deltaL / sL(lOffset)
        let x = abs(deltaC) / (1 + 0.045 * meanCp)
        let deltaH = deltaH2.squareRoot()
        let yLow = deltaH / (1 + 0.015 * meanCp * tMaximum), yHigh = deltaH / (1 + 0.015 * meanCp * tMinimum)
        let y = min(max(r * x / 2, yLow), yHigh)
        return max(lTerm * lTerm + x * x + y * y - r * x * y, 0)
    }

    /// CIEDE2000's S_L at a mean L* whose offset from 50, squared, is `offset2`.
    @inline(__always)
    private static func sL(_ offset2: Double) -> Double { 1 + 0.015 * offset2 / (20 + offset2).squareRoot() }

    /// 25^7, as in `deltaE2000`.
    private static let twentyFive7 = 6_103_515_625.0
    /// sin 60°, rounded up.
    private static let sin60 = 0.866_025_403_784_439
    /// T's range over every hue, widened: its least and greatest on a 10^-4 degree grid are
    /// 0.362055 and 1.572472, and T changes by less than 0.05 a degree.
    private static let tMinimum = 0.36
    private static let tMaximum = 1.58
}
