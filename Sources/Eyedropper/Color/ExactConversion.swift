/// An 8-bit R'G'B' colour.
public struct RGB8: Hashable, Codable, Sendable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8

    public init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    /// `#rrggbb`, lower case.
    public var hex: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = [UInt8(ascii: "#")]
        for value in [r, g, b] {
            bytes.append(digits[Int(value >> 4)])
            bytes.append(digits[Int(value & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    public var description: String { "\(hex) (\(r), \(g), \(b))" }
}

/// An 8-bit Y'CbCr sample.
public struct YCbCr8: Hashable, Codable, Sendable {
    public var y: UInt8
    public var cb: UInt8
    public var cr: UInt8

    public init(y: UInt8, cb: UInt8, cr: UInt8) {
        self.y = y
        self.cb = cb
        self.cr = cr
    }
}

extension Colorimetry {
    /// The normalisation of 8-bit code values: Y' = (Y - yOffset) / yScale, C' = (C - 128) / cScale.
    package var codeScales: (yOffset: Double, yScale: Double, cScale: Double) {
        switch range {
        case .limited: (16, 219, 224)
        case .full: (0, 255, 255)
        }
    }

    /// The exact conversion in floating point: the reference every kernel is measured against.
    ///
    /// R = Y' + 2(1 - Kr) Cr', B = Y' + 2(1 - Kb) Cb', G = (Y' - Kr R - Kb B) / (1 - Kr - Kb), each
    /// times 255, rounded half away from zero and clamped to 0...255.
    public func exactRGB(_ sample: YCbCr8) -> RGB8 {
        let (r, g, b) = exactRGBUnrounded(sample)
        return RGB8(r: Self.quantize(r), g: Self.quantize(g), b: Self.quantize(b))
    }

    /// The exact conversion before rounding, in levels (0...255 nominal, unclamped).
    public func exactRGBUnrounded(_ sample: YCbCr8) -> (r: Double, g: Double, b: Double) {
        let (yOffset, yScale, cScale) = codeScales
        let kr = matrix.kr, kb = matrix.kb
        let y = (Double(sample.y) - yOffset) / yScale
        let cb = (Double(sample.cb) - 128) / cScale
        let cr = (Double(sample.cr) - 128) / cScale
        let r = y + 2 * (1 - kr) * cr
        let b = y + 2 * (1 - kb) * cb
        let g = (y - kr * r - kb * b) / (1 - kr - kb)
        return (r * 255, g * 255, b * 255)
    }

    /// The inverse: 8-bit R'G'B' to the nearest 8-bit Y'CbCr code values (for test patterns).
    public func ycbcr(_ color: RGB8) -> YCbCr8 {
        let (yOffset, yScale, cScale) = codeScales
        let kr = matrix.kr, kb = matrix.kb
        let r = Double(color.r) / 255, g = Double(color.g) / 255, b = Double(color.b) / 255
        let y = kr * r + (1 - kr - kb) * g + kb * b
        let cb = (b - y) / (2 * (1 - kb))
        let cr = (r - y) / (2 * (1 - kr))
        return YCbCr8(
            y: Self.quantize(y * yScale + yOffset),
            cb: Self.quantize(cb * cScale + 128),
            cr: Self.quantize(cr * cScale + 128)
        )
    }

    /// Rounds half away from zero and clamps to 0...255.
    static func quantize(_ value: Double) -> UInt8 {
        UInt8(min(max(value.rounded(.toNearestOrAwayFromZero), 0), 255))
    }
}
