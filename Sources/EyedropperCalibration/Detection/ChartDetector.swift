import Eyedropper

/// Finds a ColorChecker Classic 24 in an RGB24 frame, with no corners given: any roll, a tilt
/// away from the camera, seen directly or in a mirror, from about 150 pixels wide to filling the
/// frame.
///
/// How, in four steps, each cheap enough for a live frame:
/// 1. **Regions.** Neighbouring pixels whose colours differ by less than the frame's noise
///    allows are joined (union-find over the pixel grid, one pass; a second pass numbers the
///    regions). A patch is one region: the chart's dark gaps cut it off from its neighbours.
///    This is done on the frame and on each level of a pyramid (2 x 2 means, down to 160
///    pixels on the shorter side), because a patch's edge is as wide as the lens and the
///    camera's processing blur it, a few pixels whatever the chart's size: seen close up, a
///    patch's edge to the chart's dark gap is a ramp of steps each below the noise threshold,
///    and the region runs through the gap into the next patch. Halving the frame doubles each
///    step until the edge is one pixel wide again, and halves the noise as well.
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

    /// Per-pixel buffers over every level of the pyramid, kept between frames.
    private var pixelCapacity = 0
    var labels: UnsafeMutablePointer<Int32>
    var sizes: UnsafeMutablePointer<Int32>
    var candidateOfRegion: UnsafeMutablePointer<Int32>
    /// The levels above the frame, RGB24, one after the other.
    var pyramid: UnsafeMutablePointer<UInt8>
    var levels: [Level] = []
    var differenceHistogram = [Int](repeating: 0, count: 766)

    var moments: [Moments] = []
    // What the orientation steps read too (ChartDetector+Orientation.swift), kept between frames.
    var candidates: [Candidate] = []
    /// Grid slots (a, b) in -6...6 of the grid being grown: the candidate there, or -1.
    var slots = [Int32](repeating: -1, count: 169)
    var slotDistance = [Double](repeating: 0, count: 169)
    var normal = [Double](repeating: 0, count: 72)
    var pointsFrom: [SIMD2<Double>] = []
    var pointsTo: [SIMD2<Double>] = []
    var grids: [Grid] = []
    /// Per grid, how many members a grid being grown shares with it.
    var shared = [Int](repeating: 0, count: ChartDetector.maximumGrids)
    var gridMembers: [Member] = []
    var measured = [SIMD3<Double>](repeating: .zero, count: 24)
    var present = [Bool](repeating: false, count: 24)
    var member = [Bool](repeating: false, count: 24)
    var residuals = [Double](repeating: 0, count: 24)
    /// Scratch for medians.
    var sorted = [Double](repeating: 0, count: 169)
    /// The window of 24 grid points being placed: colour (linear), inside the frame, a
    /// candidate on it; indexed along the grid's a, then b.
    var windowColour = [SIMD3<Double>](repeating: .zero, count: 24)
    var windowInside = [Bool](repeating: false, count: 24)
    var windowMember = [Bool](repeating: false, count: 24)
    var windowCovered = [Bool](repeating: false, count: 24)
    var gapColours = [SIMD3<Double>](repeating: .zero, count: 96)

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
        pyramid = .allocate(capacity: 1)
        levels.reserveCapacity(16)
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
        pyramid.deallocate()
    }

    static let maximumGrids = 8

    /// Finds the chart in `pixels` (RGB24 rows, tightly packed, `width` x `height`); what it
    /// found is in `chart`. Throws when there is no chart, two, or one it cannot be sure of.
    public func detect(rgb24 pixels: UnsafeRawBufferPointer, width: Int, height: Int) throws(ChartDetectionFailure) {
        precondition(width > 0 && height > 0 && pixels.count >= width * height * 3)
        let rgb = pixels.baseAddress!.assumingMemoryBound(to: UInt8.self)
        reserve(width: width, height: height)
        candidates.removeAll(keepingCapacity: true)
        for index in levels.indices {
            if index > 0 { downsample(index, frame: rgb) }
            let level = levels[index]
            let image = index == 0 ? rgb : UnsafePointer(pyramid + level.rgbOffset)
            let threshold = noiseThreshold(image, width: level.width, height: level.height)
            let regions = label(
                image, width: level.width, height: level.height, threshold: threshold, labels: labels + level.offset,
                sizes: sizes + level.offset)
            findCandidates(level: index, regions: regions)
        }
        findGrids()
        var found: (grid: Int, fit: Placement)?
        var bestRefused: Placement?
        for index in grids.indices {
            guard let placement = place(grid: index, rgb, width: width, height: height) else { continue }
            guard Self.isChart(placement) else {
                if bestRefused.map({ placement.error < $0.error }) ?? true { bestRefused = placement }
                continue
            }
            // Two grids over one chart (grown from two seeds, one reaching past a hinge or a
            // gap) place it in one spot: that is one chart, read from the grid that fits better.
            let middle = Self.middle(of: placement, on: grids[index].map)
            if let current = found {
                let other = Self.middle(of: current.fit, on: grids[current.grid].map)
                let apart = ((middle.center - other.center) * (middle.center - other.center)).sum().squareRoot()
                guard apart < min(middle.pitch, other.pitch) else { throw .twoCharts }
                if placement.error >= current.fit.error { continue }
            }
            found = (index, placement)
        }
        guard let found else {
            if let bestRefused, bestRefused.mostOutside > Self.maximumHidden { throw .outsideFrame }
            throw .noChart(candidates: candidates.count)
        }
        finish(grid: found.grid, placement: found.fit, rgb, width: width, height: height)
        guard chart.confidence >= Self.minimumConfidence else { throw .unsure(confidence: chart.confidence) }
    }

    /// A placement is a chart when at most `maximumHidden` patches are hidden, the neutrals
    /// seen fall from white to black, and the colours fit the chart's this way round (a little
    /// loosely for a printed copy) far better than any other way.
    static func isChart(_ placement: Placement) -> Bool {
        placement.visibleCount >= 24 - maximumHidden && placement.rampFalls && placement.error <= notAChart
            && placement.error <= 0.5 * placement.runnerUp
    }

    /// A placement whose colours fit worse than this (the fit's unexplained share of the
    /// reference's variance) is not this chart: the right way round fits to a few hundredths.
    static let notAChart = 0.3

    /// The middle of the chart `placement` puts on a grid, and the step there, in pixels.
    static func middle(of placement: Placement, on map: Projective) -> (center: SIMD2<Double>, pitch: Double) {
        let o = SIMD2<Double>(placement.origin), c = SIMD2<Double>(placement.column), r = SIMD2<Double>(placement.row)
        let center = map.map(o + 2.5 * c + 1.5 * r), step = map.map(o + 3.5 * c + 1.5 * r) - center
        return (center, (step * step).sum().squareRoot())
    }

    /// Sizes the buffers for a frame of `width` x `height` and its pyramid; keeps them when
    /// they are large enough.
    private func reserve(width: Int, height: Int) {
        Self.levels(width: width, height: height, into: &levels)
        let pixels = levels.last.map { $0.offset + $0.width * $0.height } ?? 0
        let pyramidBytes = levels.last.map { $0.rgbOffset + 3 * $0.width * $0.height } ?? 0
        guard pixels > pixelCapacity else { return }
        labels.deallocate()
        sizes.deallocate()
        candidateOfRegion.deallocate()
        pyramid.deallocate()
        labels = .allocate(capacity: pixels)
        sizes = .allocate(capacity: pixels)
        candidateOfRegion = .allocate(capacity: pixels)
        pyramid = .allocate(capacity: max(1, pyramidBytes))
        pixelCapacity = pixels
    }
    /// Below this, `detect` refuses the chart as unsure.
    public static let minimumConfidence = 0.5
}
