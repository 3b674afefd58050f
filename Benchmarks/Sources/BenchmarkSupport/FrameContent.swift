import Eyedropper

/// What a benchmark frame shows. Conversion costs the same whatever the pixels are; JPEG does not:
/// flat areas compress in a fraction of the time noise takes, so JPEG rows say which they used.
public enum FrameContent: String, CaseIterable, Sendable {
    /// Seeded random bytes: no kernel can profit from repeated values (the worst case for JPEG).
    case random
    /// Eyedropper's test pattern (colour bars, a grey ramp, a hue sweep): large flat areas, the
    /// easy case for JPEG, and what `eyedropper snapshot` writes without a camera.
    case pattern
    /// The test pattern with seeded sensor-like noise, -7...7 levels (triangular, sigma about 3.2)
    /// on every sample: nearer what a camera sends than either of the others.
    case noisyPattern = "noisy-pattern"

    /// A new frame of this content; random frames have no colorimetry of their own, so they take
    /// `colorimetry` (default BT.709 limited), patterns take it too when given.
    public func makeFrame(
        layout: PixelLayout = .i420, width: Int, height: Int, colorimetry: Colorimetry? = nil
    ) -> FrameBuffer {
        do {
            switch self {
            case .random:
                let frame = try FrameBuffer(
                    layout: layout, width: width, height: height,
                    colorimetry: colorimetry ?? .bt709Limited)
                var generator = SplitMix64(seed: 0x4579_6564_726f_7070)
                generator.fill(frame)
                return frame
            case .pattern, .noisyPattern:
                let frame = try TestPattern(width: width, height: height, colorimetry: colorimetry)
                    .makeFrameBuffer(layout: layout)
                if self == .noisyPattern {
                    var generator = SplitMix64(seed: 0x4e6f_6973_7946_7261)
                    generator.addNoise(to: frame)
                }
                return frame
            }
        } catch {
            fatalError("cannot make a \(width)x\(height) \(rawValue) frame: \(error)")
        }
    }
}

extension SplitMix64 {
    /// Adds -7...7 (the sum of two 0...7 draws, less 7) to every sample of `frame`, clamped.
    mutating func addNoise(to frame: FrameBuffer) {
        frame.withUnsafeMutableBytes { bytes in
            for index in bytes.indices {
                let draw = next()
                let noise = Int(draw & 7) + Int((draw >> 3) & 7) - 7
                bytes[index] = UInt8(clamping: Int(bytes[index]) + noise)
            }
        }
    }

    /// `count` points spread at random over the frame, from their own seed, so every suite that
    /// asks for n points samples the same n spots, in no row or cache-line order.
    public static func samplePoints(_ count: Int) -> [SamplePoint] {
        var generator = SplitMix64(seed: 0x5361_6d70_6c65_0001)
        return (0..<count).map { _ in
            try! SamplePoint(x: generator.nextUnit(), y: generator.nextUnit())
        }
    }
}
