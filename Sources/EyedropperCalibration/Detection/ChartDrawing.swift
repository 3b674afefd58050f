import Eyedropper

#if canImport(Glibc)
    import Glibc
#endif

/// A ColorChecker Classic 24 drawn into an RGB24 image with its published colours as sRGB, at
/// any place, roll and perspective: what the detector's tests and benchmark look for, and a
/// way to try `ChartDetector` without a chart. Drawn as the card is made (millimetres): 38 mm
/// patches 6 mm apart on a 280 x 216 mm black body, each pixel the mean of 4 x 4 samples.
public enum ChartDrawing {
    /// The card's size and its first patch's top-left corner, in millimetres.
    static let size = SIMD2(280.0, 216.0)
    static let margin = SIMD2(11.0, 23.0)
    static let patch = 38.0, pitch = 44.0
    /// The body's colour: a flat 2.5% reflectance, as sRGB.
    static let body = RGB8(r: 44, g: 44, b: 44)

    /// Where the patch centres fall (pixels, patch 1 first) for a chart whose body has its
    /// corners at `corners`: top left, top right, bottom right, bottom left of the upright chart.
    public static func patchCenters(corners: [SIMD2<Double>]) -> [SIMD2<Double>] {
        guard let map = bodyMap(corners) else { return [] }
        return (0..<24).map { index in
            let column = Double(index % 6), row = Double(index / 6)
            return map.map(margin + SIMD2(column * pitch + patch / 2, row * pitch + patch / 2))
        }
    }

    /// Draws the chart into `pixels` (RGB24 rows of `width`), its body's corners at `corners`.
    /// `patchFraction`: the patch's side over the step, each patch centred where the Classic's
    /// is (0.86 for the Classic, about 0.76 for a Classic Mini or a Passport).
    public static func draw(
        into pixels: inout [UInt8], width: Int, height: Int, corners: [SIMD2<Double>],
        reference: ChartReference = .colorChecker2014, patchFraction: Double = 38.0 / 44.0
    ) {
        precondition(pixels.count == 3 * width * height && corners.count == 4)
        guard let inverse = Homography(from: corners, to: Self.bodyCorners) else { return }
        let colors = reference.lab.map { CalibratedColor(xyz: CIEXYZ($0)).srgb }
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = max(0, Int(xs.min()!) - 1), x1 = min(width - 1, Int(xs.max()!) + 1)
        let y0 = max(0, Int(ys.min()!) - 1), y1 = min(height - 1, Int(ys.max()!) + 1)
        guard x0 <= x1, y0 <= y1 else { return }
        for y in y0...y1 {
            for x in x0...x1 {
                var sum = SIMD3<Double>.zero, covered = 0.0
                for j in 0..<4 {
                    for i in 0..<4 {
                        let point = inverse.map(SIMD2(Double(x) + (Double(i) + 0.5) / 4, Double(y) + (Double(j) + 0.5) / 4))
                        guard point.x >= 0, point.y >= 0, point.x < size.x, point.y < size.y else { continue }
                        covered += 1
                        let local = point - margin
                        let column = (local.x / pitch).rounded(.down), row = (local.y / pitch).rounded(.down)
                        let inset = (patch - patchFraction * pitch) / 2
                        if column >= 0, column < 6, row >= 0, row < 4, abs(local.x - column * pitch - patch / 2) < patch / 2 - inset,
                            abs(local.y - row * pitch - patch / 2) < patch / 2 - inset
                        {
                            sum += colors[Int(row) * 6 + Int(column)]
                        } else {
                            sum += SIMD3(Double(body.r), Double(body.g), Double(body.b))
                        }
                    }
                }
                guard covered > 0 else { continue }
                let offset = 3 * (y * width + x)
                let under = SIMD3(Double(pixels[offset]), Double(pixels[offset + 1]), Double(pixels[offset + 2]))
                let value = (sum + under * (16 - covered)) / 16
                pixels[offset] = UInt8(value.x.rounded())
                pixels[offset + 1] = UInt8(value.y.rounded())
                pixels[offset + 2] = UInt8(value.z.rounded())
            }
        }
    }

    /// The body's corners on the card, top left first, clockwise as upright.
    static let bodyCorners = [SIMD2(0.0, 0.0), SIMD2(size.x, 0), size, SIMD2(0, size.y)]

    private static func bodyMap(_ corners: [SIMD2<Double>]) -> Homography? {
        Homography(from: bodyCorners, to: corners)
    }

    /// The corners of a chart `chartWidth` pixels wide centred at `center`, rolled by `roll`
    /// degrees (clockwise on screen), its far side (`farSide`: 0 top, 1 right, 2 bottom, 3 left
    /// as upright) shortened by `keystone` (0...1), and seen in a mirror if `mirrored`.
    public static func corners(
        center: SIMD2<Double>, chartWidth: Double, roll: Double, keystone: Double = 0, farSide: Int = 0,
        mirrored: Bool = false
    ) -> [SIMD2<Double>] {
        let half = SIMD2(chartWidth, chartWidth * size.y / size.x) / 2
        var points = [SIMD2(-half.x, -half.y), SIMD2(half.x, -half.y), SIMD2(half.x, half.y), SIMD2(-half.x, half.y)]
        let side = [farSide % 4, (farSide + 1) % 4]
        let middle = (points[side[0]] + points[side[1]]) / 2
        for index in side { points[index] = middle + (points[index] - middle) * (1 - keystone) }
        let angle = roll * Double.pi / 180
        let (c, s) = (cos(angle), sin(angle))
        return points.map { p in
            let q = mirrored ? SIMD2(-p.x, p.y) : p
            return center + SIMD2(c * q.x - s * q.y, s * q.x + c * q.y)
        }
    }
}
