/// The built-in test pattern, at any size: the frame source when there is no camera.
///
/// From the top: 75% colour bars over the upper two thirds (white, yellow, cyan, green, magenta,
/// red, blue, black, as SMPTE and vivid order them), a grey ramp from 0 to 255, and a full-
/// saturation hue sweep. Region edges fall on even pixels, so no 2x2 chroma block straddles two
/// colours; each pixel's nominal colour is known (`nominalColor`), and its stored Y'CbCr is that
/// colour in the pattern's colorimetry, rounded to the nearest code values.
public struct TestPattern: Hashable, Sendable {
    public let width: Int
    public let height: Int
    public let colorimetry: Colorimetry

    /// The eight 75% bars, left to right.
    public static let barColors: [RGB8] = [
        RGB8(r: 191, g: 191, b: 191), RGB8(r: 191, g: 191, b: 0), RGB8(r: 0, g: 191, b: 191),
        RGB8(r: 0, g: 191, b: 0), RGB8(r: 191, g: 0, b: 191), RGB8(r: 191, g: 0, b: 0),
        RGB8(r: 0, g: 0, b: 191), RGB8(r: 0, g: 0, b: 0),
    ]

    /// A pattern of `width` x `height`; colorimetry defaults to what a camera of that size would
    /// most likely send: BT.709 from 720 lines, BT.601 below, limited range.
    public init(width: Int, height: Int, colorimetry: Colorimetry? = nil) throws(FrameGeometryError) {
        guard width > 0, height > 0 else { throw .nonPositiveSize(width: width, height: height) }
        self.width = width
        self.height = height
        self.colorimetry = colorimetry ?? Colorimetry(matrix: height >= 720 ? .bt709 : .bt601, range: .limited)
    }

    /// The first row of the grey ramp and of the hue sweep (even, so chroma rows stay whole).
    var rampTop: Int { Self.even(height * 2 / 3) }
    var sweepTop: Int { Self.even(height * 5 / 6) }

    /// Which bar column `x` lies in.
    public func barIndex(x: Int) -> Int {
        var index = 0
        while index < 7 && x >= Self.even((index + 1) * width / 8) { index += 1 }
        return index
    }

    /// The colour the pattern means at pixel (`x`, `y`).
    public func nominalColor(x: Int, y: Int) -> RGB8 {
        if y < rampTop { return Self.barColors[barIndex(x: x)] }
        if y < sweepTop {
            let level = UInt8(width == 1 ? 0 : (x * 255 + (width - 1) / 2) / (width - 1))
            return RGB8(r: level, g: level, b: level)
        }
        return Self.hue(degrees: Double(x) * 360 / Double(width))
    }

    /// A new buffer of `layout` holding the pattern.
    public func makeFrameBuffer(layout: PixelLayout = .i420) throws(FrameGeometryError) -> FrameBuffer {
        let buffer = try FrameBuffer(layout: layout, width: width, height: height, colorimetry: colorimetry)
        render(into: buffer)
        return buffer
    }

    /// Draws the pattern into `buffer`, which must be this pattern's size.
    public func render(into buffer: FrameBuffer) {
        precondition(
            buffer.width == width && buffer.height == height, "buffer is \(buffer.width)x\(buffer.height), pattern \(width)x\(height)")
        buffer.colorimetry = colorimetry
        for y in 0..<height {
            for x in 0..<width {
                var sample = colorimetry.ycbcr(nominalColor(x: x, y: y))
                // The block's chroma comes from its top-left pixel (its region's colour).
                let block = colorimetry.ycbcr(nominalColor(x: x & ~1, y: y & ~1))
                sample.cb = block.cb
                sample.cr = block.cr
                buffer.set(x: x, y: y, to: sample)
            }
        }
    }

    /// Full-saturation, full-value hue; 0 red, 120 green, 240 blue.
    static func hue(degrees: Double) -> RGB8 {
        let h = degrees.truncatingRemainder(dividingBy: 360) / 60
        let fraction = h - h.rounded(.down)
        let rising = Colorimetry.quantize(255 * fraction), falling = Colorimetry.quantize(255 * (1 - fraction))
        switch Int(h) {
        case 0: return RGB8(r: 255, g: rising, b: 0)
        case 1: return RGB8(r: falling, g: 255, b: 0)
        case 2: return RGB8(r: 0, g: 255, b: rising)
        case 3: return RGB8(r: 0, g: falling, b: 255)
        case 4: return RGB8(r: rising, g: 0, b: 255)
        default: return RGB8(r: 255, g: 0, b: falling)
        }
    }

    private static func even(_ value: Int) -> Int { value & ~1 }
}
