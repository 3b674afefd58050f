import Eyedropper
import EyedropperJPEG
import Hummingbird
import Synchronization

/// One frame compressed to JPEG, shared by every client that asks for that frame.
struct EncodedFrame: Sendable {
    let number: Int
    let jpeg: ByteBuffer
}

/// The newest frame as JPEG, compressed lazily: on the first request for a frame, once, however
/// many clients (stream or not) want it; nothing is compressed while nobody is watching.
///
/// Compression runs on `BlockingWork`'s threads, never on the caller's. One compression of the
/// default quality at a time: a request that arrives while it runs waits for it and then takes its
/// result or, when a newer frame came meanwhile, compresses that.
final class JPEGCache: Sendable {
    private struct State {
        var cached: EncodedFrame?
        var encoding = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let frames: LatestFrame
    private let pool: BlockingWork
    /// Of the cached frames.
    let quality: Int
    private let state = Locked(State())
    /// Frames compressed at `quality` since the start: for the tests and the metrics.
    private let encoded = Atomic<Int>(0)

    init(frames: LatestFrame, quality: Int, pool: BlockingWork) throws(JPEGError) {
        _ = try JPEGEncoder(quality: quality)  // refuses a quality out of range now, not at the first request
        self.frames = frames
        self.quality = quality
        self.pool = pool
    }

    var framesEncoded: Int { encoded.load(ordering: .relaxed) }

    /// The newest frame as JPEG. Throws `FrameUnavailable` when there is no frame yet, or a
    /// `JPEGError`.
    func newest() async throws -> EncodedFrame {
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
        let frames = frames
        return try await pool.withEncoder(quality: quality) { encoder in
            // serve's JPEGs are 4:2:0: compressed from the planes the capture thread remapped.
            let frame = try frames.withNewestSlot { info, _, planes in
                try planes.withPlanes { planes in
                    try encoder.withJPEG(planes: planes) { jpeg in EncodedFrame(number: info.number, jpeg: ByteBuffer(bytes: jpeg)) }
                }
            }
            guard let frame else { throw FrameUnavailable.noFrameYet }
            return frame
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
