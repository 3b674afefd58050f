import Eyedropper
import EyedropperCalibration
import EyedropperCapture
import EyedropperOutputs
import EyedropperPipeline
import Logging
import Synchronization

/// The one capture of the server: reads frames from its `FrameSource` on a thread of its own,
/// converts each once into `LatestFrame`, samples the configured points, and never waits for a
/// client.
///
/// A source that fails leaves the reason in `LatestFrame.failure` (the endpoints answer 503 with
/// it) while the server keeps running; the source's reconnect policy says whether it is waited
/// out.
final class CaptureLoop: Sendable {
    private let configuration: ServeConfiguration
    private let frames: ServedFrames
    private let jpegDemand: JPEGDemand
    private let statistics: CaptureStatistics
    private let controls: CameraControls?
    private let settings: LiveSettings
    private let history: ReadingHistory
    /// `--mqtt`, `--osc`: where each frame's samples go too.
    private let outputs: SampleOutputs?
    /// Hears from the capture's thread on every frame and every wait (systemd's watchdog).
    private let notifier: SystemdNotifier
    /// Called after every frame and at every failure: the first of them makes the service ready.
    private let outcome: @Sendable () -> Void
    private let logger: Logger
    private let stopping = Atomic<Bool>(false)
    private let thread = Locked<Thread?>(nil)

    /// `controls`: the camera's, which the service's API sets too; applied at every open, so
    /// what was set through the API survives a reconnect.
    init(
        configuration: ServeConfiguration, frames: ServedFrames, jpegDemand: JPEGDemand, statistics: CaptureStatistics,
        controls: CameraControls?, settings: LiveSettings, history: ReadingHistory, outputs: SampleOutputs?,
        notifier: SystemdNotifier, outcome: @escaping @Sendable () -> Void, logger: Logger
    ) {
        self.configuration = configuration
        self.notifier = notifier
        self.outcome = outcome
        self.settings = settings
        self.history = history
        self.frames = frames
        self.jpegDemand = jpegDemand
        self.statistics = statistics
        self.controls = controls
        self.outputs = outputs
        self.logger = logger
    }

    func start() {
        thread.withLock { $0 = Thread { [self] in run() } }
    }

    /// Ends the capture and waits for its thread, which releases the camera; within the camera's
    /// frame timeout at most.
    func stop() {
        stopping.store(true, ordering: .relaxed)
        thread.withLock { thread in
            thread?.join()
            thread = nil
        }
    }

    private var stopped: Bool { stopping.load(ordering: .relaxed) }

    private func run() {
        var publisher = FramePublisher(
            configuration: configuration, frames: frames, jpegDemand: jpegDemand, statistics: statistics, settings: settings,
            history: history, outputs: outputs, logger: logger)
        do {
            // A wait for a camera asks `isStopped` every tenth of a second: the thread is alive.
            let source = try FrameSource(
                configuration.source, logger: logger, controls: controls,
                isStopped: { [self] in
                    notifier.captureIsAlive()
                    return stopped
                },
                onOutage: { [frames, outcome] in
                    frames.fail("\($0)")
                    outcome()
                })
            var (stream, dropped): (String?, Int) = (nil, 0)
            while !stopped,
                try source.next({ frame, timestamp in
                    // A camera's stream is known once it is open, and may change when it comes back.
                    if source.stream != stream {
                        stream = source.stream
                        statistics.setStream(stream)
                    }
                    publisher.publish(frame, timestamp: timestamp)
                })
            {
                statistics.addDropped(source.framesDropped - dropped)
                dropped = source.framesDropped
                notifier.captureIsAlive()
                outcome()
            }
        } catch {
            frames.fail("\(error)")
            logger.error("\(error)")
        }
        outcome()
    }
}

/// Converts each frame into `LatestFrame` and reads it through the pipeline (the configured
/// points, calibrated with the settings in use), with one converter kept while the colorimetry
/// stays the same, and one pipeline while the settings' generation does. Each reading goes into
/// the history before its frame is published, then to the outputs.
struct FramePublisher {
    let configuration: ServeConfiguration
    let frames: ServedFrames
    let jpegDemand: JPEGDemand
    let statistics: CaptureStatistics
    let settings: LiveSettings
    let history: ReadingHistory
    let outputs: SampleOutputs?
    let logger: Logger
    private var pipeline: FramePipeline
    /// The settings the pipeline was made with, and their generation.
    private var made: (generation: Int, settings: ServeSettings)
    private var converter: YCbCrConverter?
    private var number = 0

    init(
        configuration: ServeConfiguration, frames: ServedFrames, jpegDemand: JPEGDemand, statistics: CaptureStatistics,
        settings: LiveSettings, history: ReadingHistory, outputs: SampleOutputs?, logger: Logger
    ) {
        self.configuration = configuration
        self.frames = frames
        self.jpegDemand = jpegDemand
        self.statistics = statistics
        self.settings = settings
        self.history = history
        self.outputs = outputs
        self.logger = logger
        made = settings.current
        pipeline = FramePipeline(
            configuration, settings: made.settings, generation: made.generation, driverClock: configuration.source.source.isCamera)
    }

    mutating func publish(_ frame: borrowing PlanarFrame, timestamp: Double) {
        if settings.generation != made.generation {
            // Settings replaced (a reload, the page): from this frame on (its check says its
            // warnings anew).
            made = settings.current
            pipeline = FramePipeline(
                configuration, settings: made.settings, generation: made.generation, driverClock: configuration.source.source.isCamera)
        }
        let colorimetry = frame.colorimetry  // the source's report, or the configuration's override
        if converter?.colorimetry != colorimetry { converter = YCbCrConverter(colorimetry: colorimetry) }
        let converter = converter!, (width, height) = (frame.width, frame.height)
        var (conversion, published) = (Duration.zero, ContinuousClock.now)
        var served: ServedReading?
        frames.publish(byteCount: width * height * 3) { rgb, planes in
            let start = ContinuousClock.now
            do {
                try converter.convert(frame, to: .rgb24, into: rgb)
            } catch {
                preconditionFailure("the slot was sized for this frame: \(error)")
            }
            conversion = start.duration(to: .now)  // status's conversion times: the RGB alone, as before
            // The JPEGs' planes, kept with the slot while anyone watches: the camera's buffer is gone
            // when an encoder runs. 0.14-0.18 ms for 1080p, allocating nothing (Benchmarks, JPEG
            // suite, eyedropper-remap rows).
            jpegDemand.keepPlanes(of: frame, in: planes)
            published = .now
            let converted = ConvertedFrame(
                rgb: RGBFrame(bytes: UnsafeRawBufferPointer(rgb), width: width, height: height), colorimetry: colorimetry)
            do {
                served = try pipeline.read(converted, number: number, timestamp: timestamp).map(history.append)
            } catch {
                preconditionFailure("the configuration's radius was checked: \(error)")
            }
            // Said before the frame is seen, so that a client that sees it sees the warnings too.
            if let warnings = pipeline.warnings {
                for warning in warnings { logger.warning("warning: \(warning)") }
                statistics.setProfileWarnings(warnings)
            }
            return FrameInfo(
                number: number, timestamp: timestamp, width: width, height: height, colorimetry: colorimetry,
                generation: made.generation, settings: made.settings, reading: served)
        }
        if let served { outputs?.send(served.reading, json: served.json) }
        statistics.recordFrame(conversion: conversion, at: published, colorimetry: colorimetry)
        number += 1
    }
}
