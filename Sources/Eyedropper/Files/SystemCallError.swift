import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// A failed system call: what was being done and the `errno` it left, kept together (as
/// swift-nio's `IOError(errnoCode:reason:)` keeps them) so every error built on it can say both.
/// `Y4MError`, `PPMError`, `FileWriteError` and `CaptureError` carry one.
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What was being done: the action in words that follow "cannot" ("open", "flush to disk"),
    /// or the call's own name ("VIDIOC_QBUF").
    public let operation: String
    public let errno: Errno

    public init(operation: String, errno: Errno) {
        self.operation = operation
        self.errno = errno
    }

    /// The C library's text for `errno` (`strerror`), which every message quotes. Not
    /// `Errno.description`: that is swift-system's to change.
    public var text: String { String(cString: strerror(errno.rawValue)) }

    /// `<operation> failed: <strerror text>`.
    public var description: String { "\(operation) failed: \(text)" }

    /// Runs a swift-system call, naming `operation` if it fails.
    static func attempt<R>(_ operation: String, _ body: () throws -> R) throws(SystemCallError) -> R {
        do {
            return try body()
        } catch let errno as Errno {
            throw SystemCallError(operation: operation, errno: errno)
        } catch {
            preconditionFailure("\(operation): swift-system threw \(error), which is not an Errno")
        }
    }

    /// The causes a person can fix and that messages explain; everything else is `.other`.
    package enum Cause { case notFound, notPermitted, isDirectory, other }

    package var cause: Cause {
        switch errno {
        case .noSuchFileOrDirectory, .notDirectory: .notFound
        case .permissionDenied, .notPermitted, .readOnlyFileSystem: .notPermitted
        case .isDirectory: .isDirectory
        default: .other
        }
    }

    /// The sysexits status of an input file that could not be read for this: 66 missing, 77
    /// permission denied, 65 anything else (a directory, a read that failed).
    package var inputExitStatus: Int32 {
        switch cause {
        case .notFound: 66
        case .notPermitted: 77
        case .isDirectory, .other: 65
        }
    }

    /// `cannot <operation>`, the C library's text and, when a person can fix the cause, how.
    func explained(writing: Bool) -> String {
        let failed = "cannot \(operation)"
        return switch cause {
        case .notFound where writing: "\(failed): its directory does not exist (\(text)): create it or choose another path"
        case .notFound: "\(failed): the file does not exist (\(text)): check the path"
        case .notPermitted: "\(failed): \(text): check the permissions of the file and its directory"
        case .isDirectory: "\(failed): it is a directory (\(text)): give the path of a file"
        case .other: "\(failed): \(text)"
        }
    }
}

extension SystemCallError: ExitStatusError {
    /// 74: a read or write that failed (the file errors above carry the calls they wrap).
    public var exitStatus: Int32 { 74 }
}
