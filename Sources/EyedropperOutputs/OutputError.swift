import Eyedropper

/// Why an output (an MQTT broker, an OSC peer) could not start: one line, with what to do, and
/// its sysexits status. Both outputs fail only at the start; afterwards they count and say.
public struct OutputError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Int32, Sendable {
        /// A file named by an option does not exist (66, EX_NOINPUT).
        case missingFile = 66
        /// A file named by an option is not usable (65, EX_DATAERR).
        case unusableFile = 65
        /// Nothing answered: no broker on that port, an unknown host, no route, a TLS failure, a
        /// broker that closed the connection or did not answer (69, EX_UNAVAILABLE).
        case unavailable = 69
        /// The system would not give a socket (71, EX_OSERR).
        case noSocket = 71
        /// The broker refused the credentials, or a file cannot be read by this user (77,
        /// EX_NOPERM).
        case refused = 77
    }

    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}

extension OutputError: ExitStatusError {
    public var exitStatus: Int32 { kind.rawValue }
}
