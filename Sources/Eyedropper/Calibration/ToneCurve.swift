#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A camera's tone curve undone: camera value (0...1) to a linear value proportional to the light,
/// one curve per channel, fitted to the chart's neutral patches rather than assumed (webcams' curves
/// are not sRGB's, and their white balance gives each channel its own).
///
/// Each channel is a quadratic in log-log space, ln(linear) = c0 + c1 ln(v) + c2 ln(v)^2, between
/// the darkest and lightest neutral it was fitted to, and the tangent power law beyond them (so 0
/// maps to 0 and the curve rises everywhere). A pure power law is the case c2 = 0; a toe or a
/// shoulder bends it. The linear value is on the chart's own scale: each neutral patch maps to
/// about the linear sRGB value of its reference colour (white 9.5 to about 0.88), so the curve
/// takes out the camera's tone curve and white balance, and the correction that follows only
/// has to map one linear RGB to another.
public struct ToneCurve: Hashable, Sendable, Codable {
    public struct Channel: Hashable, Sendable, Codable {
        /// c0, c1, c2.
        public let coefficients: [Double]
        /// The camera values (0...1) of the darkest and the lightest neutral fitted: the quadratic
        /// holds between them.
        public let range: [Double]

        public init(coefficients: [Double], range: [Double]) throws(ToneCurveError) {
            guard coefficients.count == 3, coefficients.allSatisfy(\.isFinite) else { throw .coefficients }
            guard range.count == 2, range[0] > 0, range[0] < range[1], range[1].isFinite else { throw .range }
            self.coefficients = coefficients
            self.range = range
            // The curve must rise: the quadratic's slope is linear in ln(v), so the two ends say.
            guard slope(at: log(range[0])) > 0, slope(at: log(range[1])) > 0 else { throw .notRising }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            do {
                try self.init(
                    coefficients: container.decode([Double].self, forKey: .coefficients),
                    range: container.decode([Double].self, forKey: .range))
            } catch let error as ToneCurveError {
                let key: CodingKeys = error == .range ? .range : .coefficients
                throw DecodingError.dataCorruptedError(forKey: key, in: container, debugDescription: error.description)
            }
        }

        private enum CodingKeys: String, CodingKey { case coefficients, range }

        @inline(__always)
        func slope(at lnV: Double) -> Double { coefficients[1] + 2 * coefficients[2] * lnV }

        @inline(__always)
        func logLinear(_ lnV: Double) -> Double {
            coefficients[0] + lnV * (coefficients[1] + lnV * coefficients[2])
        }

        /// The linear value of camera value `v`.
        @inline(__always)
        public func linear(_ v: Double) -> Double {
            guard v > 0 else { return 0 }
            let lnV = log(v), low = log(range[0]), high = log(range[1])
            let end = lnV < low ? low : (lnV > high ? high : lnV)
            // Inside the range `end` is lnV and the tangent term is 0.
            return exp(logLinear(end) + slope(at: end) * (lnV - end))
        }

        /// The least-squares curve through (camera value, linear value) pairs: a quadratic with 3
        /// or more points when it rises over them, else (or with 2) a straight line in log-log
        /// space, a power law.
        static func fit(camera: [Double], linear: [Double]) throws(ToneCurveError) -> Channel {
            let pairs = zip(camera, linear).filter { $0.0 > 0 && $0.1 > 0 }
            guard pairs.count >= 2 else { throw .tooFewNeutrals(pairs.count) }
            let x = pairs.map { log($0.0) }, y = pairs.map { log($0.1) }
            let range = [exp(x.min()!), exp(x.max()!)]
            guard range[0] < range[1] * (1 - 1e-9) else { throw .flat }
            let weights = [Double](repeating: 1, count: x.count)
            if x.count >= 3, let c = LeastSquares.fit(rows: x.map { [1, $0, $0 * $0] }, values: y, weights: weights),
                let channel = try? Channel(coefficients: c, range: range)
            {
                return channel
            }
            guard let line = LeastSquares.fit(rows: x.map { [1, $0] }, values: y, weights: weights) else { throw .flat }
            do {
                return try Channel(coefficients: [line[0], line[1], 0], range: range)
            } catch {
                throw .notRising
            }
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
    case coefficients
    case range
    case notRising
    case flat
    case tooFewNeutrals(Int)
    case channel(String, ToneCurveError)

    public var description: String {
        switch self {
        case .coefficients: "a tone curve needs 3 finite coefficients"
        case .range: "a tone curve's range is two camera values, 0 < low < high"
        case .notRising: "the tone curve does not rise: lighter neutral patches read darker"
        case .flat: "the neutral patches all read the same: the camera sees no difference between white and black"
        case .tooFewNeutrals(let count):
            "\(count) usable neutral patch\(count == 1 ? "" : "es") (19-24): the tone curve needs at least 2"
        case .channel(let name, let error): "\(name): \(error.description)"
        }
    }
}
