/// JSON written in the order the documentation gives its fields: the lines scripts read
/// (`sample --format json`, `bench`, `devices`, `formats`) are a contract, field order included.
/// Not `JSONEncoder`: on Linux it writes a `Codable` value's keys in hash order, not declaration
/// order, and its only stable alternative is alphabetical (`.sortedKeys`), which the service's
/// `Codable` bodies use instead.
public enum JSONText {
    /// `{"key":value,...}` from keys and already-encoded values, in order.
    public static func object(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\(string($0.0)):\($0.1)" }.joined(separator: ",") + "}"
    }

    /// `[value,...]` from already-encoded values.
    public static func array(_ values: [String]) -> String {
        "[" + values.joined(separator: ",") + "]"
    }

    /// A JSON string literal, escaped.
    public static func string(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            case let control where control.value < 0x20:
                let hex = String(control.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
