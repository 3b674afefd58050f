import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperJPEG
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
            file, 66 a missing file or device, 69 an --mqtt broker or --osc peer that cannot be \
            resolved or reached, 71 no socket to be had, 73 an output file that cannot be \
            written, 74 a device busy, gone or silent, 77 permission denied (or credentials the \
            broker refused). sample --target exits 1 when a \
            sample of the last line is off target (as cmp does).
            """,
        subcommands: [Sample.self, Calibrate.self, Snapshot.self, Bench.self, Serve.self, Devices.self, Formats.self, Controls.self],
        defaultSubcommand: Sample.self
    )

    /// Argument parser's own `main`, except that errors are one line on stderr with a sysexits
    /// status (it prints usage text after a usage error and exits 1 for any other error), and
    /// stdout is line-buffered so each sample reaches a pipe when it is printed, not 4 KiB later.
    static func main() async {
        setvbuf(stdout, nil, _IOLBF, 0)
        LoggingSystem.bootstrap { _ in DiagnosticLineHandler() }
        do {
            var command = try parseAsRoot()
            if var command = command as? AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            fail(error)
        }
    }

    private static func fail(_ error: any Error) -> Never {
        if let code = error as? ExitCode { Glibc.exit(code.rawValue) }  // already reported
        let code = exitCode(for: error)
        if code == .success { exit(withError: error) }  // --help, --version: argument parser prints them
        let (message, status) = describe(error) ?? (message(for: error), code.rawValue)
        let line = message.split(whereSeparator: \.isNewline).joined(separator: "; ")
        StandardError.writeLine("eyedropper: " + (line.hasPrefix("Error: ") ? String(line.dropFirst(7)) : line))
        Glibc.exit(status)
    }

    /// The message and sysexits status of the library's errors; nil for argument parser's own.
    private static func describe(_ error: any Error) -> (String, Int32)? {
        switch error {
        case let error as CommandFailure: (error.message, error.status)
        case let error as Y4MError: (error.description, error.isMissing ? 66 : 65)
        case let error as PPMError: (error.description, 73)
        case let error as FileWriteError: (error.description, 73)
        case let error as FrameGeometryError: (error.description, 64)
        case let error as SamplingError: (error.description, 64)
        case let error as JPEGError: (error.description, 70)
        case let error as CaptureError: (error.description, captureStatus(error))
        case let error as ControlError: (error.description, controlStatus(error))
        case let error as CalibrationFileError: (error.description, error.isMissingFile ? 66 : 65)
        case let error as ChartGeometryError: (error.description, 64)
        case let error as CalibrationError: (error.description, 65)
        case let error as TLSFileError: (error.description, error.status)
        case let error as TokenFileError: (error.description, tokenFileStatus(error))
        case let error as OutputError: (error.description, error.status)
        default: nil
        }
    }
}

/// A command that cannot go on, in its own words, with its sysexits status.
struct CommandFailure: Error {
    let message: String
    let status: Int32

    init(_ message: String, status: Int32) {
        self.message = message
        self.status = status
    }
}

/// The sysexits status for a capture error: 66 for a device that is missing, not a camera or
/// offering nothing usable, 77 for permissions, 74 for busy, gone, silent or failing.
func captureStatus(_ error: CaptureError) -> Int32 {
    switch error.kind {
    case .notFound, .notCaptureDevice, .noAcceptableFormat: 66
    case .permissionDenied: 77
    case .busy, .disconnected, .timeout, .unusableFormat, .failed: 74
    }
}

/// The sysexits status for a control error: 64 for what was asked (an unknown control, a value
/// it does not take), 74 for a driver that refuses, 66 or 65 for a controls file missing or not
/// a JSON object.
func controlStatus(_ error: ControlError) -> Int32 {
    if error.isUsage { return 64 }
    if case let .file(_, _, missing) = error.kind { return missing ? 66 : 65 }
    return 74
}

/// The sysexits status for a token file: 66 missing, 77 not readable by this user, 65 empty,
/// unusable or unreadable otherwise.
func tokenFileStatus(_ error: TokenFileError) -> Int32 {
    switch error.kind {
    case .missing: 66
    case .permissionDenied: 77
    case .unreadable, .empty, .unusable: 65
    }
}
