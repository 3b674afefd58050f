import Eyedropper
#if canImport(Glibc)
import Glibc
#endif

/// `value` with `digits` decimals: the library's writer, so every command prints numbers alike.
func fixed(_ value: Double, _ digits: Int) -> String { DecimalText.fixed(value, digits) }

/// `value` to `digits` significant digits, in plain decimal notation (no exponent): 0.0041234,
/// 0.14512, 28.040.
func significant(_ value: Double, _ digits: Int) -> String {
    guard value != 0, value.isFinite else { return fixed(value, digits - 1) }
    let magnitude = Int((log10(abs(value))).rounded(.down))
    return fixed(value, max(0, digits - 1 - magnitude))
}
