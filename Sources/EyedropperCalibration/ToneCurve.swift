import Eyedropper

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A camera's tone curve undone: camera value (0...1) to a linear value proportional to the light,
/// one curve per channel, fitted to the chart's neutral patches rather than assumed (webcams' curves
/// are not sRGB's, and their white balance gives each channel its own).
///
/// Each channel passes through its neutral patches, (camera value, linear value), as a monotone
/// cubic in log-log space (Fritsch and Carlson 1980: piecewise Hermite with slopes that keep it
/// rising between every pair of points), and continues beyond the darkest and lightest as the
/// power law of its end slope, so 0 maps to 0 and the curve rises everywhere. A power law is a
/// straight line in log-log space and comes out exactly; a toe or a highlight shoulder (which a
/// single power or a quadratic cannot follow) bends it between the patches that show it.
public struct ToneCurve: Hashable, Sendable, Codable {
    public struct Channel: Hashable, Sendable, Codable {
        /// The points the curve passes through, [camera value, linear value], both rising.
        public let points: [[Double]]
        /// ln of each point's camera value and linear value, and the curve's slope there.
        private let x: [Double], y: [Double], slopes: [Double]

        public init(points: [[Double]]) throws(ToneCurveError) {
            guard points.count >= 2, points.allSatisfy({ $0.count == 2 && $0[0] > 0 && $0[1] > 0 && $0[0] <= 1 && $0[1].isFinite })
            else { throw .points }
            for i in 1..<points.count {
                guard points[i][0] > points[i - 1][0] * (1 + 1e-9) else { throw .flat }
                guard points[i][1] > points[i - 1][1] else { throw .notRising }
            }
            self.points = points
            x = points.map { log($0[0]) }
            y = points.map { log($0[1]) }
            slopes = Self.monotoneSlopes(x: x, y: y)
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                try self.init(points: container.decode([[Double]].self, forKey: .points))
            } catch let error as ToneCurveError {
                throw DecodingError.dataCorruptedError(forKey: .points, in: container, debugDescription: error.description)
            }
        }

        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(points, forKey: .points)
        }

        private enum CodingKeys: String, CodingKey { case points }

        /// Fritsch-Carlson: the harmonic mean of the neighbouring secants inside (0 where the
        /// secants disagree in sign, which rising points never do), the secant at the ends.
        private static func monotoneSlopes(x: [Double], y: [Double]) -> [Double] {
            let n = x.count
            var widths: [Double] = [], secants: [Double] = []
            for i in 0..<n - 1 {
                let width: Double = x[i + 1] - x[i]
                widths.append(width)
                secants.append((y[i + 1] - y[i]) / width)
            }
            var slopes = [Double](repeating: 0, count: n)
            slopes[0] = secants[0]
            slopes[n - 1] = secants[n - 2]
            for i in 1..<n - 1 {
                let left: Double = secants[i - 1], right: Double = secants[i]
                let w1: Double = 2 * widths[i] + widths[i - 1], w2: Double = widths[i] + 2 * widths[i - 1]
                slopes[i] = left * right <= 0 ? 0 : (w1 + w2) / (w1 / left + w2 / right)
            }
            return slopes
        }

        /// The linear value of camera value `v`.
        @inline(__always)
        public func linear(_ v: Double) -> Double {
            guard v > 0 else { return 0 }
            let t = log(v), last = x.count - 1
            if t <= x[0] { return exp(y[0] + slopes[0] * (t - x[0])) }
            if t >= x[last] { return exp(y[last] + slopes[last] * (t - x[last])) }
            var i = 0
            while t > x[i + 1] { i += 1 }
            let h = x[i + 1] - x[i], s = (t - x[i]) / h
            let s2 = s * s, s3 = s2 * s
            let value =
                (2 * s3 - 3 * s2 + 1) * y[i] + (s3 - 2 * s2 + s) * h * slopes[i]
                + (-2 * s3 + 3 * s2) * y[i + 1] + (s3 - s2) * h * slopes[i + 1]
            return exp(value)
        }

        /// The curve through (camera value, linear value) pairs, in any order.
        static func fit(camera: [Double], linear: [Double]) throws(ToneCurveError) -> Channel {
            let pairs = zip(camera, linear).filter { $0.0 > 0 && $0.1 > 0 }.sorted { $0.0 < $1.0 }
            guard pairs.count >= 2 else { throw .tooFewNeutrals(pairs.count) }
            return try Channel(points: pairs.map { [min($0.0, 1), $0.1] })
        }
    }

    public let red: Channel
    public let green: Channel
    public let blue: Channel

    public init(red: Channel, green: Channel, blue: Channel) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Linear values of camera values 0...1.
    @inline(__always)
    public func linear(_ camera: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(red.linear(camera.x), green.linear(camera.y), blue.linear(camera.z))
    }

    /// The curves that take each channel's camera values of the neutral patches to `linear`,
    /// the same channel of what the patches should read, linear.
    static func fit(camera: [SIMD3<Double>], linear: [SIMD3<Double>]) throws(ToneCurveError) -> ToneCurve {
        func channel(_ name: String, _ value: (SIMD3<Double>) -> Double) throws(ToneCurveError) -> Channel {
            do {
                return try Channel.fit(camera: camera.map(value), linear: linear.map(value))
            } catch {
                throw .channel(name, error)
            }
        }
        return ToneCurve(red: try channel("red", \.x), green: try channel("green", \.y), blue: try channel("blue", \.z))
    }
}

/// Why no tone curve could be fitted or read.
public indirect enum ToneCurveError: Error, Hashable, Sendable, CustomStringConvertible {
    case points
    case notRising
    case flat
    case tooFewNeutrals(Int)
    case channel(String, ToneCurveError)

    public var description: String {
        switch self {
        case .points: "a tone curve is 2 or more points [camera value in 0...1, linear value], both above 0"
        case .notRising: "the tone curve does not rise: a lighter neutral patch reads darker (glare on a dark one, or a corner off?)"
        case .flat: "the neutral patches all read the same: the camera sees no difference between white and black"
        case .tooFewNeutrals(let count):
            "\(count) usable neutral patch\(count == 1 ? "" : "es") (19-24): the tone curve needs at least 2"
        case .channel(let name, let error): "\(name): \(error.description)"
        }
    }
}
