/// Why the broker of `--mqtt` could not be used at the start, in one line, with what to do.
public struct MQTTError: Error, CustomStringConvertible {
    public enum Kind: Sendable {
        /// No broker answered: nothing listens there, the host is unknown or unreachable, TLS
        /// failed, or it closed the connection (sysexits 69, EX_UNAVAILABLE).
        case unreachable
        /// The broker answered and refused the user name, password or client (77, EX_NOPERM).
        case refused
        /// `--mqtt-ca` names no file (66).
        case missingFile
        /// `--mqtt-ca` cannot be read by this user (77) or is not usable (65).
        case unreadableFile
        case unusableFile
    }

    public let kind: Kind
    public let message: String

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { message }

    /// The sysexits status.
    public var status: Int32 {
        switch kind {
        case .unreachable: 69
        case .refused, .unreadableFile: 77
        case .missingFile: 66
        case .unusableFile: 65
        }
    }
}
