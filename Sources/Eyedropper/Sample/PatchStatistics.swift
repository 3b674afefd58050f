/// What the pixels of a patch say together: how many, their mean and spread per channel, and how
/// many of their channel values sit at 0 or 255 (where the true colour may lie beyond).
///
/// Kept as exact integer sums, so statistics of several frames are the sums added (`--average`)
/// and the standard deviation is computed without cancellation: never NaN, never below 0.
/// Overflow: a channel's sum of squares grows by at most 255^2 = 65025 a pixel, so Int64 holds
/// 1.4 x 10^14 pixels (a 1025 x 1025 patch, the largest, for 10^8 frames); the variance's
/// numerator is computed in Int128.
public struct PatchStatistics: Hashable, Sendable, Codable {
    /// Per-channel integer totals.
    public struct Totals: Hashable, Sendable, Codable {
        public var r = 0, g = 0, b = 0

        public init() {}
    }

    /// The pixels counted.
    public private(set) var count = 0
    /// Σ of each channel over the pixels.
    public private(set) var sums = Totals()
    /// Σ of each channel's square over the pixels.
    public private(set) var sumsOfSquares = Totals()
    /// How many channel values (up to 3 a pixel) are 0 or 255.
    public private(set) var clipped = 0

    /// No pixels yet.
    public init() {}

    /// One pixel.
    public init(_ color: RGB8) {
        add(color)
    }

    /// Counts one more pixel. Wrapping arithmetic: a patch holds at most 1025^2 pixels, whose sums
    /// of squares (at most 6.8 x 10^10) are far from Int's limit; `merge` is the checked way to
    /// grow past one patch.
    @inline(__always)
    mutating func add(_ color: RGB8) {
        let r = Int(color.r), g = Int(color.g), b = Int(color.b)
        count &+= 1
        sums.r &+= r
        sums.g &+= g
        sums.b &+= b
        sumsOfSquares.r &+= r &* r
        sumsOfSquares.g &+= g &* g
        sumsOfSquares.b &+= b &* b
        clipped &+= Self.clippedChannels(color)
    }

    /// How many of the pixel's channels are 0 or 255: `value + 1` wraps both to 0 or 1, so one
    /// comparison per channel and no branch.
    @inline(__always)
    static func clippedChannels(_ color: RGB8) -> Int {
        (color.r &+ 1 < 2 ? 1 : 0) &+ (color.g &+ 1 < 2 ? 1 : 0) &+ (color.b &+ 1 < 2 ? 1 : 0)
    }

    /// Adds another set of pixels, e.g. the same patch of a later frame.
    public mutating func merge(_ other: PatchStatistics) {
        count += other.count
        sums.r += other.sums.r
        sums.g += other.sums.g
        sums.b += other.sums.b
        sumsOfSquares.r += other.sumsOfSquares.r
        sumsOfSquares.g += other.sumsOfSquares.g
        sumsOfSquares.b += other.sumsOfSquares.b
        clipped += other.clipped
    }

    /// The mean of each channel, not rounded; 0 with no pixels.
    public var mean: (r: Double, g: Double, b: Double) {
        guard count > 0 else { return (0, 0, 0) }
        let n = Double(count)
        return (Double(sums.r) / n, Double(sums.g) / n, Double(sums.b) / n)
    }

    /// The population standard deviation of each channel: sqrt(n Σx² - (Σx)²) / n, the numerator
    /// an exact integer and never negative (Cauchy-Schwarz); 0 with no pixels.
    public var standardDeviation: (r: Double, g: Double, b: Double) {
        guard count > 0 else { return (0, 0, 0) }
        let n = Int128(count)
        func deviation(_ sum: Int, _ sumOfSquares: Int) -> Double {
            let numerator = n * Int128(sumOfSquares) - Int128(sum) * Int128(sum)
            return Double(numerator).squareRoot() / Double(count)
        }
        return (deviation(sums.r, sumsOfSquares.r), deviation(sums.g, sumsOfSquares.g), deviation(sums.b, sumsOfSquares.b))
    }

    /// The mean rounded to the nearest level (halves up), as `ColorSample.color` reports it.
    public var roundedMean: RGB8 {
        guard count > 0 else { return RGB8(r: 0, g: 0, b: 0) }
        func level(_ sum: Int) -> UInt8 { UInt8((sum + count / 2) / count) }
        return RGB8(r: level(sums.r), g: level(sums.g), b: level(sums.b))
    }
}
