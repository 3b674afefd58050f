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

    /// `fps` as a fraction: whole rates as N:1, NTSC's (29.97, 59.94) as 30000:1001 and the like,
    /// others in thousandths.
    public init(fps: Double) {
        precondition(fps > 0 && fps.isFinite, "frame rate \(fps) is not positive")
        let ntsc = (fps * 1.001).rounded()
        if fps.rounded() == fps {
            self.init(numerator: Int(fps), denominator: 1)
        } else if abs(ntsc / 1.001 - fps) < 1e-3 {
            self.init(numerator: Int(ntsc) * 1000, denominator: 1001)
        } else {
            self.init(numerator: max(1, Int((fps * 1000).rounded())), denominator: 1000)
        }
    }
}

/// The stream header of a YUV4MPEG2 file: `YUV4MPEG2 W<w> H<h> F<n>:<d> I<p|t|b|m> A<n>:<d> C<tag> X<...>`.
///
/// Only 8-bit 4:2:0 is accepted. YUV4MPEG2 itself says nothing of colours: the range comes from
/// ffmpeg's `XCOLORRANGE=FULL|LIMITED`, the matrix from Eyedropper's own
/// `XEYEDROPPER_MATRIX=BT601|BT709|BT2020`, and a recording's camera controls from
/// `XEYEDROPPER_CONTROLS=name:value,...` (other readers, ffmpeg and mpv among them, skip `X` tags
/// they do not know). A tag that is absent is nil here: the reader of the frames decides what to
/// assume (`colorimetry`: the matrix from the height, as cameras and encoders choose it, and
/// limited range) and says so.
public struct Y4MHeader: Hashable, Sendable {
    public static let signature = "YUV4MPEG2"
    /// Longest header accepted, newline included: a bound on what a damaged file makes us read.
    public static let maximumLength = 4096
    /// Largest width or height accepted; anything larger is a damaged header, not a frame.
    public static let maximumDimension = 16384
    /// The chroma tags that mean 8-bit 4:2:0; they differ only in chroma siting, which does not
    /// change the samples Eyedropper reads.
    public static let acceptedChromaTags: Set<String> = ["420jpeg", "420mpeg2", "420paldv", "420"]
    /// Eyedropper's tag for the matrix: `XEYEDROPPER_MATRIX=BT709`.
    public static let matrixTag = "EYEDROPPER_MATRIX"
    /// Eyedropper's tag for a recording's camera controls: `XEYEDROPPER_CONTROLS=brightness:128,contrast:32`.
    public static let controlsTag = "EYEDROPPER_CONTROLS"
    /// Eyedropper's frame parameter for the time a frame was taken, in seconds as the source gave
    /// it: `FRAME XEYEDROPPER_TIME=1234.567891`.
    public static let timeParameter = "EYEDROPPER_TIME"

    public var width: Int
    public var height: Int
    public var frameRate: Y4MFrameRate?
    /// The matrix the header names (`XEYEDROPPER_MATRIX`); nil when it names none.
    public var matrix: YCbCrMatrix?
    /// The range the header names (`XCOLORRANGE`); nil when it names none.
    public var range: ColorRange?
    /// A recording's camera controls, name to value; empty when the header has none.
    public var controls: [String: Int]

    /// A header to write: every field is written, the matrix and range always.
    public init(
        width: Int, height: Int, frameRate: Y4MFrameRate?, colorimetry: Colorimetry, controls: [String: Int] = [:]
    ) {
        self.init(
            width: width, height: height, frameRate: frameRate, matrix: colorimetry.matrix, range: colorimetry.range, controls: controls)
    }

    /// A header as read: `matrix` and `range` nil where it does not name them.
    public init(
        width: Int, height: Int, frameRate: Y4MFrameRate?, matrix: YCbCrMatrix?, range: ColorRange?, controls: [String: Int] = [:]
    ) {
        precondition(
            (1...Self.maximumDimension).contains(width) && (1...Self.maximumDimension).contains(height),
            "frame size \(width)x\(height) is outside 1...\(Self.maximumDimension)")
        self.width = width
        self.height = height
        self.frameRate = frameRate
        self.matrix = matrix
        self.range = range
        self.controls = controls
    }

    /// The matrix a frame of `height` lines most likely uses.
    public static func defaultMatrix(height: Int) -> YCbCrMatrix { height >= 720 ? .bt709 : .bt601 }

    /// The colorimetry of the frames: what the header names, else the matrix from the height and
    /// limited range.
    public var colorimetry: Colorimetry {
        Colorimetry(matrix: matrix ?? Self.defaultMatrix(height: height), range: range ?? .limited)
    }

    /// What `colorimetry` assumes because the header does not say it, for a reader to say once:
    /// e.g. "no XEYEDROPPER_MATRIX tag: BT.709 assumed from the height (720 lines)"; nil when the
    /// header names both.
    public var assumption: String? {
        var parts: [String] = []
        if matrix == nil {
            parts.append(
                "no X\(Self.matrixTag) tag: matrix \(Self.defaultMatrix(height: height).rawValue) assumed from the height (\(height) lines)"
            )
        }
        if range == nil { parts.append("no XCOLORRANGE tag: limited range assumed") }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }

    /// Bytes in one frame after its `FRAME` line: Y, then Cb and Cr at half size, rounded up.
    public var frameByteCount: Int { PlanarFrame.packedByteCount(layout: .i420, width: width, height: height) }

    /// The header as written, newline included.
    public var line: String {
        var fields = [Self.signature, "W\(width)", "H\(height)"]
        if let frameRate { fields.append("F\(frameRate)") }
        fields += ["Ip", "A1:1", "C420jpeg"]
        if let range { fields.append("XCOLORRANGE=\(range == .full ? "FULL" : "LIMITED")") }
        if let matrix { fields.append("X\(Self.matrixTag)=\(matrix.rawValue.uppercased())") }
        if !controls.isEmpty {
            fields.append("X\(Self.controlsTag)=" + controls.keys.sorted().map { "\($0):\(controls[$0]!)" }.joined(separator: ","))
        }
        return fields.joined(separator: " ") + "\n"
    }

    /// Parses the start of file `path`: `bytes` is what was read up to and including the first
    /// newline, or everything read when no newline came within `maximumLength` bytes.
    public init(parsing bytes: some BidirectionalCollection<UInt8>, path: String) throws(Y4MError) {
        func fail(_ reason: String) -> Y4MError { .header(path, reason) }
        let signature = Array(Self.signature.utf8)
        let piped = path == Y4MReader.standardInputName
        guard !bytes.isEmpty else {
            throw fail(
                piped
                    ? "nothing came: pipe a YUV4MPEG2 stream in, e.g. ffmpeg -i INPUT -pix_fmt yuv420p -f yuv4mpegpipe - | eyedropper sample --source -"
                    : "the file is empty: expected a YUV4MPEG2 stream")
        }
        guard bytes.starts(with: signature),
            bytes.count == signature.count
                || [UInt8(ascii: " "), UInt8(ascii: "\n")].contains(bytes.dropFirst(signature.count).first)
        else {
            throw fail(
                "not a YUV4MPEG2 \(piped ? "stream" : "file"): it starts \(printableExcerpt(bytes, limit: 16)) instead of "
                    + "'\(Self.signature) '; "
                    + (piped
                        ? "pipe YUV4MPEG2 in, e.g. ffmpeg -i INPUT -pix_fmt yuv420p -f yuv4mpegpipe - | eyedropper sample --source -"
                        : "convert it with ffmpeg -i INPUT -pix_fmt yuv420p OUTPUT.y4m"))
        }
        guard bytes.last == UInt8(ascii: "\n") else {
            throw bytes.count >= Self.maximumLength
                ? fail("no end of line within the first \(Self.maximumLength) bytes: the header is damaged")
                : fail("the file ends inside the header, after \(bytes.count) bytes: the file is cut short")
        }
        let fields = bytes.dropLast().split(separator: UInt8(ascii: " ")).dropFirst()
        var width: Int?, height: Int?
        var frameRate: Y4MFrameRate?
        var range: ColorRange?, matrix: YCbCrMatrix?
        var controls: [String: Int] = [:]
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
            case "X" where value.hasPrefix(Self.matrixTag + "="):
                guard let named = YCbCrMatrix(rawValue: value.dropFirst(Self.matrixTag.count + 1).lowercased()) else {
                    throw fail("'\(text)' is not X\(Self.matrixTag)=BT601, BT709 or BT2020")
                }
                matrix = named
            case "X" where value.hasPrefix(Self.controlsTag + "="):
                for entry in value.dropFirst(Self.controlsTag.count + 1).split(separator: ",") {
                    let parts = entry.split(separator: ":", omittingEmptySubsequences: false)
                    guard parts.count == 2, !parts[0].isEmpty, let number = Int(parts[1]) else {
                        throw fail("'\(text)': '\(entry)' is not name:value, e.g. brightness:128")
                    }
                    controls[String(parts[0])] = number
                }
            default:
                // A (pixel aspect), XYSCSS= (ffmpeg's copy of the chroma tag) and other X tags say
                // nothing about the samples; unknown tags are left for newer writers.
                break
            }
        }
        guard let width else { throw fail("no width: the header needs a W<width> tag, e.g. W640") }
        guard let height else { throw fail("no height: the header needs an H<height> tag, e.g. H480") }
        self.init(width: width, height: height, frameRate: frameRate, matrix: matrix, range: range, controls: controls)
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
