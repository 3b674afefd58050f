/// A spot in a frame in scalar coordinates: (0, 0) is the top-left corner, (1, 1) the bottom-right.
///
/// Only points inside 0...1 exist: anything else (outside, NaN, infinite) is refused when the
/// point is made, never clamped, so a typo cannot silently sample the frame's edge.
public struct SamplePoint: Hashable, Sendable, Codable, CustomStringConvertible {
    public let x: Double
    public let y: Double

    public init(x: Double, y: Double) throws(SamplingError) {
        guard (0...1).contains(x), (0...1).contains(y) else { throw .pointOutside(x: x, y: y) }
        self.x = x
        self.y = y
    }

    /// `X,Y`, as the command line's `--at` and the server's `at=` give it.
    public init(parsing text: some StringProtocol) throws(SamplingError) {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(String(parts[0])), let y = Double(String(parts[1])) else {
            throw .malformedPoint(String(text))
        }
        try self.init(x: x, y: y)
    }

    /// The centre of the frame.
    public static let center = try! SamplePoint(x: 0.5, y: 0.5)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(x: container.decode(Double.self, forKey: .x), y: container.decode(Double.self, forKey: .y))
    }

    /// The pixel the point selects: column min(floor(x * width), width - 1), row likewise.
    public func pixel(width: Int, height: Int) -> (x: Int, y: Int) {
        (min(Int(x * Double(width)), width - 1), min(Int(y * Double(height)), height - 1))
    }

    public var description: String { "\(x),\(y)" }
}

/// A sampling request that cannot be carried out.
public enum SamplingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A coordinate outside 0...1, NaN or infinite.
    case pointOutside(x: Double, y: Double)
    /// Text that is not two numbers `X,Y`.
    case malformedPoint(String)
    /// A negative patch radius, or one larger than any frame.
    case radiusOutOfRange(Int)
    /// The frame or the output does not fit the sampler's buffer.
    case geometry(FrameGeometryError)

    /// The largest patch radius accepted: a 1025 x 1025 patch.
    public static let maximumRadius = 512

    public var description: String {
        switch self {
        case let .pointOutside(x, y):
            "point \(x),\(y) is outside the frame: both coordinates must be within 0...1, (0, 0) the top-left corner"
        case .malformedPoint:
            "give two numbers X,Y in 0...1, e.g. 0.5,0.5 for the centre"
        case let .radiusOutOfRange(radius):
            "radius \(radius) is out of range: give 0 (one pixel) to \(Self.maximumRadius)"
        case let .geometry(error):
            error.description
        }
    }
}

/// The colour at one point of one frame (or of a block of frames, `SampleAverage`).
public struct ColorSample: Hashable, Sendable, Codable {
    public let point: SamplePoint
    /// The pixel's colour, or the rounded mean of the patch around it.
    public let color: RGB8
    /// The patch's pixels: their count, mean, standard deviation and clipped channels.
    public let statistics: PatchStatistics

    public init(point: SamplePoint, statistics: PatchStatistics) {
        self.point = point
        self.color = statistics.roundedMean
        self.statistics = statistics
    }

    /// A sample of one pixel.
    public init(point: SamplePoint, color: RGB8) {
        self.init(point: point, statistics: PatchStatistics(color))
    }
}

extension SamplingError: ExitStatusError {
    public var exitStatus: Int32 { 64 }
}
