/// Writes binary PPM (P6) images: the simplest lossless RGB file most viewers open, so converted
/// frames can be looked at and compared byte for byte.
public enum PPMWriter {
    /// The P6 header for an 8-bit image: `P6\n<width> <height>\n255\n`.
    public static func header(width: Int, height: Int) -> String { "P6\n\(width) \(height)\n255\n" }

    /// Writes `height` rows of `width` R, G, B pixels, `stride` bytes apart in `rgb24` (default:
    /// tightly packed), to `path`. Atomic: the file appears whole or not at all.
    public static func write(
        rgb24: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int? = nil, to path: String
    ) throws(PPMError) {
        let rowBytes = 3 * width
        let stride = stride ?? rowBytes
        guard width > 0, height > 0 else {
            throw PPMError(path: path, reason: "image size \(width)x\(height) is not positive: nothing written")
        }
        guard stride >= rowBytes else {
            throw PPMError(path: path, reason: "row stride \(stride) is shorter than a row of \(rowBytes) bytes: nothing written")
        }
        let needed = stride * (height - 1) + rowBytes
        guard rgb24.count >= needed else {
            throw PPMError(
                path: path,
                reason: "the RGB buffer holds \(rgb24.count) bytes but \(width)x\(height) "
                    + "at stride \(stride) needs \(needed): nothing written")
        }
        do {
            let file = try AtomicFile(path: path)
            try file.write(header(width: width, height: height))
            if stride == rowBytes {
                try file.write(UnsafeRawBufferPointer(rebasing: rgb24[..<(rowBytes * height)]))
            } else {
                for row in 0..<height {
                    try file.write(UnsafeRawBufferPointer(rebasing: rgb24[(row * stride)..<(row * stride + rowBytes)]))
                }
            }
            try file.commit()
        } catch {
            // The AtomicFile, dropped uncommitted, has removed its temporary file.
            throw PPMError(path: path, reason: error.explained(writing: true), systemCall: error)
        }
    }
}
