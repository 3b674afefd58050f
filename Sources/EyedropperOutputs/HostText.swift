/// `host:port`, an IPv6 address in brackets (`[::1]:9000`): how the outputs name a peer or broker.
func hostAndPort(_ host: String, _ port: String) -> String {
    host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
}

/// The text of a NUL-terminated C buffer filled by a system call (`gethostname`, `getnameinfo`).
func cText(_ characters: [CChar]) -> String {
    String(decoding: characters.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
