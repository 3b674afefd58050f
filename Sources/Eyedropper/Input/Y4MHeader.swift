/// Frames per second as a fraction, as YUV4MPEG2 declares it (`F30000:1001`).
public struct Y4MFrameRate: Hashable, Sendable, CustomStringConvertible {
    public var numerator: Int
    public var denominator: Int

    public init(numerator: Int, denominator: Int) {
        precondition(numerator > 0 && denominator > 0, "frame rate \(numerator):\(denominator) is not positive")
        self.numerator = numerator
        self.denominator = denominator
    }

    public var description: String { "\(numerator):\(denominator)" }
}

/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2 W<w> H<h> F<n>:<d> I<p|t|b|m> A<n>:<d> C<tag> X<...>`.
///
/// Only 8-bit 4:2:0 is accepted. YUV4MPEG2 has no matrix tag, so the matrix follows the frame
/// height (BT.709 from 720 lines, BT.601 below), as cameras and encoders choose it; the range
/// comes from ffmpeg's `XCOLORRANGE=FULL|LIMITED` and is limited when absent.
public struct Y4MHeader: Hashable, Sendable {
    public static let signature = "YUV4MPEG2"
    /// Longest header accepted, newline included: a bound on what a damaged file makes us read.
    public static let maximumLength = 4096
    /// Largest width or height accepted; anything larger is a damaged header, not a frame.
    public static let maximumDimension = 16384
    /// The chroma tags that mean 8-bit 4:2:0; they differ only in chroma siting, which does not
    /// change the samples Eyedropper reads.
    public static let acceptedChromaTags: Set<String> = ["420jpeg", "420mpeg2", "420paldv", "420"]

    public var width: Int
    public var height: Int
    public var frameRate: Y4MFrameRate?
    /// The matrix is implied by `height` when reading; writing records only the range.
    public var colorimetry: Colorimetry

    /// A header to write.
    public init(width: Int, height: Int, frameRate: Y4MFrameRate?, colorimetry: Colorimetry) {
        precondition(
            (1...Self.maximumDimension).contains(width) && (1...Self.maximumDimension).contains(height),
            "frame size \(width)x\(height) is outside 1...\(Self.maximumDimension)")
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.colorimetry = colorimetry
    }

    /// The matrix a frame of `height` lines most likely uses.
    public static func defaultMatrix(height: Int) -> YCbCrMatrix { height >= 720 ? .bt709 : .bt601 }

    /// Bytes in one frame after its `FRAME` line: Y, then Cb and Cr at half size, rounded up.
    public var frameByteCount: Int { PlanarFrame.packedByteCount(layout: .i420, width: width, height: height) }

    /// The header as written, newline included.
    public var line: String {
        var fields = [Self.signature, "W\(width)", "H\(height)"]
        if let frameRate { fields.append("F\(frameRate)") }
        fields += ["Ip", "A1:1", "C420jpeg", "XCOLORRANGE=\(colorimetry.range == .full ? "FULL" : "LIMITED")"]
        return fields.joined(separator: " ") + "\n"
    }

    /// Parses the start of file `path`: `bytes` is what was read up to and including the first
    /// newline, or everything read when no newline came within `maximumLength` bytes.
    public init(parsing bytes: some BidirectionalCollection<UInt8>, path: String) throws(Y4MError) {
        func fail(_ reason: String) -> Y4MError { .header(path, reason) }
        let signature = Array(Self.signature.utf8)
        guard !bytes.isEmpty else {
            throw fail("the file is empty: expected a YUV4MPEG2 stream")
        }
        guard bytes.starts(with: signature),
            bytes.count == signature.count
                || [UInt8(ascii: " "), UInt8(ascii: "\n")].contains(bytes.dropFirst(signature.count).first)
        else {
            throw fail(
                "not a YUV4MPEG2 file: it starts \(printableExcerpt(bytes, limit: 16)) instead of "
                    + "'\(Self.signature) '; convert it with ffmpeg -i INPUT -pix_fmt yuv420p OUTPUT.y4m")
        }
        guard bytes.last == UInt8(ascii: "\n") else {
            throw bytes.count >= Self.maximumLength
                ? fail("no end of line within the first \(Self.maximumLength) bytes: the header is damaged")
                : fail("the file ends inside the header, after \(bytes.count) bytes: the file is cut short")
        }
        let fields = bytes.dropLast().split(separator: UInt8(ascii: " ")).dropFirst()
        var width: Int?, height: Int?
        var frameRate: Y4MFrameRate?
        var range = ColorRange.limited
        for field in fields {
            let text = String(decoding: field, as: UTF8.self)
            let value = text.dropFirst()
            switch text.first {
            case "W": width = try Self.dimension(value, field: text, name: "width", path: path)
            case "H": height = try Self.dimension(value, field: text, name: "height", path: path)
            case "F":
                let parts = value.split(separator: ":", omittingEmptySubsequences: false)
                guard parts.count == 2, let numerator = Int(parts[0]), let denominator = Int(parts[1]),
                    numerator >= 0, denominator >= 0
                else { throw fail("frame rate '\(text)' is not F<numerator>:<denominator>, e.g. F30000:1001") }
                // F0:0 is how some writers say "unknown".
                frameRate =
                    numerator > 0 && denominator > 0
                    ? Y4MFrameRate(numerator: numerator, denominator: denominator) : nil
            case "I":
                guard ["p", "t", "b", "m", "?"].contains(value) else {
                    throw fail("interlacing '\(text)' is not one of Ip, It, Ib, Im")
                }
            case "C":
                guard Self.acceptedChromaTags.contains(String(value)) else {
                    throw fail(
                        "chroma '\(text)' is not supported: Eyedropper reads only 8-bit 4:2:0 "
                            + "(C420jpeg, C420mpeg2, C420paldv or C420); convert with ffmpeg -pix_fmt yuv420p")
                }
            case "X" where value.hasPrefix("COLORRANGE="):
                switch value.dropFirst("COLORRANGE=".count) {
                case "FULL": range = .full
                case "LIMITED": range = .limited
                default: throw fail("'\(text)' is neither XCOLORRANGE=FULL nor XCOLORRANGE=LIMITED")
                }
            default:
                // A (pixel aspect), XYSCSS= (ffmpeg's copy of the chroma tag) and other X tags say
                // nothing about the samples; unknown tags are left for newer writers.
                break
            }
        }
        guard let width else { throw fail("no width: the header needs a W<width> tag, e.g. W640") }
        guard let height else { throw fail("no height: the header needs an H<height> tag, e.g. H480") }
        self.init(
            width: width, height: height, frameRate: frameRate,
            colorimetry: Colorimetry(matrix: Self.defaultMatrix(height: height), range: range))
    }

    private static func dimension(
        _ value: Substring, field: String, name: String, path: String
    ) throws(Y4MError) -> Int {
        guard let number = Int(value), (1...maximumDimension).contains(number) else {
            throw .header(path, "\(name) '\(field)' is not a whole number from 1 to \(maximumDimension)")
        }
        return number
    }
}
