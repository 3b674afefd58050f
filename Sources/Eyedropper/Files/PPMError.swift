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
