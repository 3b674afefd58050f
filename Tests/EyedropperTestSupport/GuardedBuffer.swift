#if canImport(Glibc)
    import Glibc
#endif

/// Memory with an inaccessible page right before and right after it, so a kernel that reads or
/// writes one byte outside its buffer faults instead of passing (libyuv's tests do the same).
public final class GuardedBuffer {
    public enum Placement: CaseIterable, Sendable {
        /// The first byte follows the leading guard page: catches reads before the start.
        case flushStart
        /// The last byte precedes the trailing guard page: catches reads and writes past the end.
        case flushEnd
    }

    public let bytes: UnsafeMutableRawBufferPointer
    private let mapping: UnsafeMutableRawPointer
    private let mappingSize: Int

    public init(count: Int, placement: Placement) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let dataPages = (count + page - 1) / page
        mappingSize = (dataPages + 2) * page
        guard let map = mmap(nil, mappingSize, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            map != MAP_FAILED
        else { fatalError("mmap of \(mappingSize) bytes failed") }
        mapping = map
        precondition(mprotect(map, page, PROT_NONE) == 0)
        precondition(mprotect(map + (dataPages + 1) * page, page, PROT_NONE) == 0)
        let start = placement == .flushStart ? page : page + dataPages * page - count
        bytes = UnsafeMutableRawBufferPointer(start: map + start, count: count)
    }

    deinit { munmap(mapping, mappingSize) }
}

/// A deterministic byte source (xorshift64*), so failures reproduce.
public struct TestRandom: RandomNumberGenerator {
    private var state: UInt64

    public init(seed: UInt64) { state = seed | 1 }

    public mutating func next() -> UInt64 {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        return state &* 2_685_821_657_736_338_717
    }

    public mutating func fill(_ buffer: UnsafeMutableRawBufferPointer) {
        for index in buffer.indices { buffer[index] = UInt8(truncatingIfNeeded: next() >> 32) }
    }
}
