/// Why a PPM image could not be written or read: which file and what to do.
public struct PPMError: Error, CustomStringConvertible, Hashable, Sendable {
    public let path: String
    public let reason: String

    public init(path: String, reason: String) {
        self.path = path
        self.reason = reason
    }

    public var description: String { "\(path): \(reason)" }
}

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
            throw PPMError(path: path, reason: "the RGB buffer holds \(rgb24.count) bytes but \(width)x\(height) "
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
            throw PPMError(path: path, reason: error.explained(writing: true))
        }
    }
}

/// An 8-bit RGB image read from a binary PPM (P6) file: what tests compare converted frames with.
public struct PPMImage: Hashable, Sendable {
    public let width: Int
    public let height: Int
    /// R, G, B bytes, rows tightly packed.
    public let pixels: [UInt8]

    public init(width: Int, height: Int, pixels: [UInt8]) {
        precondition(width > 0 && height > 0 && pixels.count == 3 * width * height,
                     "\(pixels.count) bytes are not the pixels of a \(width)x\(height) RGB image")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// The colour at (`x`, `y`), from the top-left corner.
    public func pixel(x: Int, y: Int) -> RGB8 {
        precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) is outside \(width)x\(height)")
        let offset = 3 * (y * width + x)
        return RGB8(r: pixels[offset], g: pixels[offset + 1], b: pixels[offset + 2])
    }

    /// Reads a P6 file with maxval 255; `#` comments are allowed between header fields.
    public init(path: String) throws(PPMError) {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readFile(path)
        } catch {
            throw PPMError(path: path, reason: error.explained(writing: false))
        }
        var parser = PPMHeaderParser(bytes: bytes, path: path)
        guard bytes.starts(with: Array("P6".utf8)) else {
            throw PPMError(path: path, reason: "not a binary PPM: it starts \(printableExcerpt(bytes, limit: 8)) instead of 'P6'")
        }
        parser.offset = 2
        let width = try parser.number("width")
        let height = try parser.number("height")
        let maxval = try parser.number("maximum value")
        guard maxval == 255 else {
            throw PPMError(path: path, reason: "maximum value \(maxval) is not 255: only 8-bit PPM is read")
        }
        // Exactly one whitespace byte separates the header from the pixels.
        guard parser.offset < bytes.count, PPMHeaderParser.isSpace(bytes[parser.offset]) else {
            throw PPMError(path: path, reason: "no whitespace after the maximum value: the header is damaged")
        }
        let start = parser.offset + 1
        let expected = 3 * width * height
        guard bytes.count - start == expected else {
            throw PPMError(path: path, reason: "\(bytes.count - start) bytes of pixels where a \(width)x\(height) image "
                           + "has \(expected): the file is cut short or has extra bytes")
        }
        self.init(width: width, height: height, pixels: Array(bytes[start...]))
    }
}

/// Reads the decimal fields of a PPM header, skipping whitespace and `#` comments.
private struct PPMHeaderParser {
    let bytes: [UInt8]
    let path: String
    var offset = 0

    static func isSpace(_ byte: UInt8) -> Bool { [0x20, 0x09, 0x0A, 0x0D, 0x0B, 0x0C].contains(byte) }

    mutating func number(_ name: String) throws(PPMError) -> Int {
        while offset < bytes.count {
            if Self.isSpace(bytes[offset]) {
                offset += 1
            } else if bytes[offset] == UInt8(ascii: "#") {
                while offset < bytes.count && bytes[offset] != UInt8(ascii: "\n") { offset += 1 }
            } else {
                break
            }
        }
        var value = 0, digits = 0
        while offset < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]), digits < 6 {
            value = value * 10 + Int(bytes[offset] - UInt8(ascii: "0"))
            digits += 1
            offset += 1
        }
        guard digits > 0, value > 0, offset < bytes.count, !(UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[offset]) else {
            throw PPMError(path: path, reason: "the header's \(name) is missing, zero or too large: the header is damaged")
        }
        return value
    }
}
