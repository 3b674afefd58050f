/// A file that could not be written, and why.
public struct FileWriteError: Error, Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let reason: String
    /// The failed system call behind it.
    public let systemCall: SystemCallError?

    public var description: String { "\(path): \(reason)" }
}

/// Writes whole files so they appear complete or not at all: the bytes go to a temporary file
/// in the same directory, renamed over `path` once written and synced.
public enum AtomicWrite {
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String) throws(FileWriteError) {
        do {
            let file = try AtomicFile(path: path)
            try file.write(bytes)
            try file.commit()
        } catch {
            throw FileWriteError(path: path, reason: error.explained(writing: true), systemCall: error)
        }
    }
}

extension FileWriteError: ExitStatusError {
    public var exitStatus: Int32 { 73 }
}
