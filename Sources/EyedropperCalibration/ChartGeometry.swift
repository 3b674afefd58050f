import Eyedropper

/// Where a chart's patches lie in a frame: the perspective transform (homography) that takes the
/// chart's grid of patch centres to the four corner patches' centres the user gave, so a chart
/// held at an angle is read where it is.
public struct ChartGeometry: Hashable, Sendable {
    /// The centres of patches 1 (dark skin), 6 (bluish green), 24 (black) and 19 (white), in
    /// that order: the chart's corners walked round, top left first when it is upright.
    public let corners: [SamplePoint]
    /// The 24 patch centres, patch 1 first.
    public let centers: [SamplePoint]
    /// The shortest distance between neighbouring patch centres, in pixels of the frame the
    /// geometry was made for: what bounds a sampling window that stays on its patch.
    public let pitch: Double
    /// Each patch's outline, four corners a patch (patch 1 first): its top left, top right,
    /// bottom right and bottom left as the chart is upright, a patch being 38/44 of the step
    /// between centres wide (the ColorChecker's 38 mm patches on a 44 mm pitch).
    public let patchCorners: [SamplePoint]

    /// The geometry of the chart whose corner patches are centred at `corners` in a frame of
    /// `width` x `height`: fails when the corners are not a convex quadrilateral in that order
    /// (a corner given twice, three nearly in a line, two swapped).
    public init(corners: [SamplePoint], width: Int, height: Int) throws(ChartGeometryError) {
        guard corners.count == 4 else { throw .cornerCount(corners.count) }
        // Pixels, so that "convex" and the pitch mean what they look like in a non-square frame.
        try self.init(pixelCorners: corners.map { SIMD2($0.x * Double(width), $0.y * Double(height)) }, width: width, height: height)
    }

    /// The geometry through corner patches centred at `points`, in pixels; a corner may lie
    /// beyond the frame (a found chart with a corner patch cut off), and then the patches
    /// beyond it too: their centres and outlines are given clamped to the frame's edge, and
    /// `corners` as well.
    private init(pixelCorners points: [SIMD2<Double>], width: Int, height: Int) throws(ChartGeometryError) {
        try Self.checkConvex(points)
        let columns = Double(ChartReference.columns - 1), rows = Double(ChartReference.rows - 1)
        guard
            let homography = Homography(
                from: [SIMD2(0, 0), SIMD2(columns, 0), SIMD2(columns, rows), SIMD2(0, rows)], to: points)
        else { throw .notConvex }
        var centers: [SamplePoint] = [], pixels: [SIMD2<Double>] = []
        for index in 0..<ChartReference.patchCount {
            let grid = SIMD2(Double(index % ChartReference.columns), Double(index / ChartReference.columns))
            let pixel = homography.map(grid)
            // Every centre lies inside the corners' quadrilateral, so inside the frame when the
            // corners are: the clamp absorbs rounding at a corner given as exactly 0 or 1, and
            // puts a hidden patch beyond the frame on its edge.
            let x = min(max(pixel.x / Double(width), 0), 1), y = min(max(pixel.y / Double(height), 0), 1)
            centers.append(try! SamplePoint(x: x, y: y))
            pixels.append(pixel)
        }
        var pitch = Double.infinity
        for index in 0..<ChartReference.patchCount {
            let column = index % ChartReference.columns
            if column + 1 < ChartReference.columns { pitch = min(pitch, Self.distance(pixels[index], pixels[index + 1])) }
            if index + ChartReference.columns < ChartReference.patchCount {
                pitch = min(pitch, Self.distance(pixels[index], pixels[index + ChartReference.columns]))
            }
        }
        let half = ChartDetector.patchFraction / 2
        var outlines: [SamplePoint] = []
        for index in 0..<ChartReference.patchCount {
            let grid = SIMD2(Double(index % ChartReference.columns), Double(index / ChartReference.columns))
            for offset in [SIMD2(-half, -half), SIMD2(half, -half), SIMD2(half, half), SIMD2(-half, half)] {
                let pixel = homography.map(grid + offset)
                outlines.append(
                    try! SamplePoint(x: min(max(pixel.x / Double(width), 0), 1), y: min(max(pixel.y / Double(height), 0), 1)))
            }
        }
        self.corners = points.map { p in
            try! SamplePoint(x: min(max(p.x / Double(width), 0), 1), y: min(max(p.y / Double(height), 0), 1))
        }
        self.centers = centers
        self.pitch = pitch
        self.patchCorners = outlines
    }

    /// The geometry of a chart the detector found: through the centres of its corner patches,
    /// which give the same perspective map as all 24 (a homography is fixed by four points).
    public init(detected chart: DetectedChart) throws(ChartGeometryError) {
        try self.init(pixelCorners: [0, 5, 23, 18].map { chart.centers[$0] }, width: chart.width, height: chart.height)
    }

    /// A sampling radius that keeps each (2r + 1)^2 window well inside its patch: a fifth of the
    /// pitch (a ColorChecker patch is about 0.85 of the pitch wide, so the window is less than
    /// half the patch and a tilt or a corner a few pixels off still leaves it on the patch).
    public var defaultRadius: Int { max(0, min(SamplingError.maximumRadius, Int(pitch / 5))) }

    private static func distance(_ a: SIMD2<Double>, _ b: SIMD2<Double>) -> Double {
        let d = a - b
        return (d * d).sum().squareRoot()
    }

    /// Every turn of the walk p0 → p1 → p2 → p3 → p0 bends the same way, and none is straight: the
    /// quadrilateral is convex and its corners are in order (either way round: a mirrored camera
    /// sees the chart mirrored).
    private static func checkConvex(_ p: [SIMD2<Double>]) throws(ChartGeometryError) {
        var sign = 0.0
        var scale = 0.0
        for i in 0..<4 { scale = max(scale, distance(p[i], p[(i + 1) % 4])) }
        guard scale > 0 else { throw .notConvex }
        for i in 0..<4 {
            let a = p[(i + 1) % 4] - p[i], b = p[(i + 2) % 4] - p[(i + 1) % 4]
            let cross = a.x * b.y - a.y * b.x
            // A turn of a degree or two (relative to the longest side) is a straight line: three
            // corners nearly in a line squash the chart into a sliver.
            guard abs(cross) > scale * scale * 1e-2 else { throw .notConvex }
            if sign == 0 { sign = cross } else if (sign > 0) != (cross > 0) { throw .notConvex }
        }
    }
}

/// A projective map of the plane, fixed by four points and their images.
struct Homography: Hashable, Sendable {
    /// h11 h12 h13 h21 h22 h23 h31 h32, with h33 = 1.
    let h: [Double]

    /// The map taking each of `from` to the same place in `to` (4 each); nil when three of
    /// either lie on a line.
    init?(from: [SIMD2<Double>], to: [SIMD2<Double>]) {
        var a: [Double] = [], b: [Double] = []
        for (p, q) in zip(from, to) {
            a += [p.x, p.y, 1, 0, 0, 0, -p.x * q.x, -p.y * q.x]
            b.append(q.x)
            a += [0, 0, 0, p.x, p.y, 1, -p.x * q.y, -p.y * q.y]
            b.append(q.y)
        }
        guard let h = LeastSquares.solve(a, b) else { return nil }
        self.h = h
    }

    func map(_ p: SIMD2<Double>) -> SIMD2<Double> {
        let w = h[6] * p.x + h[7] * p.y + 1
        return SIMD2((h[0] * p.x + h[1] * p.y + h[2]) / w, (h[3] * p.x + h[4] * p.y + h[5]) / w)
    }
}

/// Corners that do not give a chart in the frame.
public enum ChartGeometryError: Error, Hashable, Sendable, CustomStringConvertible {
    case cornerCount(Int)
    case notConvex

    public var description: String {
        switch self {
        case .cornerCount(let count):
            "give 4 --corner points, not \(count): the centres of patches 1 (dark skin), 6 (bluish green), 24 (black) and 19 (white), in that order"
        case .notConvex:
            "the 4 corners are not a convex quadrilateral in the order patch 1 (dark skin), 6 (bluish green), 24 (black), 19 (white): check that none is given twice and that they go round the chart"
        }
    }
}

extension ChartGeometryError: ExitStatusError {
    public var exitStatus: Int32 { 64 }
}
