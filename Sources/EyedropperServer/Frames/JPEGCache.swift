import Eyedropper
import EyedropperJPEG
import Hummingbird
import Synchronization

/// serve's frames: each slot's payload is the frame's planes in JPEG's Y'CbCr, which the 4:2:0
/// JPEGs compress from; the capture thread remaps them only while someone wants JPEGs
/// (`JPEGDemand`).
package typealias ServedFrames = LatestFrame<JPEGPlaneBuffer>

/// One frame compressed to JPEG, shared by every client that asks for that frame.
package struct EncodedFrame: Sendable {
    package let number: Int
    package let jpeg: ByteBuffer
}

/// Whether anyone is watching as JPEG: from each JPEG or MJPEG request until `window` after it.
/// Only then does the capture thread remap a frame's planes into JPEG's Y'CbCr for the encoders
/// (0.14-0.18 ms and 3.1 MB a 1080p frame); with no one watching, a frame costs its conversion
/// to RGB alone.
package final class JPEGDemand: Sendable {
    package let window: Duration
    private let clock: any MonotonicClock
    /// Nanoseconds on `clock`.
    private let wantedUntil = Atomic<Int64>(.min)

    /// `clock`: the system's, or a test's moved by hand.
    package init(window: Duration = .seconds(10), clock: any MonotonicClock = SystemClock()) {
        self.window = window
        self.clock = clock
    }

    /// A JPEG is wanted now.
    package func want() { wantedUntil.store(Self.nanoseconds(clock.now + window), ordering: .relaxed) }

    package var isWanted: Bool { Self.nanoseconds(clock.now) < wantedUntil.load(ordering: .relaxed) }

    /// Capture thread: remaps `frame` into its slot's `planes` while JPEGs are wanted; else forgets
    /// the older frame's planes the slot still holds, so that no JPEG is made from them.
    package func keepPlanes(of frame: borrowing PlanarFrame, in planes: JPEGPlaneBuffer) {
        if isWanted { planes.remap(frame) } else { planes.clear() }
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

/// The newest frame as JPEG, compressed lazily: on the first request for a frame, once, however
/// many clients (stream or not) want it; nothing is compressed, or remapped, while nobody is
/// watching.
///
/// A request after nobody watched finds the newest frame without planes: it waits for the next
/// frame (the capture thread remaps again from the request on), a second at most, and compresses
/// that. A source that has stopped or failed has no next frame: its newest frame is compressed
/// from its RGB (libturbojpeg converts it to Y'CbCr and halves the chroma itself).
///
/// Compression runs on `BlockingWork`'s threads, never on the caller's. One compression of the
/// default quality at a time: a request that arrives while it runs waits for it and then takes its
/// result or, when a newer frame came meanwhile, compresses that.
package final class JPEGCache: Sendable {
    private struct State {
        var cached: EncodedFrame?
        var encoding = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let frames: ServedFrames
    private let demand: JPEGDemand
    private let pool: BlockingWork
    /// Of the cached frames.
    let quality: Int
    private let state = Locked(State())
    /// Frames compressed at `quality` since the start: for the tests and the metrics.
    private let encoded = Atomic<Int>(0)
    /// How long a request after nobody watched waits for a frame with planes.
    private static let planesWait: Duration = .seconds(1)

    package init(frames: ServedFrames, demand: JPEGDemand, quality: Int, pool: BlockingWork) throws(JPEGError) {
        _ = try JPEGEncoder(quality: quality)  // refuses a quality out of range now, not at the first request
        self.frames = frames
        self.demand = demand
        self.quality = quality
        self.pool = pool
    }

    var framesEncoded: Int { encoded.load(ordering: .relaxed) }

    /// The newest frame as JPEG. Throws `FrameUnavailable` when there is no frame yet, or a
    /// `JPEGError`.
    package func newest() async throws -> EncodedFrame {
        while true {
            guard let newest = frames.newest else { throw FrameUnavailable.noFrameYet }
            enum Step {
                case done(EncodedFrame)
                case wait, encode
            }
            let step: Step = state.withLock { state in
                if let cached = state.cached, cached.number >= newest.number { return .done(cached) }
                if state.encoding { return .wait }
                state.encoding = true
                return .encode
            }
            switch step {
            case let .done(frame):
                return frame
            case .wait:
                await withCheckedContinuation { continuation in
                    let finished = state.withLock { state in
                        if !state.encoding { return true }
                        state.waiters.append(continuation)
                        return false
                    }
                    if finished { continuation.resume() }
                }
            case .encode:
                let result = await Result { try await encodeNewest(quality: quality) }
                let waiters = state.withLock { state in
                    if case let .success(frame) = result { state.cached = frame }
                    state.encoding = false
                    defer { state.waiters.removeAll() }
                    return state.waiters
                }
                for waiter in waiters { waiter.resume() }
                if case .success = result { encoded.add(1, ordering: .relaxed) }
                return try result.get()
            }
        }
    }

    /// The newest frame at `quality`: the cached frame at the default quality, else compressed for
    /// this request alone.
    func newest(quality: Int) async throws -> EncodedFrame {
        if quality == self.quality { return try await newest() }
        return try await encodeNewest(quality: quality)
    }

    private func encodeNewest(quality: Int) async throws -> EncodedFrame {
        demand.want()
        let deadline = ContinuousClock.now + Self.planesWait
        var orRGB = false
        while true {
            switch try await encodeNewest(quality: quality, orRGB: orRGB) {
            case let .encoded(frame):
                return frame
            case let .noPlanes(number):
                // Nobody watched until now; the frames from here on have planes. A source that has
                // failed or stopped gives no next frame, nor does one slower than the wait.
                let next = frames.failure == nil ? await frames.frame(after: number, until: deadline) : nil
                orRGB = next == nil
            }
        }
    }

    private enum Attempt: Sendable {
        case encoded(EncodedFrame)
        /// The newest frame, number `Int`, has no planes.
        case noPlanes(Int)
    }

    /// serve's JPEGs are 4:2:0: compressed from the planes the capture thread remapped, or, with
    /// `orRGB`, from the frame's RGB when it has none.
    private func encodeNewest(quality: Int, orRGB: Bool) async throws -> Attempt {
        let frames = frames
        return try await pool.withEncoder(quality: quality) { encoder in
            let attempt = try frames.withNewestSlot { info, rgb, planes -> Attempt in
                func encoded(_ jpeg: UnsafeRawBufferPointer) -> Attempt {
                    .encoded(EncodedFrame(number: info.number, jpeg: ByteBuffer(bytes: jpeg)))
                }
                if planes.hasPlanes { return try planes.withPlanes { planes in try encoder.withJPEG(planes: planes, encoded) } }
                guard orRGB else { return .noPlanes(info.number) }
                return try encoder.withJPEG(rgb24: rgb, width: info.width, height: info.height, encoded)
            }
            guard let attempt else { throw FrameUnavailable.noFrameYet }
            return attempt
        }
    }
}

extension Result where Failure == any Error {
    init(catching body: () async throws -> Success) async {
        do {
            self = .success(try await body())
        } catch {
            self = .failure(error)
        }
    }
}
