/// The matrix that turns R'G'B' into Y'CbCr, named by the standard that defines its luma weights.
public enum YCbCrMatrix: String, CaseIterable, Codable, Hashable, Sendable {
    /// ITU-R BT.601 (SD video, JPEG, most webcams below 720 lines): Kr = 0.299, Kb = 0.114.
    case bt601
    /// ITU-R BT.709 (HD video): Kr = 0.2126, Kb = 0.0722.
    case bt709
    /// ITU-R BT.2020 (UHD video, non-constant luminance): Kr = 0.2627, Kb = 0.0593.
    case bt2020

    /// Luma weight of red.
    public var kr: Double {
        switch self {
        case .bt601: 0.299
        case .bt709: 0.2126
        case .bt2020: 0.2627
        }
    }

    /// Luma weight of blue.
    public var kb: Double {
        switch self {
        case .bt601: 0.114
        case .bt709: 0.0722
        case .bt2020: 0.0593
        }
    }
}

/// Which code values 8-bit samples use.
public enum ColorRange: String, CaseIterable, Codable, Hashable, Sendable {
    /// Y in 0...255, Cb and Cr in 0...255 centred on 128 (JPEG, most MJPEG webcams).
    case full
    /// Y in 16...235, Cb and Cr in 16...240 (broadcast video, most YUV webcams).
    case limited
}

/// A matrix and a range: everything needed to turn 8-bit Y'CbCr into 8-bit R'G'B'.
public struct Colorimetry: Hashable, Codable, Sendable, CustomStringConvertible {
    public var matrix: YCbCrMatrix
    public var range: ColorRange

    public init(matrix: YCbCrMatrix, range: ColorRange) {
        self.matrix = matrix
        self.range = range
    }

    public static let bt601Limited = Colorimetry(matrix: .bt601, range: .limited)
    public static let bt601Full = Colorimetry(matrix: .bt601, range: .full)
    public static let bt709Limited = Colorimetry(matrix: .bt709, range: .limited)
    public static let bt709Full = Colorimetry(matrix: .bt709, range: .full)

    /// Every matrix with every range.
    public static let all: [Colorimetry] = YCbCrMatrix.allCases.flatMap { matrix in
        ColorRange.allCases.map { Colorimetry(matrix: matrix, range: $0) }
    }

    public var description: String { "\(matrix.rawValue) \(range.rawValue)" }
}
