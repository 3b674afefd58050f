import Eyedropper

/// Where to publish: `mqtt://[user[:password]@]host[:port]` (default port 1883) or `mqtts://`
/// (TLS, default port 8883). The user and password may be percent-encoded (`%40` for `@`); a
/// user with no password in the URL takes it from `EYEDROPPER_MQTT_PASSWORD`, so that it need
/// not show in `ps` or a unit file.
public struct MQTTBroker: Hashable, Sendable, CustomStringConvertible {
    public var tls: Bool
    public var host: String
    public var port: Int
    public var user: String?
    public var password: String?

    public init(tls: Bool = false, host: String, port: Int? = nil, user: String? = nil, password: String? = nil) {
        self.tls = tls
        self.host = host
        self.port = port ?? (tls ? 8883 : 1883)
        self.user = user
        self.password = password
    }

    /// Parses `text`; the error says what is wrong with it, for `--mqtt`.
    public init(url given: String) throws(MQTTURLError) {
        let text = MQTTURLError.Shown(given)
        let tls: Bool
        var rest: Substring
        if given.hasPrefix("mqtt://") {
            (tls, rest) = (false, given.dropFirst(7))
        } else if given.hasPrefix("mqtts://") {
            (tls, rest) = (true, given.dropFirst(8))
        } else {
            throw MQTTURLError(url: text, problem: "it must start with mqtt:// (or mqtts:// for TLS)")
        }
        if let slash = rest.firstIndex(of: "/") {
            guard rest[slash...] == "/" else {
                throw MQTTURLError(url: text, problem: "it has a path; give the topic with --mqtt-topic")
            }
            rest = rest[..<slash]
        }
        var user: String?, password: String?
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            let parts = credentials.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Self.percentDecoded(parts[0]), !name.isEmpty else {
                throw MQTTURLError(url: text, problem: "its user name is empty or badly percent-encoded")
            }
            user = name
            if parts.count == 2 {
                guard let secret = Self.percentDecoded(parts[1]) else {
                    throw MQTTURLError(url: text, problem: "its password is badly percent-encoded")
                }
                password = secret
            }
        }
        var host = rest, port: Int?
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else { throw MQTTURLError(url: text, problem: "its IPv6 address has no ]") }
            host = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw MQTTURLError(url: text, problem: "after ] comes :PORT or nothing") }
                port = try Self.port(after.dropFirst(), in: text)
            }
        } else if let colon = rest.lastIndex(of: ":") {
            host = rest[..<colon]
            port = try Self.port(rest[rest.index(after: colon)...], in: text)
        }
        guard !host.isEmpty else { throw MQTTURLError(url: text, problem: "it names no host") }
        self.init(tls: tls, host: String(host), port: port, user: user, password: password)
    }

    /// The URL without the password: what is said on stderr and in status.
    public var description: String {
        let scheme = tls ? "mqtts" : "mqtt"
        return "\(scheme)://\(user.map { "\($0)@" } ?? "")\(hostAndPort(host, String(port)))"
    }

    private static func port(_ text: Substring, in url: MQTTURLError.Shown) throws(MQTTURLError) -> Int {
        guard let port = Int(text), (1...65535).contains(port) else {
            throw MQTTURLError(url: url, problem: "its port '\(text)' is not 1 to 65535")
        }
        return port
    }

    private static func percentDecoded(_ text: Substring) -> String? {
        var bytes: [UInt8] = []
        var utf8 = text.utf8[...]
        while let byte = utf8.popFirst() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard utf8.count >= 2, let value = UInt8(String(decoding: utf8.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(value)
            utf8 = utf8.dropFirst(2)
        }
        return String(validating: bytes, as: UTF8.self)
    }
}

/// A `--mqtt` URL that cannot be used, and why.
public struct MQTTURLError: Error, CustomStringConvertible {
    /// The URL, its password (if any) shown as `***`.
    public let url: String
    public let problem: String

    init(url: Shown, problem: String) {
        self.url = url.text
        self.problem = problem
    }

    public var description: String {
        "--mqtt \(url): \(problem) (mqtt://[user:password@]host[:port] or mqtts://...)"
    }

    /// A URL as an error may show it: without the password.
    struct Shown {
        let text: String

        init(_ url: String) {
            let start = url.hasPrefix("mqtts://") ? 8 : url.hasPrefix("mqtt://") ? 7 : 0
            let afterScheme = url.index(url.startIndex, offsetBy: start)
            guard let at = url.lastIndex(of: "@"), afterScheme < at, let colon = url[afterScheme..<at].firstIndex(of: ":")
            else {
                text = url
                return
            }
            text = url[..<url.index(after: colon)] + "***" + url[at...]
        }
    }
}

extension MQTTURLError: ExitStatusError {
    public var exitStatus: Int32 { 64 }
}
