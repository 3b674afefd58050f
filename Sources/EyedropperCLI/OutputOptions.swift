import ArgumentParser
import Eyedropper
import EyedropperCapture
import EyedropperOutputs
import Logging

/// Where `sample` and `serve` send each line of samples besides stdout or HTTP: an MQTT broker and
/// an OSC peer.
struct OutputOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Publish each line (the JSON of sample --format json) to an MQTT broker: mqtt://[user[:password]@]host[:port] (1883), or mqtts:// (TLS, 8883). A user without a password takes it from EYEDROPPER_MQTT_PASSWORD.",
            valueName: "URL"))
    var mqtt: String?

    @Option(
        name: .customLong("mqtt-ca"),
        help: ArgumentHelp(
            "PEM certificate authorities to check an mqtts:// broker against (default: the system's).", valueName: "FILE"))
    var mqttCA: String?

    @Option(
        name: .customLong("mqtt-topic"),
        help: ArgumentHelp(
            "Topic prefix: lines go to PREFIX/samples, a retained online/offline to PREFIX/status (default eyedropper/<hostname>/<camera>).",
            valueName: "PREFIX"))
    var mqttTopic: String?

    @Option(name: .customLong("mqtt-qos"), help: ArgumentHelp("0 (at most once) or 1 (at least once).", valueName: "0|1"))
    var mqttQoS: Int32 = 0

    @Option(name: .customLong("mqtt-every"), help: ArgumentHelp("Publish every Nth line.", valueName: "N"))
    var mqttEvery = 1

    @Option(
        name: .customLong("mqtt-queue"),
        help: ArgumentHelp(
            "Lines held while the broker is slow or away; past this the oldest is dropped (and counted).", valueName: "N"))
    var mqttQueue = 1000

    @Flag(
        name: .customLong("mqtt-discovery"), help: "Announce one Home Assistant sensor per point (retained, under homeassistant/sensor/).")
    var mqttDiscovery = false

    @Option(
        help: ArgumentHelp(
            "Send each line as an OSC bundle over UDP: /eyedropper/<i>/rgb, /hex and (with --profile) /lab per point i.",
            valueName: "HOST:PORT"))
    var osc: String?

    func validate() throws {
        if let mqtt {
            do { _ = try MQTTBroker(url: mqtt) } catch { throw ValidationError(error.description) }
        } else if let given = [
            mqttCA.map { _ in "--mqtt-ca" }, mqttTopic.map { _ in "--mqtt-topic" }, mqttDiscovery ? "--mqtt-discovery" : nil,
        ].compactMap({ $0 }).first {
            throw ValidationError("\(given) needs --mqtt URL")
        }
        if let mqttTopic, let problem = MQTTSettings.problem(withTopic: mqttTopic) {
            throw ValidationError("--mqtt-topic \(mqttTopic): \(problem)")
        }
        guard mqttQoS == 0 || mqttQoS == 1 else { throw ValidationError("--mqtt-qos must be 0 or 1, got \(mqttQoS)") }
        guard mqttEvery >= 1 else { throw ValidationError("--mqtt-every must be at least 1, got \(mqttEvery)") }
        guard mqttQueue >= 1 else { throw ValidationError("--mqtt-queue must be at least 1, got \(mqttQueue)") }
        if let osc { _ = try Self.oscPeer(osc) }
    }

    /// `--osc`'s HOST:PORT (an IPv6 address in brackets), checked before anything opens: a
    /// malformed one is a usage error, not a failed connection.
    static func oscPeer(_ argument: String) throws -> ListenAddress {
        guard let address = ListenAddress(argument: argument), address.port > 0 else {
            throw ValidationError("--osc \(argument): give HOST:PORT with a port of 1 to 65535, e.g. 127.0.0.1:9000 or [::1]:9000")
        }
        return address
    }

    /// The outputs asked for, connected: nil when none was. Throws when the broker cannot be
    /// reached or refuses us, or the OSC peer cannot be resolved or reached (`OutputError`).
    func open(
        source: FrameSource.Configuration, points: [SamplePoint], calibrated: Bool, target: Bool, reference: Bool = false,
        named: Bool = false,
        logger: Logger
    ) throws -> SampleOutputs? {
        guard mqtt != nil || osc != nil else { return nil }
        // OSC first: a peer that cannot be resolved fails before a broker is told we are online.
        var sender: OSCSender?
        if let osc {
            let address = try Self.oscPeer(osc)
            sender = try OSCSender(host: address.host, port: address.port, logger: logger)
        }
        var publisher: MQTTPublisher?
        if let mqtt {
            var settings = MQTTSettings(
                broker: try MQTTBroker(url: mqtt),
                topic: mqttTopic ?? MQTTSettings.defaultTopic(source: source.source.description))
            settings.certificateAuthorities = mqttCA
            settings.qos = mqttQoS
            settings.every = mqttEvery
            settings.queueLimit = mqttQueue
            if mqttDiscovery {
                settings.discovery = HomeAssistantDiscovery(
                    points: points, calibrated: calibrated, target: target, reference: reference, named: named)
            }
            publisher = try MQTTPublisher(settings, logger: logger)
        }
        return SampleOutputs(mqtt: publisher, osc: sender)
    }
}
