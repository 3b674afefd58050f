import ArgumentParser
import Logging
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Standard error, written whole in one call where it can be (lines from several threads do not
/// interleave), through swift-system, which retries an interrupted write.
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = try? FileDescriptor.standardError.writeAll(UnsafeRawBufferPointer(bytes)) }
    }

    static func writeLine(_ line: String) { write(line + "\n") }

    /// A diagnostic at `level`: `eyedropper: message` on a terminal or a pipe; under journald (a
    /// systemd service), `<N>message`, its syslog priority first (journald takes it off and keeps
    /// it, so `journalctl -p warning` finds the warnings), without the name journald adds itself.
    static func writeDiagnostic(_ message: String, level: Logger.Level) {
        writeLine(isJournal ? "<\(priority(level))>\(message)" : "eyedropper: \(message)")
    }

    /// Whether stderr is the stream journald gave this process: `JOURNAL_STREAM` is its
    /// `device:inode` (systemd.exec(5)); a stderr redirected elsewhere by the service is not.
    static let isJournal: Bool = {
        guard let value = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: value).split(separator: ":")
        var status = stat()
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]), fstat(2, &status) == 0 else {
            return false
        }
        return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
    }()

    private static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: 7
        case .info: 6
        case .notice: 5
        case .warning: 4
        case .error: 3
        case .critical: 2
        }
    }
}

/// swift-log's handler for the command line: each message one line on stderr, `eyedropper: `
/// first, as every diagnostic of the tool reads (under journald its priority instead,
/// `StandardError.writeDiagnostic`). Metadata, if any, follows as `key=value`.
struct DiagnosticLineHandler: LogHandler {
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let fields = metadata.merging(event.metadata ?? [:]) { $1 }
        let suffix = fields.isEmpty ? "" : " " + fields.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        StandardError.writeDiagnostic("\(event.message)\(suffix)", level: event.level)
    }
}

/// `--log-level`, on every command that reads frames.
struct LogOptions: ParsableArguments {
    @Option(
        name: .customLong("log-level"),
        help: ArgumentHelp(
            "Least severe diagnostics printed on stderr: trace, debug, info (what was opened and agreed; the default), notice, warning, error or critical.",
            valueName: "LEVEL"), transform: LogOptions.level)
    var level: Logger.Level = .info

    /// The tool's logger at the level asked for.
    var logger: Logger {
        var logger = Logger(label: "eyedropper")
        logger.logLevel = level
        return logger
    }

    private static func level(_ argument: String) throws -> Logger.Level {
        guard let level = Logger.Level(rawValue: argument) else {
            throw ValidationError("give one of " + Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))
        }
        return level
    }
}
