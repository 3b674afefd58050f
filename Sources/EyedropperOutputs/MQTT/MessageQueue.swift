import Eyedropper

/// The lines waiting for the broker: a ring of `limit` byte buffers, each reused once written, so
/// that queueing a line copies it and allocates nothing once every slot has held a line. Full, it
/// drops the oldest line, and counts it: a reading of a minute ago matters less than the newest.
///
/// The capture thread pushes; one publisher thread takes. Both wait on `monitor`, which the
/// publisher's state (connected, messages in flight) shares, so that a change to either wakes it.
package final class MessageQueue: @unchecked Sendable {
    package let monitor = Monitor()
    private var slots: [[UInt8]]
    private var head = 0
    /// Under `monitor`: the lines waiting.
    package private(set) var count = 0
    /// Under `monitor`: the lines dropped for newer ones since the start.
    package private(set) var dropped = 0

    /// The most lines held. A constant of its own, not `slots.count`: read without the monitor
    /// (in what is said on stderr), while the publisher swaps a slot under it.
    package let limit: Int

    package init(limit: Int) {
        precondition(limit >= 1)
        self.limit = limit
        slots = Array(repeating: [], count: limit)
    }

    /// Copies `line` in (under `monitor`), dropping the oldest line when full; wakes the publisher.
    package func push(_ line: String) {
        var line = line
        monitor.locked {
            if count == limit {
                head = (head + 1) % limit
                count -= 1
                dropped += 1
            }
            let index = (head + count) % limit
            slots[index].removeAll(keepingCapacity: true)
            line.withUTF8 { slots[index].append(contentsOf: $0) }
            count += 1
            monitor.broadcast()
        }
    }

    /// Swaps the oldest line into `line` (whose buffer takes its place in the ring); call inside
    /// `monitor.locked`, with `count > 0`.
    package func takeOldest(into line: inout [UInt8]) {
        precondition(count > 0)
        swap(&slots[head], &line)
        head = (head + 1) % limit
        count -= 1
    }

    /// Puts `line` back as the oldest, unless the ring filled meanwhile (then it counts as
    /// dropped); call inside `monitor.locked`.
    package func putBack(_ line: inout [UInt8]) {
        guard count < limit else {
            dropped += 1
            return
        }
        head = (head + limit - 1) % limit
        swap(&slots[head], &line)
        count += 1
    }
}
