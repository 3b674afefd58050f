#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The monotonic clock (`CLOCK_MONOTONIC`): for timing frames and spins, never for dates.
public enum MonotonicClock {
    public static var nanoseconds: UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
    }

    public static var seconds: Double { Double(nanoseconds) / 1e9 }
}
