/// An 8-bit RGB image that owns its pixels: what a PPM file or a decoded JPEG holds, and what tests
/// compare converted frames with. `RGBFrame` is the borrowed counterpart a sampler lends.
public struct RGBImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// R, G, B bytes, rows tightly packed.
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(
            width > 0 && height > 0 && pixels.count == 3 * width * height,
            "\(pixels.count) bytes are not the pixels of a \(width)x\(height) RGB image")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The colour at (`x`, `y`), from the top-left corner.
    public func pixel(x: Int, y: Int) -> RGB8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let offset = 3 * (y * width + x)
        return RGB8(r: pixels[offset], g: pixels[offset + 1], b: pixels[offset + 2])
    }
}
