import Eyedropper
import SystemPackage

extension BearerToken {
    /// The token in the file at `path` (`--token-file`): its content, surrounding whitespace trimmed.
    public init(contentsOf path: String) throws(TokenFileError) {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readWholeFile(path)
        } catch {
            let kind: TokenFileError.Kind =
                switch error.cause {
                case .notFound: .missing
                case .notPermitted: .permissionDenied
                case .isDirectory, .other: .unreadable
                }
            throw TokenFileError(path: path, kind: kind, reason: error.text)
        }
        guard let token = BearerToken(String(decoding: bytes, as: UTF8.self)) else {
            let blank = bytes.allSatisfy { [0x20, 0x09, 0x0A, 0x0D].contains($0) }
            throw TokenFileError(path: path, kind: blank ? .empty : .unusable, reason: nil)
        }
        self = token
    }
}

/// A token file that gives no token, each with what to do about it. The file's content is never
/// quoted: it may be most of the secret.
public struct TokenFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        /// There is no such file (sysexits 66).
        case missing
        /// Reading it is not allowed (77).
        case permissionDenied
        /// It cannot be read otherwise: a directory, an I/O error (65).
        case unreadable
        /// Nothing but whitespace (65).
        case empty
        /// A character a header cannot carry: inner whitespace, a control or non-ASCII character (65).
        case unusable
    }

    public let path: String
    public let kind: Kind
    /// The C library's text, for the kinds that come from a system call.
    let reason: String?

    public var description: String {
        let file = "token file \(path)"
        let make = "write one with `openssl rand -hex 32 > \(path)`"
        return switch kind {
        case .missing: "\(file) does not exist (\(reason ?? "")): check the path, or \(make)"
        case .permissionDenied: "cannot read \(file): \(reason ?? ""): let the user that runs eyedropper serve read it"
        case .unreadable: "cannot read \(file): \(reason ?? ""): give the path of a file that holds the token"
        case .empty: "\(file) is empty: put the token in it, or \(make)"
        case .unusable:
            "\(file) holds whitespace, a control or a non-ASCII character inside the token, which an Authorization header cannot carry: use visible ASCII only, e.g. \(make)"
        }
    }
}

extension TokenFileError: ExitStatusError {
    /// 66 missing, 77 not readable by this user, 65 empty, unusable or unreadable otherwise.
    public var exitStatus: Int32 {
        switch kind {
        case .missing: 66
        case .permissionDenied: 77
        case .unreadable, .empty, .unusable: 65
        }
    }
}
