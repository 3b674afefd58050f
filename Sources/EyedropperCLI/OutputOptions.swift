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
    var mqtt: BrokerURL?

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
            valueName: "HOST:PORT"),
        transform: Self.oscPeer)
    var osc: ListenAddress?

    func validate() throws {
        if let mqtt {
            if case .failure(let error) = mqtt.broker { throw ValidationError(error.description) }
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
    }

    /// `--osc`'s HOST:PORT (an IPv6 address in brackets), checked before anything opens: a
    /// malformed one is a usage error, not a failed connection.
    static func oscPeer(_ argument: String) throws -> ListenAddress {
        guard let address = ListenAddress(argument: argument), address.port > 0 else {
            throw ValidationError("give HOST:PORT with a port of 1 to 65535, e.g. 127.0.0.1:9000 or [::1]:9000")
        }
        return address
    }

    /// The outputs asked for, connected: nil when none was. `discovery`: the Home Assistant
    /// sensors the readings make, announced with `--mqtt-discovery`. Throws when the broker
    /// cannot be reached or refuses us, or the OSC peer cannot be resolved or reached
    /// (`OutputError`).
    func open(source: FrameSource.Configuration, discovery: HomeAssistantDiscovery, logger: Logger) throws -> SampleOutputs? {
        guard mqtt != nil || osc != nil else { return nil }
        // OSC first: a peer that cannot be resolved fails before a broker is told we are online.
        var sender: OSCSender?
        if let osc { sender = try OSCSender(host: osc.host, port: osc.port, logger: logger) }
        var publisher: MQTTPublisher?
        if let mqtt, case .success(let broker) = mqtt.broker {
            var settings = MQTTSettings(broker: broker, topic: mqttTopic ?? MQTTSettings.defaultTopic(source: source.source.description))
            settings.certificateAuthorities = mqttCA
            settings.qos = mqttQoS
            settings.every = mqttEvery
            settings.queueLimit = mqttQueue
            if mqttDiscovery { settings.discovery = discovery }
            publisher = try MQTTPublisher(settings, logger: logger)
        }
        return SampleOutputs(mqtt: publisher, osc: sender)
    }
}

/// `--mqtt URL`, parsed once as it is read. One that is not a broker's URL is refused by
/// `OutputOptions.validate` in words of our own, which (unlike argument-parser's, that repeat the
/// value) never show the password.
struct BrokerURL: ExpressibleByArgument {
    let broker: Result<MQTTBroker, MQTTURLError>

    init?(argument: String) {
        broker = Result { () throws(MQTTURLError) in try MQTTBroker(url: argument) }
    }
}
