import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperJPEG
import EyedropperNetwork
import EyedropperOutputs
import EyedropperServer
import Logging

#if canImport(Glibc)
    @preconcurrency import Glibc
#endif

@main
struct EyedropperCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "eyedropper",
        abstract: "Sample colours from camera frames, exactly.",
        discussion: """
            Every failure is one line on stderr naming the file, device, option or value, with \
            the exit status saying what kind: 64 usage (a bad option or value), 65 a damaged input \
            file or stream (or one with no 4:2:0 frames), 66 a missing file, device or stream, 69 \
            a network camera, --mqtt broker or --osc peer that cannot be resolved or reached (or \
            FFmpeg, which reads network cameras, not installed), 71 \
            no socket to be had, 73 an output file that cannot be written, 74 a device or stream \
            busy, gone or silent, 77 permission denied (or credentials a camera or the broker \
            refused). sample --target exits 1 when a \
            sample of the last line is off target (as cmp does).
            """,
        version: EyedropperServer.version,
        subcommands: [
            Sample.self, Calibrate.self, Chart.self, Snapshot.self, Record.self, Bench.self, Serve.self, Devices.self, Formats.self,
            Controls.self,
        ],
        defaultSubcommand: Sample.self
    )

    /// Argument parser's own `main`, except that errors are one line on stderr with a sysexits
    /// status (it prints usage text after a usage error and exits 1 for any other error), and
    /// stdout is line-buffered so each sample reaches a pipe when it is printed, not 4 KiB later.
    static func main() async {
        setvbuf(stdout, nil, _IOLBF, 0)
        LoggingSystem.bootstrap { _ in DiagnosticLineHandler() }
        NetworkSource.bootstrap()
        let arguments: (arguments: [String], file: ConfigurationFile?)
        var command: any ParsableCommand
        do {
            arguments = try ConfigurationFile.expand(Array(CommandLine.arguments.dropFirst()))
        } catch {
            fail(error)
        }
        do {
            command = try parseAsRoot(arguments.arguments)
        } catch {
            fail(error, in: arguments.file)
        }
        do {
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error)
        }
    }

    /// `file`: the `serve --config` file the arguments came from in part, whose line an argument
    /// parser's complaint about one of its options then names.
    private static func fail(_ error: any Error, in file: ConfigurationFile? = nil) -> Never {
        if let code = error as? ExitCode { Glibc.exit(code.rawValue) }  // already reported
        let code = exitCode(for: error)
        if code == .success { exit(withError: error) }  // --help, --version: argument parser prints them
        let (message, status) = describe(error) ?? (file?.locate(message(for: error)) ?? message(for: error), code.rawValue)
        let line = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        StandardError.writeDiagnostic(line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line, level: .error)
        Glibc.exit(status)
    }

    /// The message and sysexits status of Eyedropper's errors; nil for argument parser's own.
    private static func describe(_ error: any Error) -> (String, Int32)? {
        (error as? any ExitStatusError).map { ($0.description, $0.exitStatus) }
    }
}

/// A command that cannot go on, in its own words, with its sysexits status.
struct CommandFailure: ExitStatusError {
    let description: String
    let exitStatus: Int32

    init(_ message: String, status: Int32) {
        description = message
        exitStatus = status
    }
}
