import Eyedropper

/// A query-string parameter that cannot be used: `eyedropper serve` answers 400 naming it.
public struct QueryParameterError: Error, Hashable, Sendable {
    /// The parameter's name, or the whole item when it is not `name=value`.
    public let parameter: String
    public let reason: String

    public init(parameter: String, reason: String) {
        self.parameter = parameter
        self.reason = reason
    }
}

/// The parameters of a URL's query string (`a=1&b=2&a=3`), percent-decoded, in order.
///
/// Pure text, in this library rather than the service, so that it is fuzzed without building the
/// HTTP stack.
public struct QueryString: Sendable {
    public let items: [(name: String, value: String)]

    /// Parses `query`; refuses names outside `allowed` and anything not `name=value`.
    public init(_ query: String?, allowed: Set<String>) throws(QueryParameterError) {
        var items: [(String, String)] = []
        for item in (query ?? "").split(separator: "&", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2, let name = Self.decode(parts[0]), let value = Self.decode(parts[1]) else {
                throw QueryParameterError(parameter: String(item), reason: "malformed query: expected name=value")
            }
            guard allowed.contains(name) else {
                let taken = allowed.isEmpty ? "none" : allowed.sorted().joined(separator: ", ")
                throw QueryParameterError(parameter: name, reason: "unknown parameter; this endpoint takes \(taken)")
            }
            items.append((name, value))
        }
        self.items = items
    }

    public func values(_ name: String) -> [String] { items.filter { $0.name == name }.map(\.value) }

    /// The one value of `name` as an integer in `range`, or nil when absent.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws(QueryParameterError) -> Int? {
        let values = values(name)
        guard let text = values.last else { return nil }
        guard values.count == 1, let value = Int(text), range.contains(value) else {
            throw QueryParameterError(parameter: name, reason: "\(text) is not an integer from \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// Every `at=X,Y`, each inside the frame.
    public func points() throws(QueryParameterError) -> [SamplePoint] {
        var points: [SamplePoint] = []
        for text in values("at") {
            do {
                points.append(try SamplePoint(parsing: text))
            } catch {
                throw QueryParameterError(parameter: "at", reason: error.description)
            }
        }
        return points
    }

    /// `text` with `+` as a space and `%XX` escapes decoded; nil when an escape or the UTF-8 is bad.
    static func decode(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var index = text.utf8.startIndex
        let utf8 = text.utf8
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "%") {
                let first = utf8.index(after: index)
                guard first < utf8.endIndex, utf8.index(after: first) < utf8.endIndex,
                    let high = hexValue(utf8[first]), let low = hexValue(utf8[utf8.index(after: first)])
                else { return nil }
                bytes.append(high << 4 | low)
                index = utf8.index(first, offsetBy: 2)
            } else {
                bytes.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
                index = utf8.index(after: index)
            }
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
