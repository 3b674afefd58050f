import Eyedropper
import EyedropperCalibration

#if canImport(Glibc)
    import Glibc
#endif

/// A camera that is not colorimetric: its own primaries (a 3 x 3 of XYZ with cross-talk), white
/// balance off by 15% in red and blue, a tone curve that is a power 1/1.9 over a 2% pedestal, not
/// sRGB's, and noise of ±3 levels on each pixel.
public struct SimulatedCamera {
    public var matrix: [[Double]] = [[0.0115, 0.0030, -0.0025], [-0.0045, 0.0140, 0.0012], [0.0006, -0.0022, 0.0118]]
    public var gains = SIMD3(1.15, 1.0, 0.85)
    public var exposure = 0.7
    /// Each channel's curve is a power 1 / exponent (one curve for all three, as a camera's).
    public var exponents = SIMD3<Double>(repeating: 1.9)
    /// A wave added to the curve, in camera value (0: none): `wave` sin(6π p), p the power law's
    /// output, three periods over the range, so the curve bends between the neutral patches and
    /// still rises while `wave` < 1 / (6π).
    public var wave = 0.0
    /// The camera value of no light (0...1): the curve rises from it.
    public var pedestal = 0.02
    public var seed: UInt64 = 1

    public init(seed: UInt64 = 1) { self.seed = seed }

    /// Camera value 0...1 of each channel for XYZ (Y = 100 white), lit at `light` (1: as the
    /// exposure was set for).
    public func camera(_ xyz: CIEXYZ, light: Double = 1) -> SIMD3<Double> {
        let v = [xyz.x, xyz.y, xyz.z]
        var out = SIMD3<Double>()
        for c in 0..<3 {
            let linear = max(0, (0..<3).reduce(0) { $0 + matrix[c][$1] * v[$1] }) * gains[c] * exposure * light
            let power = pow(linear, 1 / exponents[c])
            out[c] = min(1, pedestal + (1 - pedestal) * (power + wave * sin(6 * Double.pi * power)))
        }
        return out
    }

    /// 400 noisy pixels of each patch of `lab` (patch 1 first), under `light`.
    public func readings(_ lab: [CIELab], light: ChartLight = .even) -> [PatchStatistics] {
        var random = TestRandom(seed: seed)
        return lab.indices.map { index in
            let value = camera(CIEXYZ(lab[index], white: .d50), light: light.gain(patch: index)) * 255
            var statistics = PatchStatistics()
            for _ in 0..<400 {
                func level(_ v: Double) -> UInt8 {
                    let noise = Double(random.next() % 7) - 3
                    return UInt8(min(255, max(0, (v + noise).rounded())))
                }
                statistics.merge(PatchStatistics(RGB8(r: level(value.x), g: level(value.y), b: level(value.z))))
            }
            return statistics
        }
    }
}

/// A .y4m of a ColorChecker as `camera` sees it: the chart upright, its 24 patches (0.8 of the
/// pitch wide) on a black body, on a mid-grey background, `frames` frames of 4:2:0 BT.601
/// limited range with ±2 levels of noise per pixel. Returns the corner patch centres in the
/// order `calibrate --corner` takes them: patches 1, 6, 24, 19.
@discardableResult
public func writeChartY4M(path: String, camera: SimulatedCamera, width: Int = 640, height: Int = 480, frames: Int = 3) throws
    -> [SamplePoint]
{
    let values = ChartReference.colorChecker2014.lab.map { camera.camera(CIEXYZ($0, white: .d50)) * 255 }
    let pitch = Double(width) * 0.7 / 6
    let left = Double(width) * 0.15, top = Double(height) / 2 - 2 * pitch
    func rgb(_ x: Int, _ y: Int) -> SIMD3<Double> {
        let u = (Double(x) + 0.5 - left) / pitch, v = (Double(y) + 0.5 - top) / pitch
        guard u >= -0.2, u < 6.2, v >= -0.2, v < 4.2 else { return SIMD3(128, 128, 128) }
        let column = Int(u.rounded(.down)), row = Int(v.rounded(.down))
        guard (0..<6).contains(column), (0..<4).contains(row), u - Double(column) > 0.1, u - Double(column) < 0.9,
            v - Double(row) > 0.1, v - Double(row) < 0.9
        else { return SIMD3(20, 20, 20) }
        return values[row * 6 + column]
    }
    var random = TestRandom(seed: camera.seed)
    var frameBytes: [[UInt8]] = []
    for _ in 0..<frames {
        var luma = [UInt8](repeating: 0, count: width * height)
        var cb = [Double](repeating: 0, count: (width / 2) * (height / 2)), cr = cb
        for y in 0..<height {
            for x in 0..<width {
                var c = rgb(x, y)
                for channel in 0..<3 { c[channel] = min(255, max(0, c[channel] + Double(random.next() % 5) - 2)) }
                let n = c / 255
                luma[y * width + x] = UInt8((16 + 65.481 * n.x + 128.553 * n.y + 24.966 * n.z).rounded())
                let index = (y / 2) * (width / 2) + x / 2
                cb[index] += (128 - 37.797 * n.x - 74.203 * n.y + 112 * n.z) / 4
                cr[index] += (128 + 112 * n.x - 93.786 * n.y - 18.214 * n.z) / 4
            }
        }
        frameBytes.append(luma + cb.map { UInt8($0.rounded()) } + cr.map { UInt8($0.rounded()) })
    }
    try ScratchDirectory.write(
        y4mBytes(header: "YUV4MPEG2 W\(width) H\(height) F30:1 Ip A1:1 C420jpeg XCOLORRANGE=LIMITED\n", frames: frameBytes), to: path)
    func center(_ column: Int, _ row: Int) -> SamplePoint {
        try! SamplePoint(
            x: (left + (Double(column) + 0.5) * pitch) / Double(width), y: (top + (Double(row) + 0.5) * pitch) / Double(height))
    }
    return [center(0, 0), center(5, 0), center(5, 3), center(0, 3)]
}
