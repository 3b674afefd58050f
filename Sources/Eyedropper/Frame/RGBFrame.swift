/// A converted RGB24 frame over memory it does not own, such as a sampler's buffer lent by
/// `ColorSampler.withRGB24`: non-copyable, so it cannot be kept past the call that lends it.
public struct RGBFrame: ~Copyable {
    /// Rows of R, G, B bytes, tightly packed.
    public let bytes: UnsafeRawBufferPointer
    public let width: Int
    public let height: Int

    /// `bytes` must hold `width` x `height` RGB24 pixels, tightly packed.
    public init(bytes: UnsafeRawBufferPointer, width: Int, height: Int) {
        precondition(
            width > 0 && height > 0 && bytes.count >= width * height * 3,
            "\(bytes.count) bytes cannot hold a \(width)x\(height) RGB24 image")
        self.bytes = bytes
        self.width = width
        self.height = height
    }

    public func pixel(_ x: Int, _ y: Int) -> RGB8 {
        let offset = (y * width + x) * 3
        return RGB8(r: bytes[offset], g: bytes[offset + 1], b: bytes[offset + 2])
    }

    /// The colours at `points`, each the pixel the point selects or the rounded mean of the patch
    /// of `radius` around it, with its statistics, as `ColorSampler.sample` gives them. Replaces the contents of
    /// `samples`, keeping its capacity.
    public func sample(at points: [SamplePoint], radius: Int, into samples: inout [ColorSample]) {
        samples.removeAll(keepingCapacity: true)
        for point in points {
            samples.append(
                ColorSample(
                    point: point,
                    statistics: ColorSampler.patchStatistics(
                        around: point, radius: radius, width: width, height: height
                    ) { pixel($0, $1) }))
        }
    }
}
