/// The one secret a client of `serve` shows in `Authorization: Bearer TOKEN` (`--token-file` or
/// `EYEDROPPER_TOKEN`). Its description never shows the token, so a configuration that is logged
/// or printed in a test failure does not leak it.
public struct BearerToken: Hashable, Sendable, CustomStringConvertible {
    private let bytes: [UInt8]

    /// `text` with surrounding whitespace (a file's final newline) trimmed; nil when nothing is left
    /// or a character is not visible ASCII (a header cannot carry it, nor a URL fragment plainly).
    public init?(_ text: String) {
        var trimmed = Array(text.utf8)[...]
        while let first = trimmed.first, Self.isWhitespace(first) { trimmed.removeFirst() }
        while let last = trimmed.last, Self.isWhitespace(last) { trimmed.removeLast() }
        guard !trimmed.isEmpty, trimmed.allSatisfy({ (0x21...0x7E).contains($0) }) else { return nil }
        bytes = Array(trimmed)
    }

    public var description: String { "<token, \(bytes.count) characters>" }

    /// Whether `presented` is this token. Constant time in the token: every presented byte is
    /// compared (with the token's bytes, cycled) and the differences OR-ed together, whatever came
    /// before, and a length that differs only sets one more bit. The time depends on the presented
    /// length alone, which the client knows already.
    func matches(_ presented: some Collection<UInt8>) -> Bool {
        var difference: UInt8 = presented.count == bytes.count ? 0 : 1
        var index = 0
        for byte in presented {
            difference |= byte ^ bytes[index]
            index = index + 1 == bytes.count ? 0 : index + 1
        }
        return difference == 0
    }

    /// Whether the `Authorization` header's value is `Bearer` (any case, RFC 7235) then this token.
    func authorizes(_ authorization: String?) -> Bool {
        guard let authorization else { return false }
        let value = authorization.utf8
        let scheme = "bearer ".utf8
        guard value.count > scheme.count,
            zip(value.prefix(scheme.count), scheme).allSatisfy({ $0 | 0x20 == $1 })
        else { return false }
        return matches(value.dropFirst(scheme.count).drop { $0 == UInt8(ascii: " ") })
    }

    private static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
    }
}
