import Eyedropper

/// A colour to compare calibrated samples with, and how close is close enough.
public struct ColorTarget: Hashable, Sendable {
    /// L*a*b* (D50).
    public let lab: CIELab
    /// The largest CIEDE2000 that passes.
    public let tolerance: Double

    public init(lab: CIELab, tolerance: Double = 2.0) {
        self.lab = lab
        self.tolerance = tolerance
    }

    /// `L,a,b` (D50) or `#rrggbb` (an sRGB colour, adapted to D50 with Bradford).
    public init(parsing text: String, tolerance: Double = 2.0) throws(ColorTargetError) {
        if text.hasPrefix("#") {
            guard let color = RGB8(hexadecimal: text) else { throw .malformed(text) }
            self.init(lab: SRGB.xyzD50(color).lab(white: .d50), tolerance: tolerance)
            return
        }
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map { Double($0.trimmingSpaces) }
        guard parts.count == 3, let l = parts[0], let a = parts[1], let b = parts[2], l.isFinite, a.isFinite, b.isFinite else {
            throw .malformed(text)
        }
        guard (0...100).contains(l) else { throw .lightness(l) }
        self.init(lab: CIELab(l: l, a: a, b: b), tolerance: tolerance)
    }

    /// CIEDE2000 from the target to `color`, and whether it is within the tolerance.
    @inline(__always)
    public func compare(_ color: CalibratedColor) -> (deltaE: Double, pass: Bool) {
        let deltaE = lab.deltaE2000(color.lab)
        return (deltaE, deltaE <= tolerance)
    }
}

extension RGB8 {
    /// `#rrggbb` (either case), as `--target` and palette files give sRGB colours; nil for
    /// anything else.
    init?(hexadecimal text: some StringProtocol) {
        let digits = text.dropFirst()
        // Digits only: `UInt32(_:radix:)` alone would also take a sign ("#+fffff").
        guard text.hasPrefix("#"), digits.count == 6, digits.allSatisfy(\.isHexDigit), let value = UInt32(digits, radix: 16)
        else { return nil }
        self.init(r: UInt8(value >> 16), g: UInt8(value >> 8 & 0xFF), b: UInt8(value & 0xFF))
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }
}

/// A `--target` that is not a colour.
public enum ColorTargetError: Error, Hashable, Sendable, CustomStringConvertible {
    case malformed(String)
    case lightness(Double)

    public var description: String {
        switch self {
        case .malformed(let text):
            "'\(text)' is not a colour: give L*,a*,b* (D50), e.g. 52.1,-3.5,20, or an sRGB colour as '#rrggbb'"
        case .lightness(let l): "L* must be in 0...100, got \(l)"
        }
    }
}

extension ColorTargetError: ExitStatusError {
    /// 64: a target is given on the command line.
    public var exitStatus: Int32 { 64 }
}
