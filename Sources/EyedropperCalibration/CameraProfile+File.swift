import Eyedropper
import FoundationEssentials
import SystemPackage

extension CameraProfile {
    /// Reads and checks the profile at `path`: a missing file, a file that is not a profile, one
    /// from a newer Eyedropper and a damaged one are each a `CalibrationFileError` naming the file and,
    /// for a damaged one, the field.
    public static func load(path: String) throws(CalibrationFileError) -> CameraProfile {
        try decode(readFile(path, what: "profile"), path: path)
    }

    /// Checks and decodes profile JSON; `path` names it in errors.
    public static func decode(_ bytes: [UInt8], path: String) throws(CalibrationFileError) -> CameraProfile {
        let data = Data(bytes)
        // First only the two fields that say what the file is, so a foreign file (a controls
        // file, another program's JSON) is called that, not "damaged at field reference".
        struct Header: Decodable {
            let format: String?
            let version: Int?
        }
        let header: Header
        do {
            header = try JSONDecoder().decode(Header.self, from: data)
        } catch {
            throw .malformed(what: "profile", path: path, field: nil, reason: "not JSON, or not a JSON object: \(reason(error))")
        }
        guard header.format == formatName else {
            throw .foreign(path: path, found: header.format)
        }
        guard let version = header.version else { throw .malformed(what: "profile", path: path, field: "version", reason: "missing") }
        guard version <= currentVersion, version >= 1 else { throw .version(path: path, found: version) }
        let profile = try decodeJSON(CameraProfile.self, data, what: "profile", path: path)
        let bound = profile.xyzBound
        guard bound <= maximumXYZ else {
            throw .malformed(
                what: "profile", path: path, field: nil,
                reason: "calibrated colours reach XYZ \(bound), beyond "
                    + "\(Int(maximumXYZ)): its tone curve or correction holds numbers no calibration makes")
        }
        return profile
    }

    /// The profile as the file holds it: pretty-printed JSON with sorted keys, so two profiles
    /// diff line by line.
    public func json() -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        // Every value is a finite number or a string: encoding cannot fail.
        return Array(try! encoder.encode(self)) + [UInt8(ascii: "\n")]
    }
}

extension ChartReference {
    /// Reads your own chart reference: `{"name": "...", "lab": [[L, a, b], ...]}` (D50, patch 1
    /// first, 24 of them), or the bare array of 24 `[L, a, b]`.
    public static func load(path: String) throws(CalibrationFileError) -> ChartReference {
        try decode(readFile(path, what: "reference"), path: path)
    }

    /// Decodes reference JSON, either form; `path` names it in errors.
    public static func decode(_ bytes: [UInt8], path: String) throws(CalibrationFileError) -> ChartReference {
        let data = Data(bytes)
        if bytes.first(where: { $0 != 0x20 && $0 != 0x0A && $0 != 0x09 && $0 != 0x0D }) == UInt8(ascii: "[") {
            struct Bare: Decodable {
                let reference: ChartReference
                init(from decoder: any Decoder) throws {
                    var container = try decoder.unkeyedContainer()
                    var lab: [CIELab] = []
                    while !container.isAtEnd {
                        let triple = try container.decode([Double].self)
                        guard triple.count == 3 else {
                            throw DecodingError.dataCorruptedError(
                                in: container, debugDescription: "patch \(lab.count + 1) has \(triple.count) numbers, not L*, a*, b*")
                        }
                        lab.append(CIELab(l: triple[0], a: triple[1], b: triple[2]))
                    }
                    do {
                        reference = try ChartReference(name: "your own", lab: lab)
                    } catch {
                        throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: error.description))
                    }
                }
            }
            return try decodeJSON(Bare.self, data, what: "reference", path: path).reference
        }
        return try decodeJSON(ChartReference.self, data, what: "reference", path: path)
    }
}

/// The bytes of the (small) file at `path`; `what` names it in the error.
private func readFile(_ path: String, what: String) throws(CalibrationFileError) -> [UInt8] {
    do {
        return try FileDescriptor.readWholeFile(path)
    } catch {
        throw .unreadable(what: what, path: path, reason: error.text, missing: error.errno == .noSuchFileOrDirectory)
    }
}

/// `type` from `data`, a decoding error turned into one that names the file and the field.
private func decodeJSON<T: Decodable>(_ type: T.Type, _ data: Data, what: String, path: String) throws(CalibrationFileError) -> T {
    do {
        return try JSONDecoder().decode(type, from: data)
    } catch let error as DecodingError {
        throw .malformed(what: what, path: path, field: field(error), reason: reason(error))
    } catch {
        throw .malformed(what: what, path: path, field: nil, reason: "\(error)")
    }
}

/// `reference.lab[3]`: where in the file a decoding error is.
private func field(_ error: DecodingError) -> String? {
    let path: [any CodingKey]
    switch error {
    case .keyNotFound(let key, let context): path = context.codingPath + [key]
    case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): path = context.codingPath
    @unknown default: return nil
    }
    guard !path.isEmpty else { return nil }
    var text = ""
    for key in path {
        if let index = key.intValue { text += "[\(index)]" } else { text += (text.isEmpty ? "" : ".") + key.stringValue }
    }
    return text
}

private func reason(_ error: any Error) -> String {
    guard let error = error as? DecodingError else { return "\(error)" }
    switch error {
    case .keyNotFound: return "missing"
    case .typeMismatch(let type, _):
        return
            "not \(type == String.self ? "a string" : (type == [Double].self || type == [[Double]].self ? "an array of numbers" : "a \(type)"))"
    case .valueNotFound: return "null"
    case .dataCorrupted(let context):
        if let underlying = context.underlyingError { return "\(context.debugDescription) (\(underlying))" }
        return context.debugDescription
    @unknown default: return "\(error)"
    }
}

/// A profile or reference file that cannot be used: which file, which field, what to do.
public enum CalibrationFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `what` is "profile" or "reference".
    case unreadable(what: String, path: String, reason: String, missing: Bool)
    case foreign(path: String, found: String?)
    case version(path: String, found: Int)
    case malformed(what: String, path: String, field: String?, reason: String)

    /// The file is not there (exit 66, as for any missing input file); every other case is
    /// bad data (exit 65).
    public var isMissingFile: Bool {
        if case .unreadable(_, _, _, true) = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .unreadable(let what, let path, let reason, _): "cannot read the \(what) \(path): \(reason)"
        case .foreign(let path, let found):
            "\(path) is not an Eyedropper camera profile (its \"format\" is \(found.map { "\"\($0)\"" } ?? "missing"), not \"\(CameraProfile.formatName)\"): make one with eyedropper calibrate"
        case .version(let path, let found):
            "\(path) is a version \(found) profile; this eyedropper reads version \(CameraProfile.currentVersion): calibrate again, or update eyedropper"
        case .malformed(let what, let path, let field, let reason):
            "the \(what) \(path) is damaged" + (field.map { " at field \($0)" } ?? "") + ": \(reason)"
                + (what == "profile" ? " (calibrate again to make a new one)" : "")
        }
    }
}

extension CalibrationFileError: ExitStatusError {
    /// 66 for a file that is not there, 65 for one that is damaged.
    public var exitStatus: Int32 { isMissingFile ? 66 : 65 }
}
