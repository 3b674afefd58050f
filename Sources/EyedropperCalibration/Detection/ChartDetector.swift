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
    let reference: [SIMD3<Double>]
    let linear: [Double]

    private var pixelCapacity = 0
    private var labels: UnsafeMutablePointer<Int32>
    private var sizes: UnsafeMutablePointer<Int32>
    private var candidateOfRegion: UnsafeMutablePointer<Int32>

    private var moments: [Moments] = []
    // What the orientation steps read too (ChartDetector+Orientation.swift), kept between frames.
    var candidates: [Candidate] = []
    /// Grid slots (a, b) in -6...6 of the grid being grown: the candidate there, or -1.
    private var slots = [Int32](repeating: -1, count: 169)
    private var slotDistance = [Double](repeating: 0, count: 169)
    var normal = [Double](repeating: 0, count: 72)
    var pointsFrom: [SIMD2<Double>] = []
    var pointsTo: [SIMD2<Double>] = []
    var grids: [Grid] = []
    var gridMembers: [Member] = []
    var measured = [SIMD3<Double>](repeating: .zero, count: 24)
    var present = [Bool](repeating: false, count: 24)

    /// The chart the last `detect` found: valid after it returned without throwing.
    public internal(set) var chart = DetectedChart()

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
        var n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0
    }

    struct Candidate {
        var center: SIMD2<Double>
        var area: Double
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
                    moments[Int(candidate)].n += 1
                    moments[Int(candidate)].sx += x
                    moments[Int(candidate)].sy += y
                    moments[Int(candidate)].sxx += x * x
                    moments[Int(candidate)].sxy += x * y
                    moments[Int(candidate)].syy += y * y
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
                Candidate(center: SIMD2(mx + 0.5, my + 0.5), area: n, grid: -1))
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
}
