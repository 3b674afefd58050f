/// Why a YUV4MPEG2 file could not be read or written: which file, which frame, what to do.
public struct Y4MError: Error, CustomStringConvertible, Hashable, Sendable {
    public let path: String
    /// The frame (counting from 0) the problem is in; nil for the header or the file as a whole.
    public let frame: Int?
    /// What went wrong and what to do about it.
    public let reason: String
    /// Whether the file, or a directory on its path, does not exist: a missing input rather than
    /// a damaged one (the command line exits 66 for it, 65 for bad data).
    public let isMissing: Bool
    /// The failed system call behind it, if one failed (not for damaged data).
    public let systemCall: SystemCallError?

    public init(path: String, frame: Int?, reason: String, isMissing: Bool = false, systemCall: SystemCallError? = nil) {
        self.path = path
        self.frame = frame
        self.reason = reason
        self.isMissing = isMissing
        self.systemCall = systemCall
    }

    /// `<path>: frame 3: <reason>` or `<path>: <reason>`.
    public var description: String {
        if let frame { "\(path): frame \(frame): \(reason)" } else { "\(path): \(reason)" }
    }

    static func header(_ path: String, _ reason: String) -> Y4MError {
        Y4MError(path: path, frame: nil, reason: "header: \(reason)")
    }

    /// The error for a failed open, read or write.
    static func system(_ path: String, frame: Int?, _ error: SystemCallError, writing: Bool = false) -> Y4MError {
        Y4MError(
            path: path, frame: frame, reason: error.explained(writing: writing),
            isMissing: !writing && error.cause == .notFound, systemCall: error)
    }
}

/// Shows `bytes` as text a person can read in an error message: printable ASCII as is,
/// anything else escaped, and at most `limit` bytes.
func printableExcerpt(_ bytes: some Collection<UInt8>, limit: Int = 32) -> String {
    var text = "'"
    for byte in bytes.prefix(limit) {
        switch byte {
        case 0x20..<0x7F where byte != UInt8(ascii: "'") && byte != UInt8(ascii: "\\"):
            text.unicodeScalars.append(Unicode.Scalar(byte))
        case UInt8(ascii: "\n"): text += "\\n"
        default:
            let hex = String(byte, radix: 16)
            text += "\\x" + (hex.count == 1 ? "0" : "") + hex
        }
    }
    return text + (bytes.count > limit ? "...'" : "'")
}

extension Y4MError: ExitStatusError {
    /// 66 for a file that is not there, 65 for one that is damaged.
    public var exitStatus: Int32 { isMissing ? 66 : 65 }
}
