import ArgumentParser
import Logging
import SystemPackage

/// Standard error, written whole in one call where it can be (lines from several threads do not
/// interleave), through swift-system, which retries an interrupted write.
enum StandardError {
    static func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in _ = try? FileDescriptor.standardError.writeAll(UnsafeRawBufferPointer(bytes)) }
    }

    static func writeLine(_ line: String) { write(line + "\n") }
}

/// swift-log's handler for the command line: each message one line on stderr, `eyedropper: `
/// first, as every diagnostic of the tool reads. Metadata, if any, follows as `key=value`.
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
        StandardError.writeLine("eyedropper: \(event.message)\(suffix)")
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
