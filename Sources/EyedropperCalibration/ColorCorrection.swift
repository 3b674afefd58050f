import Eyedropper

/// The forms of correction from linear camera RGB to XYZ a profile can hold.
public enum CorrectionModel: String, CaseIterable, Hashable, Sendable, Codable {
    /// XYZ = M (r, g, b): 9 numbers.
    case linear = "linear-3x3"
    /// XYZ = M (r, g, b, 1): 12 numbers; the constant absorbs flare and a black level.
    case affine = "affine-3x4"
    /// XYZ = M (r, g, b, √(rg), √(gb), √(rb)): 18 numbers. Finlayson, Mackiewicz and Hurlbert
    /// (2015), "Color Correction Using Root-Polynomial Regression", IEEE TIP 24(5): degree 2. Its
    /// terms scale with exposure as r, g, b do, so a brighter scene gives the same chromaticity.
    case rootPolynomial = "root-polynomial-2"

    /// Numbers per row of M.
    public var termCount: Int {
        switch self {
        case .linear: 3
        case .affine: 4
        case .rootPolynomial: 6
        }
    }

    /// The terms M multiplies, in the first `termCount` lanes (the rest 0).
    @inline(__always)
    func terms(_ rgb: SIMD3<Double>) -> SIMD8<Double> {
        switch self {
        case .linear:
            SIMD8(rgb.x, rgb.y, rgb.z, 0, 0, 0, 0, 0)
        case .affine:
            SIMD8(rgb.x, rgb.y, rgb.z, 1, 0, 0, 0, 0)
        case .rootPolynomial:
            SIMD8(
                rgb.x, rgb.y, rgb.z, (rgb.x * rgb.y).squareRoot(), (rgb.y * rgb.z).squareRoot(),
                (rgb.x * rgb.z).squareRoot(), 0, 0)
        }
    }
}

/// A fitted correction: a model and its 3 rows, taking linear camera RGB to XYZ (D50, Y = 100 for
/// the perfect white).
public struct ColorCorrection: Hashable, Sendable, Codable {
    public let model: CorrectionModel
    /// 3 rows of `model.termCount` numbers: the rows for X, Y and Z.
    public let matrix: [[Double]]
    /// The rows in SIMD lanes, so applying the correction is three dot products.
    private let rows: (SIMD8<Double>, SIMD8<Double>, SIMD8<Double>)

    public init(model: CorrectionModel, matrix: [[Double]]) throws(ColorCorrectionError) {
        guard matrix.count == 3, matrix.allSatisfy({ $0.count == model.termCount }) else {
            throw .shape(model: model, rows: matrix.map(\.count))
        }
        guard matrix.allSatisfy({ $0.allSatisfy(\.isFinite) }) else { throw .notFinite }
        self.model = model
        self.matrix = matrix
        func lanes(_ row: [Double]) -> SIMD8<Double> {
            var lanes = SIMD8<Double>()
            for (index, value) in row.enumerated() { lanes[index] = value }
            return lanes
        }
        rows = (lanes(matrix[0]), lanes(matrix[1]), lanes(matrix[2]))
    }

    /// From the `3 * termCount` numbers row by row, as the fitting holds them.
    init(model: CorrectionModel, flat: [Double]) {
        let n = model.termCount
        try! self.init(model: model, matrix: (0..<3).map { Array(flat[$0 * n..<($0 + 1) * n]) })
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let model = try container.decode(CorrectionModel.self, forKey: .model)
        do {
            try self.init(model: model, matrix: container.decode([[Double]].self, forKey: .matrix))
        } catch let error as ColorCorrectionError {
            throw DecodingError.dataCorruptedError(forKey: .matrix, in: container, debugDescription: error.description)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(model, forKey: .model)
        try container.encode(matrix, forKey: .matrix)
    }

    private enum CodingKeys: String, CodingKey { case model, matrix }

    public static func == (lhs: ColorCorrection, rhs: ColorCorrection) -> Bool {
        lhs.model == rhs.model && lhs.matrix == rhs.matrix
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(model)
        hasher.combine(matrix)
    }

    /// The XYZ of linear camera RGB.
    @inline(__always)
    public func xyz(_ linear: SIMD3<Double>) -> CIEXYZ {
        let terms = model.terms(linear)
        return CIEXYZ(x: (rows.0 * terms).sum(), y: (rows.1 * terms).sum(), z: (rows.2 * terms).sum())
    }
}

/// A correction matrix that does not fit its model.
public enum ColorCorrectionError: Error, Hashable, Sendable, CustomStringConvertible {
    case shape(model: CorrectionModel, rows: [Int])
    case notFinite

    public var description: String {
        switch self {
        case .shape(let model, let rows):
            "\(model.rawValue) takes 3 rows of \(model.termCount) numbers; this matrix has rows of \(rows.map(String.init).joined(separator: ", "))"
        case .notFinite: "the matrix holds a number that is not finite"
        }
    }
}

extension ColorCorrectionError: ExitStatusError {
    /// 65: a correction is read from a profile file.
    public var exitStatus: Int32 { 65 }
}
