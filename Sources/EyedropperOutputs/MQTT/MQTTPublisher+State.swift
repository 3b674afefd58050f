import CMosquitto
import Eyedropper
import Logging

extension MQTTPublisher {
    /// What the capture thread, the publisher thread and libmosquitto's callbacks share: the
    /// queue, and under its monitor whether the broker is connected and how many lines are in
    /// flight. The callbacks come on libmosquitto's thread (on the starting thread while `init`
    /// waits for the broker's answer); nothing here calls libmosquitto while holding the monitor.
    final class State: @unchecked Sendable {
        let settings: MQTTSettings
        let logger: Logger
        let queue: MessageQueue
        /// Set once, by `MQTTPublisher.init`, before any callback.
        var client: OpaquePointer?
        /// The broker's answer to the first connect (0 accepted); nil before it came.
        let answer = Locked<Int32?>(nil)
        /// Home Assistant's sensors as last announced (`settings.discovery`, then `announce`'s),
        /// and the config topics that announcement published.
        private let announced: Locked<(discovery: HomeAssistantDiscovery?, topics: Set<String>)>
        // Under `queue.monitor`:
        private var connected = false
        private var inFlight = 0
        private var published = 0
        private var stopping = false
        /// The connection was lost and not yet back: said on stderr once, and again when back.
        private var lost: (at: ContinuousClock.Instant, dropped: Int)?
        /// The ids of the last messages libmosquitto sent or had acknowledged, for `awaitSent`.
        private var recentlySent = [Int32](repeating: 0, count: 16)
        private var sentCount = 0

        /// The broker as status names it, without the password: made once.
        private let broker: String

        init(settings: MQTTSettings, logger: Logger) {
            self.settings = settings
            broker = settings.broker.description
            self.logger = logger
            queue = MessageQueue(limit: settings.queueLimit)
            announced = Locked((settings.discovery, []))
        }

        static func from(_ context: UnsafeMutableRawPointer?) -> State {
            Unmanaged<State>.fromOpaque(context!).takeUnretainedValue()
        }

        var isConnected: Bool { queue.monitor.locked { connected } }

        var status: Status {
            queue.monitor.locked {
                Status(
                    broker: broker, topic: settings.topic, connected: connected, published: published,
                    dropped: queue.dropped, queued: queue.count)
            }
        }

        /// The broker's CONNACK (libmosquitto's on_connect): on acceptance, says `online` and
        /// announces the Home Assistant sensors (both retained: the broker may have restarted
        /// without them).
        func connected(code: Int32) {
            answer.withLock { if $0 == nil { $0 = code } }
            guard code == 0, let client else { return }
            let online = Array("online".utf8)
            mosquitto_publish(client, nil, settings.statusTopic, Int32(online.count), online, 1, true)
            announced.withLock { announced in announced.topics = publishDiscovery(announced.discovery, replacing: announced.topics) }
            let back = queue.monitor.locked {
                connected = true
                // QoS 1: libmosquitto sends again what the broker had not acknowledged, and each
                // acknowledgement still comes; QoS 0: what it held went with the connection.
                if settings.qos == 0 { inFlight = 0 }
                queue.monitor.broadcast()
                defer { lost = nil }
                return lost.map { ($0.at.duration(to: .now).inSeconds, queue.dropped - $0.dropped) }
            }
            if let (seconds, dropped) = back {
                logger.notice(
                    "mqtt: connected to \(settings.broker) again after \(DecimalText.fixed(seconds, 1)) s; \(dropped) lines dropped meanwhile (queue of \(queue.limit))"
                )
            }
        }

        /// `announce`: publishes `discovery` when it differs from what was announced (now, if
        /// connected; else at the next connect).
        func announce(_ discovery: HomeAssistantDiscovery?) {
            announced.withLock { announced in
                guard announced.discovery != discovery else { return }
                announced.discovery = discovery
                if isConnected { announced.topics = publishDiscovery(discovery, replacing: announced.topics) }
            }
        }

        /// Publishes `discovery`'s configs, retained, and an empty retained config on each of
        /// `old`'s topics it no longer has (Home Assistant then removes that sensor); returns
        /// its topics.
        private func publishDiscovery(_ discovery: HomeAssistantDiscovery?, replacing old: Set<String>) -> Set<String> {
            guard let client else { return old }
            let messages = discovery?.messages(for: settings) ?? []
            for (topic, payload) in messages {
                let bytes = Array(payload.utf8)
                mosquitto_publish(client, nil, topic, Int32(bytes.count), bytes, 1, true)
            }
            let topics = Set(messages.map(\.topic))
            for topic in old.subtracting(topics) { mosquitto_publish(client, nil, topic, 0, nil, 1, true) }
            return topics
        }

        /// libmosquitto's on_disconnect: 0 when we asked for it.
        func disconnected(code: Int32) {
            let newlyLost = queue.monitor.locked {
                connected = false
                queue.monitor.broadcast()
                // A refusal at the start (no answer yet, or not 0) is `init`'s to say.
                guard code != 0, answer.withLock({ $0 }) == 0, !stopping, lost == nil else { return false }
                lost = (.now, queue.dropped)
                return true
            }
            if newlyLost {
                logger.warning(
                    "warning: mqtt: lost \(settings.broker) (\(MQTTPublisher.text(code))): reconnecting, holding up to \(queue.limit) lines meanwhile (the oldest dropped past that)"
                )
            }
        }

        /// libmosquitto's on_publish: a line left (QoS 0) or was acknowledged (QoS 1).
        func sent(message: Int32) {
            queue.monitor.locked {
                inFlight = max(0, inFlight - 1)
                recentlySent[sentCount % recentlySent.count] = message
                sentCount += 1
                queue.monitor.broadcast()
            }
        }

        /// The publisher thread: takes the oldest line whenever the broker is connected and
        /// fewer than `maxInFlight` are in flight, until `drain` says stop.
        func publishLines() {
            guard let client else { return }
            var line: [UInt8] = []
            // The topic as C text made once: passing a String where C wants `const char *`
            // copies it into a new array at every call.
            let topic = ContiguousArray(settings.samplesTopic.utf8CString), qos = settings.qos
            while true {
                let taken = queue.monitor.locked {
                    while !stopping, !(connected && inFlight < MQTTPublisher.maxInFlight && queue.count > 0) { queue.monitor.wait() }
                    guard !stopping else { return false }
                    queue.takeOldest(into: &line)
                    inFlight += 1
                    return true
                }
                guard taken else { return }
                let result = line.withUnsafeBytes { bytes in
                    topic.withUnsafeBufferPointer {
                        mosquitto_publish(client, nil, $0.baseAddress, Int32(bytes.count), bytes.baseAddress, qos, false)
                    }
                }
                queue.monitor.locked {
                    if result == MOSQ_ERR_SUCCESS.rawValue {
                        published += 1
                    } else {
                        // Lost between the check and the call: the line waits for the next connect.
                        inFlight -= 1
                        connected = false
                        queue.putBack(&line)
                    }
                }
            }
        }

        /// Waits up to `seconds` for the queue to empty and the broker to take what is in flight,
        /// then, with `stop`, stops the publisher thread; returns the lines left.
        func drain(seconds: Double, stop: Bool) -> Int {
            let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
            return queue.monitor.locked {
                while queue.count + inFlight > 0, ContinuousClock.now < deadline {
                    _ = queue.monitor.wait(seconds: ContinuousClock.now.duration(to: deadline).inSeconds)
                }
                if stop {
                    stopping = true
                    queue.monitor.broadcast()
                }
                return queue.count + inFlight
            }
        }

        /// Waits up to `seconds` for libmosquitto to send (QoS 0) or have acknowledged (QoS 1)
        /// message `id`.
        func awaitSent(_ id: Int32, seconds: Double) {
            let deadline = ContinuousClock.now.advanced(by: .seconds(seconds))
            queue.monitor.locked {
                while !recentlySent.contains(id), ContinuousClock.now < deadline {
                    _ = queue.monitor.wait(seconds: ContinuousClock.now.duration(to: deadline).inSeconds)
                }
            }
        }
    }
}
