import Eyedropper

/// Home Assistant's MQTT discovery: one sensor per point, its state the hex colour, its
/// attributes rgb (and, with a profile, the calibrated lab; with a target, deltaE), all read
/// from the samples topic. Published retained under `homeassistant/sensor/<node>/<point>/config`
/// at every connect, so a Home Assistant started later finds them.
public struct HomeAssistantDiscovery: Hashable, Sendable {
    public var points: [SamplePoint]
    public var calibrated: Bool
    public var target: Bool
    /// The discovery prefix Home Assistant listens on.
    public var prefix = "homeassistant"

    public init(points: [SamplePoint], calibrated: Bool, target: Bool) {
        self.points = points
        self.calibrated = calibrated
        self.target = target
    }

    /// Topic and retained payload of each point's sensor, for a publisher of `settings`.
    public func messages(for settings: MQTTSettings) -> [(topic: String, payload: String)] {
        // Node and object ids: [a-zA-Z0-9_-] only.
        let node =
            "eyedropper_" + String(settings.topic.map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" ? $0 : "_" })
        return points.indices.map { index in
            let point = points[index]
            let sample = "value_json.samples[\(index)]"
            var attributes = ["'rgb': [\(sample).r, \(sample).g, \(sample).b]"]
            if calibrated { attributes.append("'lab': \(sample).calibrated.lab") }
            if target { attributes.append("'deltaE': \(sample).deltaE") }
            let payload = JSONText.object([
                ("name", JSONText.string("Colour at \(point.x),\(point.y)")),
                ("unique_id", JSONText.string("\(node)_\(index)")),
                ("object_id", JSONText.string("\(node)_\(index)")),
                ("state_topic", JSONText.string(settings.samplesTopic)),
                ("value_template", JSONText.string("{{ \(sample).hex }}")),
                ("json_attributes_topic", JSONText.string(settings.samplesTopic)),
                ("json_attributes_template", JSONText.string("{{ {\(attributes.joined(separator: ", "))} | tojson }}")),
                ("availability_topic", JSONText.string(settings.statusTopic)),
                ("payload_available", JSONText.string("online")),
                ("payload_not_available", JSONText.string("offline")),
                ("icon", JSONText.string("mdi:eyedropper")),
                (
                    "device",
                    JSONText.object([
                        ("identifiers", JSONText.array([JSONText.string(node)])),
                        ("name", JSONText.string("Eyedropper \(settings.topic)")),
                        ("manufacturer", JSONText.string("Eyedropper")),
                    ])
                ),
            ])
            return ("\(prefix)/sensor/\(node)/point_\(index)/config", payload)
        }
    }
}
