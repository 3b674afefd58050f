import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperJPEG
import EyedropperOutputs
import EyedropperPipeline
import EyedropperServer
import Foundation
import Testing

/// One way to an exit status: every error type declared in Sources either conforms to
/// `ExitStatusError` (the command line prints its description and exits with its status) or is
/// listed here as one the command line never sees, with the reason. A new error type that is in
/// neither list fails `everyErrorTypeHasAnExitStatus`, so it cannot fall through to exit 1 unseen.
@Suite struct ExitStatusTests {
    /// The error types with a status: a metatype here compiles only if the type conforms.
    static let withStatus: [String: any ExitStatusError.Type] = [
        "Y4MError": Y4MError.self, "PPMError": PPMError.self, "FileWriteError": FileWriteError.self,
        "SystemCallError": SystemCallError.self, "FrameGeometryError": FrameGeometryError.self,
        "SamplingError": SamplingError.self, "CalibrationError": CalibrationError.self,
        "CalibrationFileError": CalibrationFileError.self, "ChartGeometryError": ChartGeometryError.self,
        "ChartReferenceError": ChartReferenceError.self, "ChartDetectionFailure": ChartDetectionFailure.self,
        "ColorTargetError": ColorTargetError.self, "ChartReadError": ChartReadError.self,
        "ColorCorrectionError": ColorCorrectionError.self, "JPEGError": JPEGError.self,
        "CaptureError": CaptureError.self, "ControlError": ControlError.self, "OutputError": OutputError.self,
        "MQTTURLError": MQTTURLError.self, "TLSFileError": TLSFileError.self, "TokenFileError": TokenFileError.self,
        "PaletteFileError": PaletteFileError.self, "WhiteReferenceError": WhiteReferenceError.self,
        "ReferenceRefused": ReferenceRefused.self, "ResponseRecoveryError": ResponseRecoveryError.self,
    ]

    /// The command line's own (Sources/EyedropperCLI, which tests cannot import): declared with
    /// `ExitStatusError` itself, which the scan checks; their statuses are in the golden files.
    static let commandLine: Set<String> = ["CommandFailure"]

    /// Errors that end as HTTP answers inside `serve`, never as an exit status.
    static let httpOnly: Set<String> = ["QueryParameterError", "FrameUnavailable"]

    /// Errors private to a file that turns them into one listed above before they leave it.
    static let internalOnly: Set<String> = ["PaletteProblem"]

    /// Every `struct`, `enum` or `class` in Sources declared with `Error` among its conformances.
    /// The value: the conformances as declared.
    static func declaredErrorTypes() throws -> [String: String] {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let declaration = try NSRegularExpression(
            pattern:
                #"^\s*(?:(?:public|package|internal|private|fileprivate|final)\s+)*(?:struct|enum|class)\s+(\w+)\s*:([^{]*\b(?:Error|ExitStatusError)\b[^{]*)"#,
            options: .anchorsMatchLines)
        var names: [String: String] = [:]
        let files = FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil)!
        for case let file as URL in files where file.pathExtension == "swift" {
            let text = try String(contentsOf: file, encoding: .utf8)
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names[String(text[Range(match.range(at: 1), in: text)!])] = String(text[Range(match.range(at: 2), in: text)!])
            }
        }
        return names
    }

    /// Catches an error type added without a status (it would exit 1, as argument parser's
    /// default), and a list here that names a type no longer declared.
    @Test func everyErrorTypeHasAnExitStatus() throws {
        let conformances = try Self.declaredErrorTypes()
        let declared = Set(conformances.keys)
        #expect(declared.count >= 20, "the scan found \(declared.sorted()): is Sources where it looks?")
        for name in Self.commandLine {
            #expect(conformances[name]?.contains("ExitStatusError") == true, "\(name): \(conformances[name] ?? "not declared")")
        }
        let accounted = Set(Self.withStatus.keys).union(Self.httpOnly).union(Self.commandLine).union(Self.internalOnly)
        #expect(declared.subtracting(accounted).isEmpty, "error types with no exit status: \(declared.subtracting(accounted).sorted())")
        #expect(accounted.subtracting(declared).isEmpty, "listed here but not declared: \(accounted.subtracting(declared).sorted())")
    }

    /// The statuses the kinds of error give, against sysexits(3): a mapping that swapped missing
    /// and damaged, or gave usage errors another status, fails here as well as in the golden files.
    @Test func statusesAreSysexits() throws {
        #expect(Y4MError(path: "a.y4m", frame: nil, reason: "gone", isMissing: true).exitStatus == 66)
        #expect(Y4MError(path: "a.y4m", frame: 2, reason: "truncated").exitStatus == 65)
        #expect(CaptureError(device: "/dev/video9", kind: .notFound).exitStatus == 66)
        #expect(CaptureError(device: "/dev/video9", kind: .permissionDenied).exitStatus == 77)
        #expect(CaptureError(device: "/dev/video9", kind: .busy).exitStatus == 74)
        #expect(SamplingError.radiusOutOfRange(-1).exitStatus == 64)
        #expect(WhiteReferenceError.notRecorded.exitStatus == 64)
        #expect(ReferenceRefused(path: "p.json", error: .notRecorded).exitStatus == 64)
        #expect(ResponseRecoveryError.notRising(channel: 0, level: 250, drop: 0.5).exitStatus == 65)
    }
}
