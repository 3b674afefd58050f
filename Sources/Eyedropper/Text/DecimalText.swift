#if canImport(Glibc)
    import Glibc
#endif

/// Decimal numbers as the outputs print them: one writer, so `sample`'s JSON, CSV and text give
/// the same digits for the same value.
public enum DecimalText {
    /// `value` with `digits` decimals (no exponent, `-0` shown as `0`), rounded half away from zero.
    public static func fixed(_ value: Double, _ digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let rounded = (value * scale).rounded() / scale
        var text = String(Int((abs(rounded) * scale).rounded()))
        if digits > 0 {
            text = String(repeating: "0", count: max(0, digits + 1 - text.count)) + text
            text.insert(".", at: text.index(text.endIndex, offsetBy: -digits))
        }
        return (rounded < 0 ? "-" : "") + text
    }

    /// `value` with at most `digits` decimals, as a person writes it: trailing zeros and a bare
    /// point left off (`50`, `0.0625`), `-0` as `0`.
    public static func atMost(_ value: Double, _ digits: Int) -> String {
        var text = fixed(value, digits)
        while text.contains("."), text.hasSuffix("0") || text.hasSuffix(".") { text.removeLast() }
        return text == "-0" ? "0" : text
    }

    /// `value` to `digits` significant digits, in plain decimal notation (no exponent): 0.0041234,
    /// 0.14512, 28.040.
    public static func significant(_ value: Double, _ digits: Int) -> String {
        guard value != 0, value.isFinite else { return fixed(value, digits - 1) }
        let magnitude = Int((log10(abs(value))).rounded(.down))
        return fixed(value, max(0, digits - 1 - magnitude))
    }
}
