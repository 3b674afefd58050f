import Foundation

/// A directory made by mkdtemp for one test, removed with its contents when dropped; also the
/// file helpers the Y4M and PPM tests share.
public final class ScratchDirectory {
    public let path: String

    public init() throws {
        var template = Array("/tmp/eyedropper-test-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "mkdtemp failed: errno \(errno)"])
        }
        path = String(cString: made)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    public func file(_ name: String) -> String { "\(path)/\(name)" }

    /// The names in the directory, sorted: shows leftover temporary files.
    public func names() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    public static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    public static func read(_ path: String) throws -> [UInt8] {
        try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
