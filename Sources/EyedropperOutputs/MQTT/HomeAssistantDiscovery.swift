import Eyedropper

/// Home Assistant's MQTT discovery: one sensor per point, its state the hex colour, its
/// attributes rgb (and, with a profile, the calibrated lab; with a target, deltaE; with a palette,
/// the colour's name, its deltaE and margin as name, nameDeltaE, nameMargin), all read
/// from the samples topic; with a white reference, a `…_reference` sensor of the light's drift. Published retained under `homeassistant/sensor/<node>/<point>/config`
/// at every connect, so a Home Assistant started later finds them.
public struct HomeAssistantDiscovery: Hashable, Sendable {
    public var points: [SamplePoint]
    public var calibrated: Bool
    public var target: Bool
    /// `--white-reference`: one more sensor, the light's drift (the reference's ΔE since
    /// calibration), with its gains, whether it was applied and its state as attributes.
    public var reference: Bool
    /// `--palette`: each point's sensor gains its colour's name as attributes.
    public var named: Bool
    /// The discovery prefix Home Assistant listens on.
    public var prefix = "homeassistant"

    public init(points: [SamplePoint], calibrated: Bool, target: Bool, reference: Bool = false, named: Bool = false) {
        self.named = named
        self.points = points
        self.calibrated = calibrated
        self.target = target
        self.reference = reference
    }

    /// Topic and retained payload of each point's sensor, for a publisher of `settings`.
    public func messages(for settings: MQTTSettings) -> [(topic: String, payload: String)] {
        // Node and object ids: [a-zA-Z0-9_-] only.
        let node =
            "eyedropper_" + String(settings.topic.map { $0.isLetter && $0.isASCII || $0.isNumber && $0.isASCII || $0 == "-" ? $0 : "_" })
        let device = JSONText.object([
            ("identifiers", JSONText.array([JSONText.string(node)])),
            ("name", JSONText.string("Eyedropper \(settings.topic)")),
            ("manufacturer", JSONText.string("Eyedropper")),
        ])
        /// A sensor's config: its own fields, then those every sensor of this node shares. `extra`
        /// goes after the value template.
        func sensor(
            id: String, name: String, value: String, attributes: String, icon: String, extra: [(String, String)] = []
        ) -> String {
            JSONText.object(
                [
                    ("name", JSONText.string(name)),
                    ("unique_id", JSONText.string("\(node)_\(id)")),
                    ("object_id", JSONText.string("\(node)_\(id)")),
                    ("state_topic", JSONText.string(settings.samplesTopic)),
                    ("value_template", JSONText.string(value)),
                ] + extra + [
                    ("json_attributes_topic", JSONText.string(settings.samplesTopic)),
                    ("json_attributes_template", JSONText.string(attributes)),
                    ("availability_topic", JSONText.string(settings.statusTopic)),
                    ("payload_available", JSONText.string("online")),
                    ("payload_not_available", JSONText.string("offline")),
                    ("icon", JSONText.string(icon)),
                    ("device", device),
                ])
        }
        let sensors = points.indices.map { index in
            let point = points[index]
            let sample = "value_json.samples[\(index)]"
            var attributes = ["'rgb': [\(sample).r, \(sample).g, \(sample).b]"]
            if calibrated { attributes.append("'lab': \(sample).calibrated.lab") }
            if target { attributes.append("'deltaE': \(sample).deltaE") }
            if named {
                attributes += [
                    "'name': \(sample).nearest.name", "'nameDeltaE': \(sample).nearest.deltaE", "'nameMargin': \(sample).nearest.margin",
                ]
            }
            let payload = sensor(
                id: "\(index)", name: "Colour at \(point.x),\(point.y)", value: "{{ \(sample).hex }}",
                attributes: "{{ {\(attributes.joined(separator: ", "))} | tojson }}", icon: "mdi:eyedropper")
            return (topic: "\(prefix)/sensor/\(node)/point_\(index)/config", payload: payload)
        }
        guard reference else { return sensors }
        // A line without a reference (none read yet) leaves the state unknown rather than 0.
        let drift = sensor(
            id: "reference", name: "Light drift",
            value: "{{ value_json.reference.deltaE if value_json.reference is defined else None }}",
            attributes:
                "{{ {'gains': value_json.reference.gains, 'applied': value_json.reference.applied, 'state': value_json.reference.state} | tojson if value_json.reference is defined else {} | tojson }}",
            icon: "mdi:white-balance-sunny",
            extra: [("unit_of_measurement", JSONText.string("ΔE")), ("state_class", JSONText.string("measurement"))])
        return sensors + [(topic: "\(prefix)/sensor/\(node)/reference/config", payload: drift)]
    }
}
