import CMosquitto
import Eyedropper
import EyedropperPipeline
import Logging
import Synchronization
import SystemPackage

#if canImport(Glibc)
    import Glibc
    import EyedropperPipeline
#endif

/// Publishes each line of samples to `PREFIX/samples` on an MQTT broker, through libmosquitto,
/// without ever holding up the capture: `publish` copies the line into a bounded `MessageQueue`
/// and returns; a thread of its own hands lines to libmosquitto while the broker is connected,
/// at most `maxInFlight` ahead of the broker's acknowledgements (QoS 1) or of the socket (QoS 0).
/// libmosquitto's own thread does the network, keepalive and reconnecting with backoff.
///
/// `PREFIX/status` holds a retained `online` from each connect, and `offline` as the client's last
/// will (the broker says it for a host that dies) and at `close`.
public final class MQTTPublisher: @unchecked Sendable {
    /// What `--mqtt` and its options asked for (the state's, which the callbacks read too).
    public var settings: MQTTSettings { state.settings }
    private let client: OpaquePointer
    private let state: State
    private let thread = Locked<Thread?>(nil)
    /// Lines counted for `--mqtt-every`; the capture thread's alone.
    private let counted = Atomic<Int>(0)

    /// Lines handed to libmosquitto and not yet sent (QoS 0) or acknowledged (QoS 1): a bound on
    /// what libmosquitto holds, so that the queue, not libmosquitto, is where lines wait.
    static let maxInFlight = 64
    /// How long `close` waits for queued lines to reach the broker.
    public static let closeTimeout = 5.0
    /// How long the start waits for the broker's answer.
    static let connectTimeout = 10.0

    /// Connects to the broker, waits for its answer, says `online` and starts publishing. Throws
    /// `OutputError` when the broker cannot be reached or refuses the client.
    public init(_ settings: MQTTSettings, logger: Logger) throws(OutputError) {
        _ = Self.library
        state = State(settings: settings, logger: logger)
        let id = "eyedropper-\(MQTTSettings.hostName())-\(getpid())"
        // QoS 1 keeps its session (clean session off): what the broker had not acknowledged when
        // the connection went is sent again when it is back.
        guard let client = mosquitto_new(id, settings.qos == 0, Unmanaged.passUnretained(state).toOpaque()) else {
            throw OutputError(.unavailable, "mqtt: cannot make a client: \(String(cString: strerror(errno)))")
        }
        self.client = client
        state.client = client
        do {
            try configure(settings)
            try connect()
        } catch {
            mosquitto_destroy(client)
            throw error
        }
        logger.info("mqtt: publishing to \(settings.broker), topic \(settings.samplesTopic) (QoS \(settings.qos))")
        mosquitto_loop_start(client)
        thread.withLock { [state] in $0 = Thread { state.publishLines() } }
    }

    /// Connects and waits, on this thread, for the broker's answer (CONNACK): the start says
    /// whether it took us.
    private func connect() throws(OutputError) {
        let broker = settings.broker
        let connected = mosquitto_connect(client, broker.host, Int32(broker.port), settings.keepAlive)
        guard connected == MOSQ_ERR_SUCCESS.rawValue else {
            throw OutputError(
                .unavailable, "mqtt: cannot reach \(broker): \(Self.text(connected)): check the host and port, and that the broker runs")
        }
        let start = ContinuousClock.now
        while state.answer.withLock({ $0 }) == nil, start.duration(to: .now).inSeconds < Self.connectTimeout {
            let result = mosquitto_loop(client, 100, 1)
            if result != MOSQ_ERR_SUCCESS.rawValue, state.answer.withLock({ $0 }) == nil {
                let tls = broker.tls ? " (with TLS: check that it speaks TLS on that port, and --mqtt-ca)" : ""
                throw OutputError(.unavailable, "mqtt: \(broker) closed the connection before answering: \(Self.text(result))\(tls)")
            }
        }
        switch state.answer.withLock({ $0 }) {
        case 0:
            return
        case let code? where code == 4 || code == 5:
            throw OutputError(
                .refused,
                "mqtt: \(broker) refused the connection: \(Self.sentence(mosquitto_connack_string(code))): check the user name and password in --mqtt (or EYEDROPPER_MQTT_PASSWORD)"
            )
        case let code?:
            throw OutputError(.unavailable, "mqtt: \(broker) refused the connection: \(Self.sentence(mosquitto_connack_string(code)))")
        case nil:
            throw OutputError(.unavailable, "mqtt: \(broker) did not answer within \(Int(Self.connectTimeout)) s")
        }
    }

    /// Options, credentials, TLS, the last will and the callbacks.
    private func configure(_ settings: MQTTSettings) throws(OutputError) {
        let broker = settings.broker
        mosquitto_int_option(client, MOSQ_OPT_PROTOCOL_VERSION, MQTT_PROTOCOL_V311)
        mosquitto_int_option(client, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_reconnect_delay_set(client, 1, 5, true)  // 1, 4, then every 5 s
        if let user = broker.user {
            let password = broker.password ?? getenv("EYEDROPPER_MQTT_PASSWORD").map { String(cString: $0) }
            mosquitto_username_pw_set(client, user, password)
        }
        if broker.tls {
            if let path = settings.certificateAuthorities { try Self.checkReadable(path) }
            let result = mosquitto_tls_set(
                client, settings.certificateAuthorities, settings.certificateAuthorities == nil ? "/etc/ssl/certs" : nil, nil, nil, nil)
            if result != MOSQ_ERR_SUCCESS.rawValue {
                throw OutputError(.unusableFile, "--mqtt-ca \(settings.certificateAuthorities ?? "/etc/ssl/certs"): \(Self.text(result))")
            }
        }
        let offline = Array("offline".utf8)
        mosquitto_will_set(client, settings.statusTopic, Int32(offline.count), offline, 1, true)
        mosquitto_connect_callback_set(client) { _, context, code in State.from(context).connected(code: code) }
        mosquitto_disconnect_callback_set(client) { _, context, code in State.from(context).disconnected(code: code) }
        mosquitto_publish_callback_set(client) { _, context, message in State.from(context).sent(message: message) }
    }

    /// Queues a reading's JSON line (every `settings.every`th: `line` is made only for those);
    /// never waits.
    public func publish(_ line: @autoclosure () -> String) {
        let index = counted.add(1, ordering: .relaxed).oldValue
        guard index % settings.every == 0 else { return }
        state.queue.push(line())
    }

    /// Announces `discovery` (Home Assistant's sensors) in place of what was announced, now if
    /// the broker is connected and at every connect after: what it no longer describes is taken
    /// away (an empty retained config), what it describes anew is added. Nothing when it is what
    /// was announced already.
    public func announce(_ discovery: HomeAssistantDiscovery?) {
        state.announce(discovery)
    }

    /// Waits up to `seconds` for every queued line to be sent (QoS 0) or acknowledged (QoS 1);
    /// returns how many are left. Allocates nothing.
    public func flush(seconds: Double) -> Int {
        state.drain(seconds: seconds, stop: false)
    }

    /// Lines dropped from a full queue since the start (as `status.dropped`, without building
    /// the rest of the status).
    public var dropped: Int { state.queue.monitor.locked { state.queue.dropped } }

    /// The figures of `/api/v1/status` and `/metrics`.
    public var status: Status { state.status }

    /// What has happened to the lines since the start.
    public struct Status: Hashable, Sendable, Codable {
        /// The broker, without the password.
        public let broker: String
        public let topic: String
        public let connected: Bool
        /// Lines handed to libmosquitto.
        public let published: Int
        /// Lines dropped from a full queue (the broker slow or away).
        public let dropped: Int
        /// Lines waiting now.
        public let queued: Int
    }

    /// Sends what is queued (for up to `closeTimeout`), says `offline`, disconnects and stops the
    /// threads. Says on stderr how many lines did not reach the broker, if any.
    public func close() {
        guard
            let publisher = thread.withLock({ thread -> Thread? in
                defer { thread = nil }
                return thread
            })
        else { return }
        let left = state.drain(seconds: Self.closeTimeout, stop: true)
        publisher.join()
        if state.isConnected {
            let offline = Array("offline".utf8)
            var message: Int32 = 0
            if mosquitto_publish(client, &message, settings.statusTopic, Int32(offline.count), offline, 1, true)
                == MOSQ_ERR_SUCCESS.rawValue
            {
                state.awaitSent(message, seconds: 2)
            }
        }
        mosquitto_disconnect(client)
        mosquitto_loop_stop(client, false)
        mosquitto_destroy(client)
        if left > 0 { state.logger.warning("warning: mqtt: \(left) lines did not reach \(settings.broker) before the exit") }
    }

    private static let library: Void = { mosquitto_lib_init() }()

    /// libmosquitto's text for an error, errno's for a system call's.
    static func text(_ result: Int32) -> String {
        result == MOSQ_ERR_ERRNO.rawValue ? String(cString: strerror(errno)) : sentence(mosquitto_strerror(result))
    }

    /// libmosquitto's text without its full stop, to go inside ours.
    private static func sentence(_ text: UnsafePointer<CChar>) -> String {
        let text = String(cString: text)
        return text.hasSuffix(".") ? String(text.dropLast()) : text
    }

    /// Reads `--mqtt-ca` once, as this user, so that a missing (66) or unreadable (77) file is
    /// said as such; libmosquitto itself says only "invalid".
    private static func checkReadable(_ path: String) throws(OutputError) {
        do {
            _ = try FileDescriptor.readWholeFile(path)
        } catch {
            let kind: OutputError.Kind =
                switch error.cause {
                case .notFound: .missingFile
                case .notPermitted: .refused
                case .isDirectory, .other: .unusableFile
                }
            throw OutputError(kind, "--mqtt-ca \(path): cannot read it: \(error.text)")
        }
    }
}
