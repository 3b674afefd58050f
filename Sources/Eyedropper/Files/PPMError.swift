/// Why a PPM image could not be written or read: which file and what to do.
public struct PPMError: Error, CustomStringConvertible, Hashable, Sendable {
    public let path: String
    public let reason: String
    /// The failed system call behind it, if one failed.
    public let systemCall: SystemCallError?

    public init(path: String, reason: String, systemCall: SystemCallError? = nil) {
        self.path = path
        self.reason = reason
        self.systemCall = systemCall
    }

    public var description: String { "\(path): \(reason)" }
}

extension PPMError: ExitStatusError {
    /// 73: a PPM is only written.
    public var exitStatus: Int32 { 73 }
}
