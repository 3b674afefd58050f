/// An OSC time tag: NTP's 64-bit fixed point, seconds since 1900-01-01 UTC in the high 32 bits
/// and the fraction of a second in the low 32, written big-endian after `#bundle`.
package struct OSCTimeTag: Hashable, Sendable {
    /// The 64 bits as sent.
    package let bits: UInt64

    /// Seconds from 1900 (NTP's epoch) to 1970 (Unix's): 70 years, 17 of them leap.
    package static let unixEpoch: UInt64 = 2_208_988_800

    /// "Immediately", OSC's special tag (0 seconds, fraction 1).
    package static let immediately = OSCTimeTag(bits: 1)

    package init(bits: UInt64) {
        self.bits = bits
    }

    /// The tag of `seconds` since 1970 (UTC), the fraction truncated (to 2^-32 s, 233 ps). The
    /// seconds wrap modulo 2^32 as NTP's do (the next era starts in February 2036), which OSC
    /// receivers that read the tag as NTP undo the same way. A time that is not finite, before
    /// 1900 or millions of years away cannot be a frame's; it becomes `immediately`.
    package init(seconds: Double) {
        guard seconds >= -Double(Self.unixEpoch), seconds < 1e15 else {
            self = .immediately
            return
        }
        let whole = seconds.rounded(.down)
        let fraction = min(((seconds - whole) * 4_294_967_296).rounded(.down), 4_294_967_295)
        let high = (Self.unixEpoch &+ UInt64(bitPattern: Int64(whole))) & 0xFFFF_FFFF
        bits = high << 32 | UInt64(fraction)
    }
}
