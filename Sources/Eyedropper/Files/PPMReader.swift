import SystemPackage

extension RGBImage {
    /// Reads a P6 file with maxval 255; `#` comments are allowed between header fields.
    public init(ppmAt path: String) throws(PPMError) {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readWholeFile(path)
        } catch {
            throw PPMError(path: path, reason: error.explained(writing: false), systemCall: error)
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
            throw PPMError(
                path: path,
                reason: "\(bytes.count - start) bytes of pixels where a \(width)x\(height) image "
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
