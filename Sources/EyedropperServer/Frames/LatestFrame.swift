import Eyedropper

/// What is known about one published frame; its pixels stay in `LatestFrame`.
public struct FrameInfo: Sendable {
    /// 0 for the first frame published since the server started.
    public let number: Int
    /// Seconds: the driver's for a camera, from the frame rate otherwise.
    public let timestamp: Double
    public let width: Int
    public let height: Int
    /// What the frame was converted with.
    public let colorimetry: Colorimetry
    /// The settings the frame was read with, and their generation: a request about this frame
    /// reads it with them, whatever was applied since.
    let generation: Int
    let settings: ServeSettings
    /// The reading at the configured points.
    let reading: ServedReading?

    /// A frame read with no settings and at no points: for a store alone.
    package init(number: Int, timestamp: Double, width: Int, height: Int, colorimetry: Colorimetry) {
        self.init(
            number: number, timestamp: timestamp, width: width, height: height, colorimetry: colorimetry, generation: 0,
            settings: .none, reading: nil)
    }

    init(
        number: Int, timestamp: Double, width: Int, height: Int, colorimetry: Colorimetry, generation: Int,
        settings: ServeSettings, reading: ServedReading?
    ) {
        self.number = number
        self.timestamp = timestamp
        self.width = width
        self.height = height
        self.colorimetry = colorimetry
        self.generation = generation
        self.settings = settings
        self.reading = reading
    }
}

/// Why there is no frame to answer with: the endpoints say so with 503.
enum FrameUnavailable: Error, Hashable, Sendable, CustomStringConvertible {
    case noFrameYet
    /// The source failed, for the reason given.
    case sourceFailed(String)

    var description: String {
        switch self {
        case .noFrameYet: "no frame captured yet"
        case let .sourceFailed(reason): reason
        }
    }
}

/// One frame's memory: its RGB24 (for sampling, PPM and JPEG) and a payload the store never
/// looks into (serve's: the frame's planes in JPEG's Y'CbCr, `ServedFrames`). Written only by the
/// capture thread while it is neither the newest frame nor held by a reader (`LatestFrame` keeps
/// that rule), so it needs no lock of its own.
final class FrameSlot<Payload: AnyObject>: @unchecked Sendable {
    private(set) var bytes = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    /// Kept with the slot because readers use it later, on other threads, after the camera's
    /// buffer has gone back to the driver.
    let payload: Payload
    var info: FrameInfo?

    init(payload: Payload) { self.payload = payload }

    deinit { bytes.deallocate() }

    /// Grows the memory (only) when a frame is larger than any before.
    func reserve(_ byteCount: Int) {
        guard bytes.count < byteCount else { return }
        bytes.deallocate()
        bytes = .allocate(byteCount: byteCount, alignment: 64)
    }
}

/// The newest converted frame, published by the capture thread and read by any number of requests.
///
/// Slots are reused: the capture thread converts into one that is not the newest and that no
/// reader holds, then makes it the newest in one step under the lock, so readers never see a frame
/// half written and never hold the capture thread up. Three slots suffice while readers are quick;
/// a reader that holds one longer only makes the pool grow by one, once. Each slot carries a
/// `Payload` of the owner's, made by `makePayload`, filled and read beside the frame's RGB.
package final class LatestFrame<Payload: AnyObject>: Sendable {
    private struct State {
        var slots: [FrameSlot<Payload>] = []
        var readers: [Int] = []
        var newest: Int?
        var waiters: [Int: CheckedContinuation<FrameInfo?, Never>] = [:]
        var nextWaiter = 0
        var closed = false
        /// Why no frames are coming (the camera failed), until the next frame arrives.
        var failure: String?
    }

    private let state = Locked(State())
    private let makePayload: @Sendable () -> Payload

    package init(slots: Int = 3, payload makePayload: @escaping @Sendable () -> Payload) {
        self.makePayload = makePayload
        state.withLock { state in
            state.slots = (0..<slots).map { _ in FrameSlot(payload: makePayload()) }
            state.readers = Array(repeating: 0, count: slots)
        }
    }

    /// Capture thread: lends `byteCount` bytes of a free slot and its payload to `fill`, which
    /// converts a frame into them and says what it is; then that frame becomes the newest and every
    /// waiter is woken.
    package func publish(byteCount: Int, _ fill: (UnsafeMutableRawBufferPointer, Payload) -> FrameInfo) {
        let (index, slot) = state.withLock { state in
            let index =
                state.slots.indices.first { $0 != state.newest && state.readers[$0] == 0 }
                ?? {
                    state.slots.append(FrameSlot(payload: makePayload()))
                    state.readers.append(0)
                    return state.slots.count - 1
                }()
            return (index, state.slots[index])
        }
        slot.reserve(byteCount)
        let info = fill(UnsafeMutableRawBufferPointer(rebasing: slot.bytes[..<byteCount]), slot.payload)
        slot.info = info
        let waiters = state.withLock { state in
            state.newest = index
            state.failure = nil
            defer { state.waiters.removeAll(keepingCapacity: true) }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: info) }
    }

    /// Lends the newest frame and its RGB24 pixels to `body`; nil when there is no frame yet.
    package func withNewest<R>(_ body: (FrameInfo, UnsafeRawBufferPointer) throws -> R) rethrows -> R? {
        try withNewestSlot { info, rgb, _ in try body(info, rgb) }
    }

    /// Lends the newest frame with its RGB24 pixels and its slot's payload to `body`; nil when
    /// there is no frame yet.
    package func withNewestSlot<R>(_ body: (FrameInfo, UnsafeRawBufferPointer, Payload) throws -> R) rethrows -> R? {
        let held: (Int, FrameSlot<Payload>)? = state.withLock { state in
            guard let newest = state.newest else { return nil }
            state.readers[newest] += 1
            return (newest, state.slots[newest])
        }
        guard let (index, slot) = held else { return nil }
        defer { state.withLock { $0.readers[index] -= 1 } }
        return try body(slot.info!, UnsafeRawBufferPointer(slot.bytes), slot.payload)
    }

    /// The newest frame, if any.
    package var newest: FrameInfo? {
        state.withLock { state in state.newest.flatMap { state.slots[$0].info } }
    }

    /// Why frames are not coming, while they are not.
    package var failure: String? { state.withLock { $0.failure } }

    package func fail(_ reason: String) { state.withLock { $0.failure = reason } }

    /// Waits until there is a frame newer than frame `number` (-1: any frame) and returns it; nil
    /// once the store is closed with none newer, or the waiting task is cancelled.
    package func frame(after number: Int) async -> FrameInfo? {
        let id = state.withLock { state in
            state.nextWaiter += 1
            return state.nextWaiter
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ready: FrameInfo?? = state.withLock { state in
                    if Task.isCancelled { return .some(nil) }
                    if let newest = state.newest, let info = state.slots[newest].info, info.number > number {
                        return .some(info)
                    }
                    if state.closed { return .some(nil) }
                    state.waiters[id] = continuation
                    return .none
                }
                if let ready { continuation.resume(returning: ready) }
            }
        } onCancel: {
            state.withLock { $0.waiters.removeValue(forKey: id) }?.resume(returning: nil)
        }
    }

    /// `frame(after:)`, waiting until `deadline` at most: nil past it.
    package func frame(after number: Int, until deadline: ContinuousClock.Instant) async -> FrameInfo? {
        await withTaskGroup(of: FrameInfo?.self) { group in
            group.addTask { await self.frame(after: number) }
            group.addTask {
                try? await Task.sleep(until: deadline, clock: .continuous)
                return nil
            }
            defer { group.cancelAll() }
            return await group.next() ?? nil
        }
    }

    /// Ends every wait, now and later, once the newest frame is taken: the server is shutting
    /// down.
    package func close() {
        let waiters = state.withLock { state in
            state.closed = true
            defer { state.waiters.removeAll() }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume(returning: nil) }
    }

    /// Takes waits again after `close`: for a test's server that ended its streams and goes on.
    package func reopen() { state.withLock { $0.closed = false } }
}

extension LatestFrame {
    /// A published frame read with settings of `generation` or a later one: the newest if it is,
    /// else the next such; nil when none is published by `deadline` (or the store closes).
    func frame(ofGeneration generation: Int, until deadline: ContinuousClock.Instant) async -> FrameInfo? {
        var info = newest
        while true {
            if let info, info.generation >= generation { return info }
            guard let next = await frame(after: info?.number ?? -1, until: deadline) else { return nil }
            info = next
        }
    }
}
