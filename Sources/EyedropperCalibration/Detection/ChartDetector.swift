import Eyedropper

/// Finds a ColorChecker Classic 24 in an RGB24 frame, with no corners given: any roll, a tilt
/// away from the camera, seen directly or in a mirror, down to about 150 pixels wide.
///
/// How, in four steps, each cheap enough for a live frame:
/// 1. **Regions.** Neighbouring pixels whose colours differ by less than the frame's noise
///    allows are joined (union-find over the pixel grid, one pass; a second pass numbers the
///    regions). A patch is one region: the chart's dark gaps cut it off from its neighbours.
/// 2. **Squares.** A region of a plausible size whose second moments say "a convex
///    parallelogram" (area against its moment ellipse: 3/pi for any parallelogram, any tilt) is
///    a candidate patch.
/// 3. **The grid.** From each candidate, its nearest candidates give the grid's two steps; the
///    grid grows outwards, refitting a perspective map (a homography from grid steps to pixels)
///    at every ring, and keeps the candidates of a patch's size within a fifth of a step of a
///    grid point (a third while the map is the seed's first guess).
/// 4. **Which way round.** The 6 x 4 block can lie on the grid in a few places and 8 ways
///    (4 rolls, each seen directly or mirrored). Each way, the colours at the 24 grid points
///    are fitted to the chart's published colours by one 3x3 matrix and a gain that varies
///    smoothly over the chart (light from one side), in linear light: the way the chart
///    really lies fits them closely, every other way fits them badly. The grey ramp
///    must fall from white to black as well. The fit's error and the margin over the next
///    way give the confidence; a grid that fits no way (tiles, a keyboard) is not a chart.
///
/// The black patch is often one region with the chart's black body, and dark patches in dim
/// light may be too; the grid places them all the same. Every buffer is kept between frames
/// of one size: detecting allocates nothing after the first frame.
public final class ChartDetector {
    /// A patch's side over the grid's step: 38 mm patches on a 44 mm pitch.
    public static let patchFraction = 38.0 / 44.0

    /// Linear sRGB (0...1) of the 24 patches, patch 1 first.
    private let reference: [SIMD3<Double>]
    private let linear: [Double]

    private var pixelCapacity = 0
    private var labels: UnsafeMutablePointer<Int32>
    private var sizes: UnsafeMutablePointer<Int32>
    private var candidateOfRegion: UnsafeMutablePointer<Int32>

    private var moments: [Moments] = []
    private var candidates: [Candidate] = []
    /// Grid slots (a, b) in -6...6 of the grid being grown: the candidate there, or -1.
    private var slots = [Int32](repeating: -1, count: 169)
    private var slotDistance = [Double](repeating: 0, count: 169)
    private var normal = [Double](repeating: 0, count: 72)
    private var pointsFrom: [SIMD2<Double>] = []
    private var pointsTo: [SIMD2<Double>] = []
    private var grids: [Grid] = []
    private var gridMembers: [Member] = []
    private var measured = [SIMD3<Double>](repeating: .zero, count: 24)
    private var present = [Bool](repeating: false, count: 24)

    /// The chart the last `detect` found: valid after it returned without throwing.
    public private(set) var chart = DetectedChart()

    /// A detector for the ColorChecker with `reference` colours (24 L*a*b*, D50).
    public convenience init(reference: ChartReference = .colorChecker2014) {
        self.init(
            linearReference: reference.lab.map { lab in
                var rgb = SRGB.fromXYZD50 * CIEXYZ(lab).vector
                rgb.clamp(lowerBound: SIMD3(repeating: 0), upperBound: SIMD3(repeating: 1))
                return rgb
            })
    }

    init(linearReference: [SIMD3<Double>]) {
        precondition(linearReference.count == 24)
        reference = linearReference
        linear = (0..<256).map { SRGB.decode(Double($0) / 255) }
        labels = .allocate(capacity: 1)
        sizes = .allocate(capacity: 1)
        candidateOfRegion = .allocate(capacity: 1)
        moments.reserveCapacity(4096)
        candidates.reserveCapacity(4096)
        pointsFrom.reserveCapacity(169)
        pointsTo.reserveCapacity(169)
        grids.reserveCapacity(Self.maximumGrids)
        gridMembers = [Member](repeating: Member(candidate: 0, a: 0, b: 0), count: Self.maximumGrids * 169)
    }

    deinit {
        labels.deallocate()
        sizes.deallocate()
        candidateOfRegion.deallocate()
    }

    static let maximumGrids = 8

    /// Finds the chart in `pixels` (RGB24 rows, tightly packed, `width` x `height`); what it
    /// found is in `chart`. Throws when there is no chart, two, or one it cannot be sure of.
    public func detect(rgb24 pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws(ChartDetectionFailure) {
        precondition(width > 0 && height > 0 && pixels.count >= width * height * 3)
        let rgb = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
        reserve(width * height)
        let regions = label(rgb, width: width, height: height, threshold: noiseThreshold(rgb, width: width, height: height))
        findCandidates(rgb, width: width, height: height, regions: regions)
        findGrids()
        var found: (grid: Int, fit: Placement)?
        var bestRefused: Placement?
        for index in grids.indices {
            guard let placement = place(grid: index, rgb, width: width, height: height) else { continue }
            if placement.error > Self.notAChart || !placement.rampFalls {
                if bestRefused.map({ placement.error < $0.error }) ?? true { bestRefused = placement }
                continue
            }
            if found != nil { throw .twoCharts }
            found = (index, placement)
        }
        guard let found else {
            if let bestRefused, bestRefused.inside == false { throw .outsideFrame }
            throw .noChart(candidates: candidates.count)
        }
        let placement = found.fit
        guard placement.inside else { throw .outsideFrame }
        finish(grid: found.grid, placement: placement, rgb, width: width, height: height)
        guard chart.confidence >= Self.minimumConfidence else { throw .unsure(confidence: chart.confidence) }
    }

    /// A placement whose colours fit worse than this (the fit's unexplained share of the
    /// reference's variance) is not this chart: the right way round fits to a few hundredths.
    static let notAChart = 0.12
    /// Below this, `detect` refuses the chart as unsure.
    public static let minimumConfidence = 0.5

    // MARK: - Regions

    private func reserve(_ count: Int) {
        guard count > pixelCapacity else { return }
        labels.deallocate()
        sizes.deallocate()
        candidateOfRegion.deallocate()
        labels = .allocate(capacity: count)
        sizes = .allocate(capacity: count)
        candidateOfRegion = .allocate(capacity: count)
        pixelCapacity = count
    }

    private var differenceHistogram = [Int](repeating: 0, count: 766)

    /// How different two neighbouring pixels of one patch may be: three times the median
    /// difference of horizontal neighbours (mostly noise, since most of a frame is smooth),
    /// plus a floor, summed over the three channels.
    private func noiseThreshold(_ rgb: UnsafePointer<UInt8>, width: Int, height: Int) -> Int32 {
        for index in differenceHistogram.indices { differenceHistogram[index] = 0 }
        var total = 0
        guard width > 1 else { return 24 }
        var y = 0
        while y < height {
            let row = rgb + y * width * 3
            var x = 1
            while x < width {
                let p = row + x * 3
                let d = abs(Int(p[0]) - Int(p[-3])) + abs(Int(p[1]) - Int(p[-2])) + abs(Int(p[2]) - Int(p[-1]))
                differenceHistogram[d] += 1
                total += 1
                x += 3
            }
            y += 4
        }
        var seen = 0, median = 0
        for (value, count) in differenceHistogram.enumerated() {
            seen += count
            if 2 * seen >= total {
                median = value
                break
            }
        }
        return Int32(min(60, max(18, 3 * median + 12)))
    }

    /// Joins neighbouring pixels closer than `threshold`; afterwards `labels[p]` is `-(r + 1)`
    /// for region r and `sizes[r]` counts its pixels. Returns the number of regions.
    private func label(_ rgb: UnsafePointer<UInt8>, width: Int, height: Int, threshold: Int32) -> Int {
        let labels = self.labels
        @inline(__always) func find(_ start: Int32) -> Int32 {
            var i = start
            while true {
                let parent = labels[Int(i)]
                if parent == i { return i }
                let grand = labels[Int(parent)]
                labels[Int(i)] = grand
                i = grand
            }
        }
        @inline(__always) func close(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>) -> Bool {
            let d = abs(Int32(a[0]) - Int32(b[0])) + abs(Int32(a[1]) - Int32(b[1])) + abs(Int32(a[2]) - Int32(b[2]))
            return d < threshold
        }
        // The first row: joins to the left only.
        labels[0] = 0
        for x in 1..<width {
            let p = rgb + 3 * x
            labels[x] = close(p, p - 3) ? find(Int32(x - 1)) : Int32(x)
        }
        let stride = 3 * width
        for y in 1..<max(1, height) {
            let rowStart = y * width
            var p = rgb + 3 * rowStart
            // The first pixel of a row: joins upwards only.
            labels[rowStart] = close(p, p - stride) ? find(Int32(rowStart - width)) : Int32(rowStart)
            p += 3
            for index in (rowStart + 1)..<(rowStart + width) {
                var root = Int32(index)
                let left = close(p, p - 3)
                if left { root = find(Int32(index - 1)) }
                if close(p, p - stride) {
                    let up = labels[index - width] == labels[index - 1] && left ? root : find(Int32(index - width))
                    if !left {
                        root = up
                    } else if up != root {
                        if up < root {
                            labels[Int(root)] = up
                            root = up
                        } else {
                            labels[Int(up)] = root
                        }
                    }
                }
                labels[index] = root
                p += 3
            }
        }
        // Every pixel points at an earlier pixel of its region (or itself, the region's first):
        // in raster order, each takes the number its parent already has.
        var regions: Int32 = 0
        let sizes = self.sizes
        for index in 0..<(width * height) {
            let parent = labels[index]
            if parent == Int32(index) {
                sizes[Int(regions)] = 1
                regions += 1
                labels[index] = -regions
            } else {
                let region = labels[Int(parent)]
                labels[index] = region
                sizes[Int(-region - 1)] += 1
            }
        }
        return Int(regions)
    }

    // MARK: - Candidate patches

    struct Moments {
        var n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0, sr = 0, sg = 0, sb = 0
    }

    struct Candidate {
        var center: SIMD2<Double>
        var area: Double
        var color: SIMD3<Double>
        /// The grid it belongs to, or -1.
        var grid: Int32
    }

    /// The smallest patch looked for, in pixels: about 8 x 8, a chart some 60 pixels wide on
    /// its far side.
    static let minimumArea = 60

    private func findCandidates(_ rgb: UnsafePointer<UInt8>, width: Int, height: Int, regions: Int) {
        let maximumArea = max(Self.minimumArea + 1, width * height / 40)
        moments.removeAll(keepingCapacity: true)
        for region in 0..<regions {
            let size = Int(sizes[region])
            if size >= Self.minimumArea && size <= maximumArea {
                candidateOfRegion[region] = Int32(moments.count)
                moments.append(Moments())
            } else {
                candidateOfRegion[region] = -1
            }
        }
        candidates.removeAll(keepingCapacity: true)
        guard !moments.isEmpty else { return }
        moments.withUnsafeMutableBufferPointer { moments in
            for y in 0..<height {
                let row = y * width
                for x in 0..<width {
                    let candidate = candidateOfRegion[Int(-labels[row + x] - 1)]
                    if candidate < 0 { continue }
                    let p = rgb + 3 * (row + x)
                    moments[Int(candidate)].n += 1
                    moments[Int(candidate)].sx += x
                    moments[Int(candidate)].sy += y
                    moments[Int(candidate)].sxx += x * x
                    moments[Int(candidate)].sxy += x * y
                    moments[Int(candidate)].syy += y * y
                    moments[Int(candidate)].sr += Int(p[0])
                    moments[Int(candidate)].sg += Int(p[1])
                    moments[Int(candidate)].sb += Int(p[2])
                }
            }
        }
        for m in moments {
            let n = Double(m.n)
            let mx = Double(m.sx) / n, my = Double(m.sy) / n
            // The variance of a pixel's own square (1/12) added: what a continuous region has.
            let vxx = Double(m.sxx) / n - mx * mx + 1.0 / 12
            let vyy = Double(m.syy) / n - my * my + 1.0 / 12
            let vxy = Double(m.sxy) / n - mx * my
            let det = vxx * vyy - vxy * vxy
            guard det > 0 else { continue }
            // 3/pi = 0.955 for a parallelogram, 1 for an ellipse, 0.83 for a triangle.
            let fill = n / (4 * Double.pi * det.squareRoot())
            guard fill > 0.88 && fill < 1.03 else { continue }
            let half = (vxx + vyy) / 2, spread = ((vxx - vyy) * (vxx - vyy) / 4 + vxy * vxy).squareRoot()
            guard half - spread > 0, (half + spread) / (half - spread) < 9 else { continue }
            candidates.append(
                Candidate(
                    center: SIMD2(mx + 0.5, my + 0.5), area: n,
                    color: SIMD3(Double(m.sr), Double(m.sg), Double(m.sb)) / n, grid: -1))
        }
    }

    // MARK: - Grids

    struct Member {
        var candidate: Int32
        var a: Int8
        var b: Int8
    }

    struct Grid {
        /// Grid steps (a, b) to pixels.
        var map: Projective
        var count: Int
    }

    /// Grows a grid from every candidate not yet on one, and keeps those of 12 or more
    /// candidates (at most `maximumGrids`, the largest).
    private func findGrids() {
        grids.removeAll(keepingCapacity: true)
        let count = candidates.count
        guard count >= 12 else { return }
        for seed in 0..<count where candidates[seed].grid < 0 {
            guard let (u, v) = steps(from: seed) else { continue }
            let origin = candidates[seed].center
            guard var map = Projective(origin: origin, u: u, v: v) else { continue }
            var members = 0
            for round in 0..<6 {
                members = assign(map: map, radius: min(6, round + 1 + round / 4), tolerance: round < 3 ? 1.0 / 3 : 0.2)
                guard members >= 3, let refined = fit(map: map) else { break }
                map = refined
            }
            members = assign(map: map, radius: 6, tolerance: 0.2)
            guard members >= 12 else { continue }
            // Overlapping an earlier grid: the same chart; keep the larger.
            var overlaps = -1
            for slot in 0..<169 where slots[slot] >= 0 {
                let owner = candidates[Int(slots[slot])].grid
                if owner >= 0 {
                    overlaps = Int(owner)
                    break
                }
            }
            let index: Int
            if overlaps >= 0 {
                guard members > grids[overlaps].count else { continue }
                for c in 0..<count where candidates[c].grid == Int32(overlaps) { candidates[c].grid = -1 }
                index = overlaps
                grids[index] = Grid(map: map, count: members)
            } else {
                guard grids.count < Self.maximumGrids else { continue }
                index = grids.count
                grids.append(Grid(map: map, count: members))
            }
            var k = 0
            for slot in 0..<169 where slots[slot] >= 0 {
                candidates[Int(slots[slot])].grid = Int32(index)
                gridMembers[index * 169 + k] = Member(candidate: slots[slot], a: Int8(slot / 13 - 6), b: Int8(slot % 13 - 6))
                k += 1
            }
        }
    }

    /// The grid's two steps at `seed`: to its nearest candidate of a like size, and to the
    /// nearest one off that line; reduced (Lagrange) so that they are the shortest pair.
    private func steps(from seed: Int) -> (SIMD2<Double>, SIMD2<Double>)? {
        let c = candidates[seed]
        let pitch = c.area.squareRoot() / Self.patchFraction
        var u: SIMD2<Double>?, uLength = Double.infinity
        for other in candidates.indices where other != seed {
            let o = candidates[other]
            guard o.area > 0.5 * c.area && o.area < 2 * c.area else { continue }
            let d = o.center - c.center, length = (d * d).sum().squareRoot()
            if length > 0.7 * pitch && length < 1.6 * pitch && length < uLength { (u, uLength) = (d, length) }
        }
        guard let u else { return nil }
        var v: SIMD2<Double>?, vLength = Double.infinity
        for other in candidates.indices where other != seed {
            let o = candidates[other]
            guard o.area > 0.5 * c.area && o.area < 2 * c.area else { continue }
            let d = o.center - c.center, length = (d * d).sum().squareRoot()
            guard length > 0.7 * pitch && length < 1.6 * pitch && length < vLength else { continue }
            if abs(cross(u, d)) > 0.7 * uLength * length { (v, vLength) = (d, length) }
        }
        guard var v else { return nil }
        var a = u
        for _ in 0..<4 {
            if (v * v).sum() < (a * a).sum() { swap(&a, &v) }
            let m = ((a * v).sum() / (a * a).sum()).rounded()
            if m == 0 { break }
            v -= m * a
        }
        return (a, v)
    }

    /// Puts each candidate on the grid point of `map` it lies near (within `tolerance` of the
    /// local step, at most `radius` steps from the origin, of the local patch size); a point
    /// two candidates want goes to the nearer. Returns how many points are taken. The grid's
    /// first rings are found with a third of a step, while the map is only the seed's
    /// affine guess; once a homography is fitted, its patches sit within a few hundredths of
    /// a step of their points, and a fifth keeps out squares of clutter that happen to lie
    /// near the grid's extension.
    private func assign(map: Projective, radius: Int, tolerance: Double) -> Int {
        for slot in 0..<169 { slots[slot] = -1 }
        guard let inverse = map.inverse else { return 0 }
        let limit = Double(radius) + 0.5
        var taken = 0
        for index in candidates.indices {
            let c = candidates[index]
            let grid = inverse.map(c.center)
            guard abs(grid.x) < limit, abs(grid.y) < limit else { continue }
            let a = grid.x.rounded(), b = grid.y.rounded()
            let point = map.map(SIMD2(a, b))
            let du = map.map(SIMD2(a + 1, b)) - point, dv = map.map(SIMD2(a, b + 1)) - point
            let cell = abs(cross(du, dv))
            guard cell > 0 else { continue }
            let patch = cell * Self.patchFraction * Self.patchFraction
            guard c.area > 0.4 * patch && c.area < 1.7 * patch else { continue }
            let offset = c.center - point, distance = (offset * offset).sum()
            guard distance < cell * tolerance * tolerance else { continue }
            let slot = (Int(a) + 6) * 13 + Int(b) + 6
            if slots[slot] < 0 {
                taken += 1
            } else if slotDistance[slot] <= distance {
                continue
            }
            slots[slot] = Int32(index)
            slotDistance[slot] = distance
        }
        return taken
    }

    /// The map refitted to the candidates in `slots`: a homography with 6 or more, an affine
    /// map with 3 to 5; nil when they lie on a line.
    private func fit(map: Projective) -> Projective? {
        pointsFrom.removeAll(keepingCapacity: true)
        pointsTo.removeAll(keepingCapacity: true)
        for slot in 0..<169 where slots[slot] >= 0 {
            pointsFrom.append(SIMD2(Double(slot / 13 - 6), Double(slot % 13 - 6)))
            pointsTo.append(candidates[Int(slots[slot])].center)
        }
        return Projective.fit(from: pointsFrom, to: pointsTo, origin: map.origin, scale: map.scale, scratch: &normal)
    }

    // MARK: - Which way round

    struct Placement {
        /// Grid point of the block's (0, 0) corner and, per chart column and row, the grid step.
        var origin: SIMD2<Int>
        var column: SIMD2<Int>
        var row: SIMD2<Int>
        var error: Double
        var runnerUp: Double
        var rampFalls: Bool
        var inside: Bool
        var members: Int

        func grid(column c: Int, row r: Int) -> SIMD2<Int> { origin &+ c &* column &+ r &* row }
    }

    /// Tries every way the 6 x 4 block can lie over grid `index`'s candidates; returns the one
    /// whose colours fit the chart best, with the next best's error as `runnerUp`.
    private func place(grid index: Int, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) -> Placement? {
        let grid = grids[index]
        var aMin = 99, aMax = -99, bMin = 99, bMax = -99
        for k in 0..<grid.count {
            let m = gridMembers[index * 169 + k]
            aMin = min(aMin, Int(m.a))
            aMax = max(aMax, Int(m.a))
            bMin = min(bMin, Int(m.b))
            bMax = max(bMax, Int(m.b))
        }
        var best: Placement?, runnerUp = Double.infinity
        for axes in 0..<2 {
            let longAlongA = axes == 0
            let spanA = longAlongA ? 6 : 4, spanB = longAlongA ? 4 : 6
            for a0 in min(aMin, aMax - spanA + 1)...max(aMin, aMax - spanA + 1) {
                for b0 in min(bMin, bMax - spanB + 1)...max(bMin, bMax - spanB + 1) {
                    var inWindow = 0
                    for k in 0..<grid.count {
                        let m = gridMembers[index * 169 + k]
                        if Int(m.a) >= a0 && Int(m.a) < a0 + spanA && Int(m.b) >= b0 && Int(m.b) < b0 + spanB { inWindow += 1 }
                    }
                    guard inWindow >= 12 else { continue }
                    for flip in 0..<4 {
                        let flipColumns = flip & 1 != 0, flipRows = flip & 2 != 0
                        let alongA = SIMD2(1, 0), alongB = SIMD2(0, 1)
                        var column = longAlongA ? alongA : alongB, row = longAlongA ? alongB : alongA
                        var origin = SIMD2(a0, b0)
                        if flipColumns {
                            origin &+= 5 &* column
                            column = 0 &- column
                        }
                        if flipRows {
                            origin &+= 3 &* row
                            row = 0 &- row
                        }
                        var placement = Placement(
                            origin: origin, column: column, row: row, error: .infinity, runnerUp: .infinity,
                            rampFalls: false, inside: true, members: inWindow)
                        score(&placement, map: grid.map, rgb, width: width, height: height)
                        if let current = best, placement.error >= current.error {
                            runnerUp = min(runnerUp, placement.error)
                        } else {
                            if let current = best { runnerUp = min(runnerUp, current.error) }
                            best = placement
                        }
                    }
                }
            }
        }
        best?.runnerUp = runnerUp
        return best
    }

    /// The colours at the 24 points of `placement`, fitted to the chart's by one 3x3 matrix in
    /// linear light: the unexplained share of the reference's variance, and whether the grey
    /// ramp falls from white to black.
    private func score(_ placement: inout Placement, map: Projective, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
        var seen = 0
        for patch in 0..<24 {
            let g = placement.grid(column: patch % 6, row: patch / 6)
            let point = map.map(SIMD2(Double(g.x), Double(g.y)))
            let du = map.map(SIMD2(Double(g.x + 1), Double(g.y))) - point
            let reach = 0.2 * (du * du).sum().squareRoot()
            guard point.x - reach >= 0, point.y - reach >= 0, point.x + reach < Double(width), point.y + reach < Double(height)
            else {
                // Beyond the frame: the fit goes on without it, and the chart is not usable.
                placement.inside = false
                present[patch] = false
                continue
            }
            var sum = SIMD3<Double>.zero
            for j in -2...2 {
                for i in -2...2 {
                    let x = Int(point.x + Double(i) * reach / 2), y = Int(point.y + Double(j) * reach / 2)
                    let p = rgb + 3 * (y * width + x)
                    sum += SIMD3(linear[Int(p[0])], linear[Int(p[1])], linear[Int(p[2])])
                }
            }
            measured[patch] = sum / 25
            present[patch] = true
            seen += 1
        }
        guard seen >= 16 else { return }
        var falls = true
        for patch in 18..<23 where present[patch] && present[patch + 1] && measured[patch].sum() <= measured[patch + 1].sum() {
            falls = false
        }
        placement.rampFalls = falls
        placement.error = Self.unexplained(measured, reference, present: present)
    }

    /// How well one 3x3 matrix M and light that varies smoothly over the chart (a gain
    /// g = g0 + g1 column + g2 row) take the colours `x` measured at the 24 patches to the
    /// chart's `y`, in linear light: the share of y's variance left, least squares. The gain
    /// is what lets a chart lit from one side fit as well as one lit evenly.
    static func unexplained(_ x: [SIMD3<Double>], _ y: [SIMD3<Double>], present: [Bool]) -> Double {
        var gain = SIMD3<Double>(1, 0, 0)
        var m = Matrix3.zero
        for round in 0..<3 {
            var xx = Matrix3.zero, yx = Matrix3.zero
            for i in 0..<24 where present[i] {
                let g = round == 0 ? 1 : Self.gain(gain, patch: i)
                xx.addOuter(g * x[i], g * x[i])
                yx.addOuter(y[i], g * x[i])
            }
            guard let inverse = xx.regularInverse else { return .infinity }
            m = yx * inverse
            if round == 2 { break }
            // The gain that best scales each M x[i] onto y[i], weighted by |M x[i]|^2.
            var normal = Matrix3.zero, right = SIMD3<Double>.zero
            for i in 0..<24 where present[i] {
                let predicted = m * x[i]
                let weight = (predicted * predicted).sum()
                guard weight > 0 else { continue }
                let target = (predicted * y[i]).sum() / weight
                let basis = SIMD3(1, Double(i % 6), Double(i / 6))
                normal.addOuter(weight * basis, basis)
                right += weight * target * basis
            }
            guard let solve = normal.regularInverse else { break }
            gain = solve * right
        }
        var mean = SIMD3<Double>.zero, count = 0.0
        for i in 0..<24 where present[i] {
            mean += y[i]
            count += 1
        }
        mean /= count
        var residual = 0.0, total = 0.0
        for i in 0..<24 where present[i] {
            let e = Self.gain(gain, patch: i) * (m * x[i]) - y[i], d = y[i] - mean
            residual += (e * e).sum()
            total += (d * d).sum()
        }
        return residual / total
    }

    @inline(__always) private static func gain(_ g: SIMD3<Double>, patch: Int) -> Double {
        max(0.05, g.x + g.y * Double(patch % 6) + g.z * Double(patch / 6))
    }

    // MARK: - The chart

    private func finish(grid index: Int, placement: Placement, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
        let grid = grids[index]
        // Grid point back to the chart's column and row: the placement's steps are unit vectors
        // along a or b, so a dot product inverts them.
        pointsFrom.removeAll(keepingCapacity: true)
        pointsTo.removeAll(keepingCapacity: true)
        for k in 0..<grid.count {
            let m = gridMembers[index * 169 + k]
            let offset = SIMD2(Int(m.a), Int(m.b)) &- placement.origin
            let column = (offset &* placement.column).wrappedSum(), row = (offset &* placement.row).wrappedSum()
            guard (0..<6).contains(column), (0..<4).contains(row) else { continue }
            pointsFrom.append(SIMD2(Double(column), Double(row)))
            pointsTo.append(candidates[Int(m.candidate)].center)
        }
        let map =
            Projective.fit(from: pointsFrom, to: pointsTo, origin: grid.map.origin, scale: grid.map.scale, scratch: &normal)
            ?? grid.map.composed(placement)
        let half = Self.patchFraction / 2
        var residual = 0.0
        for (from, to) in zip(pointsFrom, pointsTo) {
            let d = map.map(from) - to
            residual += (d * d).sum()
        }
        let step = map.map(SIMD2(1, 0)) - map.map(SIMD2(0, 0)), down = map.map(SIMD2(0, 1)) - map.map(SIMD2(0, 0))
        let pitch = min((step * step).sum(), (down * down).sum()).squareRoot()
        chart.mirrored = cross(step, down) < 0
        chart.patchesSeen = pointsFrom.count
        chart.colorError = placement.error
        chart.residual = (residual / Double(max(1, pointsFrom.count))).squareRoot() / pitch
        chart.pitch = pitch
        chart.width = width
        chart.height = height
        for patch in 0..<24 {
            let c = Double(patch % 6), r = Double(patch / 6)
            chart.centers[patch] = map.map(SIMD2(c, r))
            chart.corners[4 * patch] = map.map(SIMD2(c - half, r - half))
            chart.corners[4 * patch + 1] = map.map(SIMD2(c + half, r - half))
            chart.corners[4 * patch + 2] = map.map(SIMD2(c + half, r + half))
            chart.corners[4 * patch + 3] = map.map(SIMD2(c - half, r + half))
        }
        measurePatches(map: map, rgb, width: width, height: height)
        // Sure when the colours fit closely, far better than any other way round, and the
        // patches found agree with the grid.
        let fit = max(0, 1 - placement.error / Self.notAChart)
        let margin = placement.runnerUp.isFinite ? max(0, 1 - placement.error / placement.runnerUp) : 1
        let seen = min(1, Double(pointsFrom.count) / 18)
        let geometry = max(0, 1 - chart.residual / 0.25)
        chart.confidence = min(1, (0.5 + 0.5 * fit) * margin * seen * (0.5 + 0.5 * geometry))
    }

    /// Each patch's mean and standard deviation (8-bit levels) over its middle: the part of the
    /// square within 0.3 of a step of its centre, away from the blurred edges.
    private func measurePatches(map: Projective, _ rgb: UnsafePointer<UInt8>, width: Int, height: Int) {
        guard let inverse = map.inverse else { return }
        let inner = 0.3
        for patch in 0..<24 {
            let c = Double(patch % 6), r = Double(patch / 6)
            var lo = SIMD2(Double.infinity, .infinity), hi = -lo
            for corner in 0..<4 {
                let p = map.map(SIMD2(c + (corner & 1 == 0 ? -inner : inner), r + (corner & 2 == 0 ? -inner : inner)))
                lo = pointwiseMin(lo, p)
                hi = pointwiseMax(hi, p)
            }
            let x0 = max(0, Int(lo.x)), x1 = min(width - 1, Int(hi.x)), y0 = max(0, Int(lo.y)), y1 = min(height - 1, Int(hi.y))
            var n = 0.0, sum = SIMD3<Double>.zero, squares = SIMD3<Double>.zero
            if x0 <= x1 && y0 <= y1 {
                for y in y0...y1 {
                    for x in x0...x1 {
                        let g = inverse.map(SIMD2(Double(x) + 0.5, Double(y) + 0.5))
                        guard abs(g.x - c) <= inner, abs(g.y - r) <= inner else { continue }
                        let p = rgb + 3 * (y * width + x)
                        let v = SIMD3(Double(p[0]), Double(p[1]), Double(p[2]))
                        n += 1
                        sum += v
                        squares += v * v
                    }
                }
            }
            if n == 0 {
                let p = chart.centers[patch]
                let x = min(width - 1, max(0, Int(p.x))), y = min(height - 1, max(0, Int(p.y)))
                let q = rgb + 3 * (y * width + x)
                chart.means[patch] = SIMD3(Double(q[0]), Double(q[1]), Double(q[2]))
                chart.deviations[patch] = .zero
                chart.counts[patch] = 1
                continue
            }
            let mean = sum / n
            chart.means[patch] = mean
            chart.deviations[patch] = (pointwiseMax(.zero, squares / n - mean * mean)).squareRoot()
            chart.counts[patch] = Int(n)
        }
    }
}

@inline(__always) private func cross(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double { a.x * b.y - a.y * b.x }

/// Where the chart is in one frame, in pixels (pixel (i, j) covers [i, i + 1) x [j, j + 1)).
public struct DetectedChart: Sendable {
    /// The 24 patch centres, patch 1 (dark skin) first.
    public internal(set) var centers = [SIMD2<Double>](repeating: .zero, count: 24)
    /// Four corners a patch, 96 in all: the patch's top left, top right, bottom right and
    /// bottom left as the chart is upright (dark skin at the top left).
    public internal(set) var corners = [SIMD2<Double>](repeating: .zero, count: 96)
    /// Each patch's mean and standard deviation over its middle, in levels (0...255).
    public internal(set) var means = [SIMD3<Double>](repeating: .zero, count: 24)
    public internal(set) var deviations = [SIMD3<Double>](repeating: .zero, count: 24)
    /// How many pixels each mean is over.
    public internal(set) var counts = [Int](repeating: 0, count: 24)
    /// 0...1: how closely the colours fit the chart's the way it was read, by how much that
    /// way beats every other, how many patches were seen as patches, and how well they lie
    /// on one grid.
    public internal(set) var confidence = 0.0
    /// Seen in a mirror (or printed mirrored): patch 1 to 6 runs anticlockwise from 1 to 19.
    public internal(set) var mirrored = false
    /// How many of the 24 patches were found as regions (the others placed by the grid).
    public internal(set) var patchesSeen = 0
    /// The colour fit's unexplained share (0 is perfect).
    public internal(set) var colorError = 0.0
    /// The root-mean-square distance of the regions found from their grid points, in steps.
    public internal(set) var residual = 0.0
    /// The shorter grid step, in pixels.
    public internal(set) var pitch = 0.0
    public internal(set) var width = 0
    public internal(set) var height = 0

    public init() {}
}

/// Why `ChartDetector` found no chart it can give.
public enum ChartDetectionFailure: Error, Hashable, Sendable, CustomStringConvertible {
    case noChart(candidates: Int)
    case twoCharts
    case unsure(confidence: Double)
    case outsideFrame

    /// A short reason, for a JSON line.
    public var reason: String {
        switch self {
        case .noChart: "no chart"
        case .twoCharts: "two charts"
        case .unsure: "unsure"
        case .outsideFrame: "outside the frame"
        }
    }

    public var description: String {
        switch self {
        case .noChart(let candidates):
            "no ColorChecker found (\(candidates) square patches seen, none on a 6 x 4 grid of the chart's colours): have the whole chart in view, at least 150 pixels wide, in even light, and not glaring"
        case .twoCharts:
            "two ColorCheckers found: have only one in view (or, to calibrate, give its corners with --corner)"
        case .unsure(let confidence):
            "a ColorChecker may be there, but the colours fit it too loosely to be sure (confidence \(DecimalText.fixed(confidence, 2)), \(DecimalText.fixed(ChartDetector.minimumConfidence, 2)) needed): light it evenly, lock exposure and white balance, bring it closer (or, to calibrate, give its corners with --corner)"
        case .outsideFrame:
            "a ColorChecker is there but part of it is outside the frame: have the whole chart in view"
        }
    }
}

extension ChartDetectionFailure: ExitStatusError {
    public var exitStatus: Int32 { 65 }
}
