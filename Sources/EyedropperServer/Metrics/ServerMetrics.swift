import CoreMetrics
import Eyedropper
import Foundation
import Prometheus

/// The figures `/metrics` gives, in a Prometheus registry of this server's own.
///
/// One registry per application rather than `MetricsSystem.bootstrap`, which may run once per
/// process: tests build many applications in one process, each with its own figures. The capture
/// thread and the request middleware record through swift-metrics types (`Timer`, `Counter`) made
/// with this registry's factory; each metric is made first through the registry with its help
/// text, which swift-metrics has no place for and `promtool check metrics` asks for.
final class ServerMetrics: Sendable {
    let registry = PrometheusCollectorRegistry()
    private let factory: PrometheusMetricsFactory

    /// Seconds to convert one frame to RGB: a histogram from 50 us to 100 ms.
    let conversion: CoreMetrics.Timer
    static let conversionBuckets: [Duration] = [
        .microseconds(50), .microseconds(100), .microseconds(200), .microseconds(500),
        .milliseconds(1), .milliseconds(2), .milliseconds(5), .milliseconds(10),
        .milliseconds(20), .milliseconds(50), .milliseconds(100),
    ]

    // Read from the capture's own figures at each scrape (`CaptureStatistics` and `JPEGCache` own
    // them; these only show them).
    private let sourceUp: Prometheus.Gauge
    private let framesCaptured: Prometheus.Counter
    private let framesDropped: Prometheus.Counter
    private let framesEncoded: Prometheus.Counter
    private let stalledStreamsClosed: Prometheus.Counter
    private let headerTimeouts: Prometheus.Counter
    private let frameRate: Prometheus.Gauge
    private let streamClients: Prometheus.Gauge
    private let residentMemory: Prometheus.Gauge
    /// With --mqtt: whether the broker is connected, the lines published and dropped, and those
    /// waiting.
    private let mqtt: (connected: Prometheus.Gauge, published: Prometheus.Counter, dropped: Prometheus.Counter, queued: Prometheus.Gauge)?
    /// Scrapes one at a time, so each counter's reset and refill is never seen half done. A bare
    /// mutex: there is no value to guard, and a `Locked(())`'s zero-sized value made the thread
    /// sanitizer report a race on the lock object's own header (Tests/Serve, 2026-11-24).
    private let scraping = Monitor()

    private let requests = Locked<[RequestKey: CoreMetrics.Counter]>([:])
    private struct RequestKey: Hashable {
        let route: String
        let method: String
        let status: Int
    }

    /// With --osc: the bundles sent, and those the system would not take.
    private let osc: (sent: Prometheus.Counter, failed: Prometheus.Counter)?
    /// While a white reference is served: the last frame's drift, gains per channel, and whether
    /// it was applied. Made at the first scrape with one, taken away at the first without (a
    /// reload or the page may add or remove it); under `scraping`.
    private nonisolated(unsafe) var reference: ReferenceGauges?
    private struct ReferenceGauges {
        let drift: Prometheus.Gauge
        let gains: [Prometheus.Gauge]
        let applied: Prometheus.Gauge
    }

    init(version: String = EyedropperServer.version, mqtt publishing: Bool = false, osc sending: Bool = false) {
        factory = PrometheusMetricsFactory(registry: registry)
        func name(_ name: String, _ unit: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "eyedropper", metricName: name, unitName: unit, helpText: help)
        }
        let histogram = registry.makeDurationHistogram(
            descriptor: name("conversion", "seconds", "Time to convert one frame to RGB."), buckets: Self.conversionBuckets)
        conversion = CoreMetrics.Timer(label: "eyedropper_conversion_seconds", dimensions: [], handler: histogram, factory: factory)
        sourceUp = registry.makeGauge(descriptor: name("source_up", "", "1 while the source delivers frames, 0 while it is failing."))
        framesCaptured = registry.makeCounter(descriptor: name("frames_captured", "total", "Frames captured and converted to RGB."))
        framesDropped = registry.makeCounter(
            descriptor: name("frames_dropped", "total", "Frames the source delivered that were never converted."))
        framesEncoded = registry.makeCounter(
            descriptor: name("frames_encoded", "total", "Frames compressed to JPEG (once each, on demand)."))
        stalledStreamsClosed = registry.makeCounter(
            descriptor: name(
                "stalled_streams_closed", "total", "Responses cut off because their client took nothing for --stall-timeout."))
        headerTimeouts = registry.makeCounter(
            descriptor: name(
                "header_timeouts", "total", "Connections cut off because a request head was not complete within --header-timeout."))
        frameRate = registry.makeGauge(descriptor: name("frame_rate", "", "Frames converted per second, over the last two seconds."))
        streamClients = registry.makeGauge(descriptor: name("stream_clients", "", "Open MJPEG and event-stream responses."))
        mqtt =
            !publishing
            ? nil
            : (
                connected: registry.makeGauge(descriptor: name("mqtt_connected", "", "1 while the MQTT broker is connected, else 0.")),
                published: registry.makeCounter(
                    descriptor: name("mqtt_published", "total", "Lines handed to the MQTT client for the broker.")),
                dropped: registry.makeCounter(
                    descriptor: name(
                        "mqtt_dropped", "total", "Lines dropped from a full queue while the MQTT broker was slow or away (--mqtt-queue).")),
                queued: registry.makeGauge(descriptor: name("mqtt_queued", "", "Lines waiting for the MQTT broker."))
            )
        osc =
            !sending
            ? nil
            : (
                sent: registry.makeCounter(descriptor: name("osc_sent", "total", "OSC bundles sent (--osc).")),
                failed: registry.makeCounter(
                    descriptor: name(
                        "osc_failed", "total", "OSC bundles the system would not send (nothing listening, a full buffer); dropped."))
            )
        residentMemory = registry.makeGauge(descriptor: name("process_resident_memory", "bytes", "Resident memory of this process."))
        registry.makeGauge(descriptor: name("process_start_time", "seconds", "When this process started, in seconds since 1970."))
            .set(to: Self.processStartTime ?? Date().timeIntervalSince1970)
        registry.makeGauge(descriptor: name("build", "info", "Always 1; the labels say what is running."), labels: [("version", version)])
            .set(to: 1)
    }

    /// The counter of HTTP requests to `route` (the matched route's path; "NotFound", as Hummingbird names it, for none)
    /// answered `status`.
    func requests(route: String, method: String, status: Int) -> CoreMetrics.Counter {
        let key = RequestKey(route: route, method: method, status: status)
        return requests.withLock { counters in
            if let counter = counters[key] { return counter }
            let labels = [("route", route), ("method", method), ("status", "\(status)")]
            let handler = registry.makeCounter(
                descriptor: MetricNameDescriptor(
                    namespace: "eyedropper", subsystem: "http", metricName: "requests", unitName: "total",
                    helpText: "HTTP requests by route, method and status, counted when the response head is ready."),
                labels: labels)
            let counter = CoreMetrics.Counter(
                label: "eyedropper_http_requests_total", dimensions: labels, handler: handler, factory: factory)
            counters[key] = counter
            return counter
        }
    }

    /// Prometheus' text format 0.0.4, with the capture's figures as `status` gives them.
    func exposition(_ status: StatusReport) -> String {
        scraping.locked {
            sourceUp.set(to: status.error == nil ? 1 : 0)
            for (counter, value) in [
                (framesCaptured, status.framesCaptured), (framesDropped, status.framesDropped),
                (framesEncoded, status.framesEncoded), (stalledStreamsClosed, status.stalledStreamsClosed),
                (headerTimeouts, status.headerTimeouts),
            ] {
                counter.reset()
                counter.increment(by: Int64(value))
            }
            if let mqtt, let figures = status.mqtt {
                mqtt.connected.set(to: figures.connected ? 1 : 0)
                for (counter, value) in [(mqtt.published, figures.published), (mqtt.dropped, figures.dropped)] {
                    counter.reset()
                    counter.increment(by: Int64(value))
                }
                mqtt.queued.set(to: Double(figures.queued))
            }
            if let osc, let figures = status.osc {
                for (counter, value) in [(osc.sent, figures.sent), (osc.failed, figures.failed)] {
                    counter.reset()
                    counter.increment(by: Int64(value))
                }
            }
            if let figures = status.reference {
                let gauges = reference ?? makeReferenceGauges()
                reference = gauges
                gauges.drift.set(to: figures.deltaE ?? .nan)
                for (gauge, gain) in zip(gauges.gains, figures.gains ?? [1, 1, 1]) { gauge.set(to: gain) }
                gauges.applied.set(to: figures.applied ? 1 : 0)
            } else if let gauges = reference {
                for gauge in [gauges.drift, gauges.applied] + gauges.gains { registry.unregisterGauge(gauge) }
                reference = nil
            }
            frameRate.set(to: status.frameRate)
            streamClients.set(to: Double(status.streamClients))
            if let bytes = Self.residentBytes { residentMemory.set(to: bytes) }
            return registry.emitToString()
        }
    }

    private func makeReferenceGauges() -> ReferenceGauges {
        func name(_ name: String, _ help: String) -> MetricNameDescriptor {
            MetricNameDescriptor(namespace: "eyedropper", metricName: name, unitName: "", helpText: help)
        }
        return ReferenceGauges(
            drift: registry.makeGauge(
                descriptor: name(
                    "reference_drift_delta_e",
                    "CIEDE2000 of the white reference in the last frame from what it read at calibration: how far the light moved (NaN before a frame or without the reference)."
                )),
            gains: ["r", "g", "b"].map { channel in
                registry.makeGauge(
                    descriptor: name(
                        "reference_gain",
                        "The white reference's correction in the last frame, per channel (camera RGB with --reference-model diagonal, Bradford's cones with bradford); 1 when not applied."
                    ), labels: [("channel", channel)])
            },
            applied: registry.makeGauge(
                descriptor: name(
                    "reference_applied",
                    "1 when the last frame's readings were corrected by the white reference, 0 when not (clipped, covered, dark, implausible, none)."
                )))
    }

    /// Resident pages times the page size, from /proc/self/statm; nil where there is none.
    private static var residentBytes: Double? {
        guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = statm.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// The process's start from /proc/self/stat (clock ticks after boot) and /proc/stat's btime.
    private static var processStartTime: Double? {
        guard let stat = try? String(contentsOfFile: "/proc/self/stat", encoding: .utf8),
            let system = try? String(contentsOfFile: "/proc/stat", encoding: .utf8),
            let afterName = stat.lastIndex(of: ")")
        else { return nil }
        // Fields after the command name start at field 3; starttime is field 22.
        let fields = stat[stat.index(after: afterName)...].split(separator: " ")
        guard fields.count > 19, let ticks = Double(fields[19]),
            let line = system.split(separator: "\n").first(where: { $0.hasPrefix("btime ") }),
            let boot = Double(line.dropFirst(6))
        else { return nil }
        return boot + ticks / Double(sysconf(Int32(_SC_CLK_TCK)))
    }
}
