import Eyedropper

/// A camera profile as a 3D lookup table in the `.cube` format (Adobe's, as DaVinci Resolve,
/// OBS, darktable and ffmpeg's `lut3d` filter read it): from the camera's RGB, as Eyedropper
/// converts a frame (0...1 for levels 0...255), to the corrected colour as sRGB, clamped to its
/// gamut. Red varies fastest, as the format has it.
public enum CubeLUT {
    /// Points a side: 33 (35,937 in all) is what Resolve and most cameras' LUTs use; between
    /// points the reader interpolates (tetrahedrally, or trilinearly).
    public static let defaultSize = 33

    /// The `.cube` text of `profile`, `size` points a side (2...256).
    public static func text(_ profile: CameraProfile, size: Int = defaultSize, title: String) -> String {
        precondition((2...256).contains(size), "a .cube LUT has 2 to 256 points a side, not \(size)")
        let quoted = String(title.map { $0 == "\"" ? "'" : $0.isNewline ? " " : $0 })
        var lines = [
            "TITLE \"\(quoted)\"",
            "# Eyedropper camera profile: camera RGB (as Eyedropper converts the frame) to corrected sRGB",
            "LUT_3D_SIZE \(size)",
            "DOMAIN_MIN 0.0 0.0 0.0",
            "DOMAIN_MAX 1.0 1.0 1.0",
        ]
        lines.reserveCapacity(lines.count + size * size * size)
        let step = 255.0 / Double(size - 1)
        for b in 0..<size {
            for g in 0..<size {
                for r in 0..<size {
                    let srgb = profile.calibrated((Double(r) * step, Double(g) * step, Double(b) * step)).srgb / 255
                    lines.append("\(DecimalText.fixed(srgb.x, 6)) \(DecimalText.fixed(srgb.y, 6)) \(DecimalText.fixed(srgb.z, 6))")
                }
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
