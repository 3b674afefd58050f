import Eyedropper

/// Steele, Lea and Flood's SplitMix64: a tiny seeded generator, enough for frame bytes and
/// points, so every run measures the same content.
public struct SplitMix64 {
    private var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z &>> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z &>> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z &>> 31)
    }

    /// A uniform Double in 0..<1 (53 random bits).
    public mutating func nextUnit() -> Double { Double(next() >> 11) * 0x1p-53 }

    /// Fills every byte of `frame` (random samples, not a smooth pattern: no kernel can profit
    /// from repeated values).
    public mutating func fill(_ frame: FrameBuffer) {
        frame.withUnsafeMutableBytes { bytes in
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: next()) }
        }
    }
}
