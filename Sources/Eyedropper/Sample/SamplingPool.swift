/// Samples a stream of frames on several worker threads at once, each worker with its own
/// `ColorSampler`, and delivers the results in frame order.
///
/// The caller's thread reads frames (sources are sequential) into free slots and delivers
/// results; the workers sample. Each slot's frame buffer, sampler and result array are made once
/// and reused, so a run's steady state allocates nothing per frame.
public final class SamplingPool {
    public let workers: Int
    public let points: [SamplePoint]
    public let radius: Int
    public let colorimetry: Colorimetry?

    public init(workers: Int, points: [SamplePoint], radius: Int = 0, colorimetry: Colorimetry? = nil) throws(SamplingError) {
        precondition(workers >= 1, "a pool needs at least one worker, got \(workers)")
        guard (0...SamplingError.maximumRadius).contains(radius) else { throw .radiusOutOfRange(radius) }
        self.workers = workers
        self.points = points
        self.radius = radius
        self.colorimetry = colorimetry
    }

    /// Runs frames through the workers until `fill` returns false.
    ///
    /// `fill` writes the next frame into a free buffer of `layout`, `width` x `height` (setting its
    /// colorimetry if the source knows it) and returns whether there was one; `deliver` receives
    /// frame 0, 1, 2... with its samples. Both run on the calling thread. The first error, from
    /// `fill`, a worker or `deliver`, ends the run and is rethrown once the workers have stopped;
    /// frames after it are not delivered.
    public func run(
        layout: PixelLayout, width: Int, height: Int, colorimetry frameColorimetry: Colorimetry,
        fill: (FrameBuffer) throws -> Bool,
        deliver: (_ frame: Int, _ samples: [ColorSample]) throws -> Void
    ) throws {
        // Two slots per worker, so a worker can start the next frame while one waits for delivery.
        let slots = try (0..<(2 * workers)).map { _ in
            Slot(
                buffer: try FrameBuffer(layout: layout, width: width, height: height, colorimetry: frameColorimetry),
                sampler: ColorSampler(colorimetry: colorimetry))
        }
        let board = Board(slots: slots)
        let (points, radius) = (self.points, self.radius)
        let threads = (0..<workers).map { _ in Thread { board.work(points: points, radius: radius) } }
        defer {
            board.stop()
            for thread in threads { thread.join() }
        }

        var filled = 0, delivered = 0, ended = false
        while !ended || delivered < filled {
            switch board.next(delivering: delivered, canFill: !ended) {
            case let .deliver(slot):
                defer { board.release(slot) }
                if let error = slot.error { throw error }
                try deliver(delivered, slot.samples)
                delivered += 1
            case let .fill(slot):
                if try fill(slot.buffer) {
                    board.submit(slot, frame: filled)
                    filled += 1
                } else {
                    board.release(slot)
                    ended = true
                }
            }
        }
    }
}

/// One frame's worth of reusable state. Owned by exactly one party at a time (the caller while
/// free or being filled or delivered, one worker while sampling): `Board` hands it over under
/// its monitor, which is what makes the `@unchecked Sendable` sound.
private final class Slot: @unchecked Sendable {
    enum State {
        case free, filling
        case ready(frame: Int)
        case sampling(frame: Int)
        case done(frame: Int)
        case delivering
    }

    let buffer: FrameBuffer
    let sampler: ColorSampler
    var samples: [ColorSample] = []
    var error: (any Error)?
    var state = State.free

    init(buffer: FrameBuffer, sampler: ColorSampler) {
        self.buffer = buffer
        self.sampler = sampler
    }
}

/// The slots and their states, shared by the caller and the workers under one monitor.
private final class Board: @unchecked Sendable {
    enum Turn {
        case deliver(Slot)
        case fill(Slot)
    }

    private let monitor = Monitor()
    private let slots: [Slot]
    private var stopping = false

    init(slots: [Slot]) { self.slots = slots }

    /// Waits until frame `frame` is sampled (deliver it) or, if `canFill`, a slot is free (fill it).
    func next(delivering frame: Int, canFill: Bool) -> Turn {
        monitor.locked {
            while true {
                if let done = slots.first(where: { if case .done(frame) = $0.state { true } else { false } }) {
                    done.state = .delivering
                    return .deliver(done)
                }
                if canFill, let free = slots.first(where: { if case .free = $0.state { true } else { false } }) {
                    free.state = .filling
                    return .fill(free)
                }
                monitor.wait()
            }
        }
    }

    func submit(_ slot: Slot, frame: Int) {
        monitor.locked {
            slot.state = .ready(frame: frame)
            monitor.broadcast()
        }
    }

    func release(_ slot: Slot) {
        monitor.locked {
            slot.state = .free
            monitor.broadcast()
        }
    }

    /// A worker's loop: take the oldest ready frame, sample it, mark it done.
    func work(points: [SamplePoint], radius: Int) {
        while let (slot, frame) = take() {
            do {
                try slot.buffer.withFrame { frame in
                    try slot.sampler.sample(frame, at: points, radius: radius, into: &slot.samples)
                }
                slot.error = nil
            } catch {
                slot.error = error
            }
            monitor.locked {
                slot.state = .done(frame: frame)
                monitor.broadcast()
            }
        }
    }

    /// The oldest ready slot, now sampling, and its frame number; nil when stopping.
    private func take() -> (Slot, Int)? {
        monitor.locked {
            while !stopping {
                var oldest: (slot: Slot, frame: Int)?
                for slot in slots {
                    if case let .ready(frame) = slot.state, frame < oldest?.frame ?? .max { oldest = (slot, frame) }
                }
                if let (slot, frame) = oldest {
                    slot.state = .sampling(frame: frame)
                    return (slot, frame)
                }
                monitor.wait()
            }
            return nil
        }
    }

    func stop() {
        monitor.locked {
            stopping = true
            monitor.broadcast()
        }
    }
}
