import Eyedropper
import FoundationEssentials
import SystemPackage

// MARK: - Files

extension Palette {
    /// Reads a palette file: a JSON array of `{"name": ..., "lab": [L, a, b]}` (D50),
    /// `{"name": ..., "srgb": [r, g, b]}` (0...255, fractions allowed) or
    /// `{"name": ..., "hex": "#rrggbb"}`, mixed as you like; or CSV with a header row of
    /// `name,lab_l,lab_a,lab_b`, `name,srgb_r,srgb_g,srgb_b` or `name,hex`. The first character
    /// that is not a space says which: `[` is JSON. sRGB colours become L*a*b* D50 exactly as
    /// `--target '#rrggbb'` does.
    public static func load(path: String) throws(PaletteFileError) -> Palette {
        let bytes: [UInt8]
        do {
            bytes = try FileDescriptor.readWholeFile(path)
        } catch {
            throw .unreadable(path: path, error)
        }
        return try decode(bytes, path: path)
    }

    /// Reads palette JSON or CSV from `bytes`; `path` names them in errors.
    public static func decode(_ bytes: [UInt8], path: String?) throws(PaletteFileError) -> Palette {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }  // a UTF-8 byte order mark, as spreadsheets write
        let first = bytes[start...].first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first == UInt8(ascii: "[") {
            return try Palette(entries: decodeJSON(Array(bytes[start...]), path: path), path: path)
        }
        let (entries, lines) = try decodeCSV(bytes[start...], path: path)
        return try Palette(entries: entries, path: path, location: { .line(lines[$0]) })
    }

    private static func decodeJSON(_ bytes: [UInt8], path: String?) throws(PaletteFileError) -> [Entry] {
        do {
            return try JSONDecoder().decode(JSONPalette.self, from: Data(bytes)).entries
        } catch let located as PaletteProblem {
            throw .malformed(path: path, at: .entry(located.at), reason: located.reason)
        } catch {
            var why = "\(error)"
            if case DecodingError.dataCorrupted(let context) = error {
                why = context.debugDescription + (context.underlyingError.map { " (\($0))" } ?? "")
            }
            throw .malformed(
                path: path, at: nil, reason: "it is not a JSON array of entries: \(why): give [{\"name\": ..., \"hex\": \"#rrggbb\"}, ...]")
        }
    }

    private static func decodeCSV(_ bytes: ArraySlice<UInt8>, path: String?) throws(PaletteFileError) -> ([Entry], [Int]) {
        func fail(_ line: Int?, _ reason: String) -> PaletteFileError {
            .malformed(path: path, at: line.map { .line($0) }, reason: reason)
        }
        let records: [(line: Int, fields: [String])]
        do throws(PaletteProblem) {
            records = try csvRecords(bytes)
        } catch {
            throw fail(error.at, error.reason)
        }
        guard let header = records.first else {
            throw fail(
                nil,
                "it is empty: give a JSON array, or CSV with a header row name,hex (or name,lab_l,lab_a,lab_b or name,srgb_r,srgb_g,srgb_b)"
            )
        }
        let columns = header.fields.map(trimmed)
        func column(_ name: String) -> Int? { columns.firstIndex(of: name) }
        let kinds: [(name: String, columns: [String])] = [
            ("lab", ["lab_l", "lab_a", "lab_b"]), ("srgb", ["srgb_r", "srgb_g", "srgb_b"]), ("hex", ["hex"]),
        ]
        let present = kinds.filter { kind in kind.columns.contains { column($0) != nil } }
        let usage = "give name,hex or name,lab_l,lab_a,lab_b (D50) or name,srgb_r,srgb_g,srgb_b (0...255)"
        guard let nameColumn = column("name") else {
            throw fail(header.line, "the header row \(columns.joined(separator: ",")) has no column name: \(usage)")
        }
        guard present.count == 1, let kind = present.first else {
            throw fail(
                header.line,
                "the header row \(columns.joined(separator: ",")) "
                    + (present.isEmpty ? "has no colour columns" : "mixes \(present.map(\.name).joined(separator: " and ")) columns")
                    + ": \(usage)")
        }
        let missing = kind.columns.filter { column($0) == nil }
        guard missing.isEmpty else {
            throw fail(header.line, "the header row has no column \(missing.joined(separator: ", ")): \(usage)")
        }
        let known = Set(["name"] + kind.columns)
        if let unknown = columns.first(where: { !known.contains($0) }) {
            throw fail(header.line, "the header row has a column \(JSONText.string(unknown)) that palettes do not have: \(usage)")
        }
        let valueColumns = kind.columns.map { column($0)! }
        var entries: [Entry] = []
        var lines: [Int] = []
        for record in records.dropFirst() {
            guard record.fields.count == columns.count else {
                throw fail(
                    record.line, "it has \(record.fields.count) fields, the header \(columns.count): quote a name that holds a comma")
            }
            let name = record.fields[nameColumn]
            let values = valueColumns.map { trimmed(record.fields[$0]) }
            let lab: SIMD3<Double>
            do throws(PaletteProblem) {
                switch kind.name {
                case "hex": lab = try labOfHex(values[0])
                case "srgb": lab = try labOfSRGB(values.map { Double($0) }, text: values)
                default:
                    let numbers = values.map { Double($0) }
                    guard let l = numbers[0], let a = numbers[1], let b = numbers[2] else {
                        throw PaletteProblem(
                            at: 0, reason: "lab_l, lab_a, lab_b are \(values.joined(separator: ", ")): give three numbers")
                    }
                    lab = SIMD3(l, a, b)
                }
            } catch {
                throw fail(record.line, "\(JSONText.string(name)): \(error.reason)")
            }
            entries.append(Entry(name: name, lab: lab))
            lines.append(record.line)
        }
        return (entries, lines)
    }

    /// The L*a*b* D50 of `#rrggbb`, as `--target` gives it.
    fileprivate static func labOfHex(_ text: String) throws(PaletteProblem) -> SIMD3<Double> {
        guard let color = RGB8(hexadecimal: text) else {
            throw PaletteProblem(at: 0, reason: "the hex colour \(JSONText.string(text)) is not #rrggbb")
        }
        let lab = SRGB.xyzD50(color).lab(white: .d50)
        return SIMD3(lab.l, lab.a, lab.b)
    }

    /// The L*a*b* D50 of sRGB values in 0...255; `text` is what the file says, for the message.
    fileprivate static func labOfSRGB(_ values: [Double?], text: [String]) throws(PaletteProblem) -> SIMD3<Double> {
        let numbers = values.compactMap { $0 }
        guard numbers.count == 3, numbers.allSatisfy({ (0...255).contains($0) }) else {
            throw PaletteProblem(at: 0, reason: "the sRGB values are \(text.joined(separator: ", ")): give three numbers in 0...255")
        }
        let lab = SRGB.xyzD50(encoded: SIMD3(numbers[0], numbers[1], numbers[2]) / 255).lab(white: .d50)
        return SIMD3(lab.l, lab.a, lab.b)
    }
}

/// What is wrong, and where: the entry (numbered from 1) of a JSON palette or the line of a CSV
/// one; 0 until the caller that knows says. Never leaves this file: `PaletteFileError` says it.
private struct PaletteProblem: Error {
    var at: Int
    var reason: String
}

/// The JSON form: an array of entries, each decoded with its number at hand.
private struct JSONPalette: Decodable {
    var entries: [Palette.Entry] = []

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        while !container.isAtEnd {
            let number = container.currentIndex + 1
            do {
                entries.append(try container.decode(JSONEntry.self).entry)
            } catch let problem as PaletteProblem {
                throw PaletteProblem(at: number, reason: problem.reason)
            } catch is DecodingError {
                throw PaletteProblem(at: number, reason: "it is not an object: give {\"name\": ..., \"hex\": \"#rrggbb\"}")
            }
        }
    }
}

private struct JSONEntry: Decodable {
    var entry: Palette.Entry

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let keys = Set(container.allKeys.map(\.stringValue))
        let usage = "give \"name\" and one of \"lab\": [L, a, b] (D50), \"srgb\": [r, g, b] (0...255) or \"hex\": \"#rrggbb\""
        if let unknown = keys.subtracting(["name", "lab", "srgb", "hex"]).sorted().first {
            throw PaletteProblem(at: 0, reason: "it has a field \(JSONText.string(unknown)) that palettes do not have: \(usage)")
        }
        guard let name = try? container.decode(String.self, forKey: Key(stringValue: "name")) else {
            throw PaletteProblem(
                at: 0, reason: keys.contains("name") ? "its \"name\" is not a string: \(usage)" : "it has no \"name\": \(usage)")
        }
        let colours = keys.intersection(["lab", "srgb", "hex"]).sorted()
        guard colours.count == 1, let kind = colours.first else {
            throw PaletteProblem(
                at: 0,
                reason: "\(JSONText.string(name)) has "
                    + (colours.isEmpty ? "no colour" : colours.map { "\"\($0)\"" }.joined(separator: " and ")) + ": \(usage)")
        }
        let key = Key(stringValue: kind)
        let lab: SIMD3<Double>
        do {
            switch kind {
            case "hex":
                guard let text = try? container.decode(String.self, forKey: key) else {
                    throw PaletteProblem(at: 0, reason: "its \"hex\" is not a string: give \"#rrggbb\"")
                }
                lab = try Palette.labOfHex(text)
            default:
                guard let numbers = try? container.decode([Double].self, forKey: key), numbers.count == 3 else {
                    throw PaletteProblem(at: 0, reason: "its \"\(kind)\" is not an array of three numbers: \(usage)")
                }
                if kind == "lab" {
                    lab = SIMD3(numbers[0], numbers[1], numbers[2])
                } else {
                    lab = try Palette.labOfSRGB(numbers, text: numbers.map { "\($0)" })
                }
            }
        } catch let problem as PaletteProblem {
            throw PaletteProblem(at: 0, reason: "\(JSONText.string(name)): \(problem.reason)")
        }
        entry = Palette.Entry(name: name, lab: lab)
    }
}

// MARK: - CSV

/// RFC 4180 records: fields split at commas, a field in double quotes may hold commas, line
/// breaks and doubled quotes; CRLF or LF ends a record; empty lines are skipped. Each record
/// with the line it starts on.
private func csvRecords(_ bytes: ArraySlice<UInt8>) throws(PaletteProblem) -> [(line: Int, fields: [String])] {
    let quote = UInt8(ascii: "\""), comma = UInt8(ascii: ","), newline = UInt8(ascii: "\n"), cr = UInt8(ascii: "\r")
    var records: [(line: Int, fields: [String])] = []
    var fields: [String] = []
    var field: [UInt8] = []
    var line = 1, recordLine = 1
    var index = bytes.startIndex
    var quoted = false, wasQuoted = false
    func endField() throws(PaletteProblem) {
        guard let text = String(validating: field, as: UTF8.self) else {
            throw PaletteProblem(at: recordLine, reason: "a field is not UTF-8: save the file as UTF-8")
        }
        fields.append(text)
        field.removeAll(keepingCapacity: true)
        wasQuoted = false
    }
    func endRecord() throws(PaletteProblem) {
        try endField()
        if !(fields.count == 1 && fields[0].isEmpty) { records.append((recordLine, fields)) }
        fields.removeAll()
    }
    while index < bytes.endIndex {
        let byte = bytes[index]
        index += 1
        if quoted {
            if byte == quote {
                if index < bytes.endIndex && bytes[index] == quote {
                    field.append(quote)
                    index += 1
                } else {
                    quoted = false
                }
            } else {
                if byte == newline { line += 1 }
                field.append(byte)
            }
            continue
        }
        switch byte {
        case quote where field.isEmpty && !wasQuoted:
            quoted = true
            wasQuoted = true
        case quote:
            throw PaletteProblem(
                at: line, reason: "a quote inside an unquoted field: put the whole field in quotes, and double the quotes in it")
        case comma: try endField()
        case cr where index < bytes.endIndex && bytes[index] == newline: continue
        case newline:
            try endRecord()
            line += 1
            recordLine = line
        default:
            guard !wasQuoted else {
                throw PaletteProblem(
                    at: line, reason: "text after a closing quote: put the whole field in quotes, and double the quotes in it")
            }
            field.append(byte)
        }
    }
    guard !quoted else { throw PaletteProblem(at: recordLine, reason: "a quoted field is never closed: add its closing quote") }
    try endRecord()
    return records
}

/// `text` as an RFC 4180 field: in quotes, with its quotes doubled, only when it needs them.
func csvField(_ text: String) -> String {
    guard text.utf8.contains(where: { $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: "\"") || $0 == 0x0A || $0 == 0x0D }) else {
        return text
    }
    return "\"" + text.replacing("\"", with: "\"\"") + "\""
}

/// `text` without the spaces and tabs around it.
private func trimmed(_ text: String) -> String {
    String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
}

// MARK: - Errors

/// A palette that cannot be used: which file, which entry or line, what is wrong and what to do.
public enum PaletteFileError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Where in the file: an entry of a JSON palette (or of entries given in code), numbered from
    /// 1, or a line of a CSV one.
    public enum Location: Hashable, Sendable, CustomStringConvertible {
        case entry(Int)
        case line(Int)

        public var description: String {
            switch self {
            case .entry(let number): "entry \(number)"
            case .line(let number): "line \(number)"
            }
        }
    }

    case unreadable(path: String, SystemCallError)
    /// `path` is nil for entries given in code.
    case malformed(path: String?, at: Location?, reason: String)

    public var description: String {
        switch self {
        case .unreadable(let path, let error):
            let advice =
                switch error.cause {
                case .notFound: "check the path (the palettes that come with eyedropper are in /usr/share/eyedropper/palettes)"
                case .notPermitted: "check the permissions of the file and its directory"
                case .isDirectory: "give the path of a file"
                case .other: "check the file"
                }
            return "cannot read the palette \(path): \(error.text): \(advice)"
        case .malformed(let path, let location, let reason):
            return "the palette" + (path.map { " \($0)" } ?? "") + (location.map { ", \($0)," } ?? "") + " is not usable: \(reason)"
        }
    }
}

extension PaletteFileError: ExitStatusError {
    /// As for any input file: 66 missing, 77 not permitted, 65 damaged or unreadable otherwise.
    public var exitStatus: Int32 {
        switch self {
        case .unreadable(_, let error): error.inputExitStatus
        case .malformed: 65
        }
    }
}
