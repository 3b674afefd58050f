/// The statistics of a patch's pixels in plain Double arithmetic, the deviation in two passes:
/// the independent reference the sampler's integer sums are checked against.
public struct ReferenceStatistics {
    public let n: Int
    public let mean: [Double]
    /// The population standard deviation of each channel.
    public let sd: [Double]
    /// How many channel values are 0 or 255.
    public let clipped: Int
    /// The mean rounded to the nearest level, halves up.
    public let levels: [Int]

    /// `values`: one array per channel (r, g, b), a value per pixel.
    public init(values: [[Double]]) {
        n = values[0].count
        clipped = values.joined().filter { $0 == 0 || $0 == 255 }.count
        let mean = values.map { $0.reduce(0, +) / Double(values[0].count) }
        sd = zip(values, mean).map { channel, mean in
            (channel.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(channel.count)).squareRoot()
        }
        levels = mean.map { Int(($0 + 0.5).rounded(.down)) }
        self.mean = mean
    }
}
