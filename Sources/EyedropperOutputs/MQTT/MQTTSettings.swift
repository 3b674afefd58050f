import Eyedropper

#if canImport(Glibc)
    import Glibc
#endif

/// What `--mqtt` and its options ask for.
public struct MQTTSettings: Hashable, Sendable {
    public var broker: MQTTBroker
    /// `--mqtt-ca`: the PEM certificate authorities a `mqtts://` broker's certificate is checked
    /// against; nil: the system's (`/etc/ssl/certs`).
    public var certificateAuthorities: String?
    /// `--mqtt-topic`: lines go to `PREFIX/samples`, `online`/`offline` to `PREFIX/status`.
    public var topic: String
    /// 0 (at most once) or 1 (at least once).
    public var qos: Int32 = 0
    /// Publish every Nth line.
    public var every = 1
    /// Lines held while the broker is slow or away; past it the oldest is dropped, and counted.
    public var queueLimit = 1000
    /// Seconds between the client's pings: the broker gives the last will of a host gone silent
    /// (not a process killed: that is seen at once) after 1.5 times this.
    public var keepAlive: Int32 = 20
    /// `--mqtt-discovery`: Home Assistant's MQTT discovery, one sensor per point.
    public var discovery: HomeAssistantDiscovery?

    public init(broker: MQTTBroker, topic: String) {
        self.broker = broker
        self.topic = topic
    }

    public var samplesTopic: String { topic + "/samples" }
    public var statusTopic: String { topic + "/status" }

    /// `eyedropper/<hostname>/<camera>`: `camera` is the source's name (`video0`, `testpattern`,
    /// a file's name without its extension), each part with what a topic level cannot hold
    /// (`/`, `+`, `#`, spaces) made `_`.
    public static func defaultTopic(camera: String) -> String {
        "eyedropper/\(topicLevel(hostName()))/\(topicLevel(camera))"
    }

    /// `defaultTopic` for the source named `source` (as `--source` gives it): its camera part is
    /// `video0` for `/dev/video0`, `testpattern`, a file's name without its extension.
    public static func defaultTopic(source: String) -> String {
        let name = source.split(separator: "/").last.map(String.init) ?? source
        guard !source.hasPrefix("/dev/"), let dot = name.lastIndex(of: "."), dot != name.startIndex else {
            return defaultTopic(camera: name)
        }
        return defaultTopic(camera: String(name[..<dot]))
    }

    /// Why `topic` cannot be a prefix, or nil when it can: MQTT's wildcards `+` and `#` and NUL
    /// are not allowed in a topic published to, nor an empty level at either end.
    public static func problem(withTopic topic: String) -> String? {
        if topic.isEmpty { return "it is empty" }
        if topic.contains(where: { $0 == "+" || $0 == "#" || $0 == "\0" }) { return "it holds + or #, which are for subscribing" }
        if topic.hasPrefix("/") || topic.hasSuffix("/") { return "it starts or ends with /" }
        if topic.utf8.count > 60_000 { return "it is longer than MQTT allows" }
        return nil
    }

    /// This machine's name.
    public static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return cText(name)
    }

    static func topicLevel(_ text: String) -> String {
        let level = String(text.map { "/+# \0".contains($0) ? "_" : $0 })
        return level.isEmpty ? "_" : level
    }
}
