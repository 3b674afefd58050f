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

    package init(limit: Int) {
        precondition(limit >= 1)
        slots = Array(repeating: [], count: limit)
    }

    package var limit: Int { slots.count }

    /// Copies `line` in (under `monitor`), dropping the oldest line when full; wakes the publisher.
    package func push(_ line: String) {
        var line = line
        monitor.locked {
            if count == slots.count {
                head = (head + 1) % slots.count
                count -= 1
                dropped += 1
            }
            let index = (head + count) % slots.count
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
        head = (head + 1) % slots.count
        count -= 1
    }

    /// Puts `line` back as the oldest, unless the ring filled meanwhile (then it counts as
    /// dropped); call inside `monitor.locked`.
    package func putBack(_ line: inout [UInt8]) {
        guard count < slots.count else { dropped += 1; return }
        head = (head + slots.count - 1) % slots.count
        swap(&slots[head], &line)
        count += 1
    }
}
