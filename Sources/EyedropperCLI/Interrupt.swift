#if canImport(Glibc)
import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM as a request to stop after the current frame, so a stream ends
/// the way a frame limit ends it: its last line printed, the camera's buffers released, the
/// closing count on stderr. A second signal stops at once.
enum Interrupt {
    /// Written only by the signal handler; a word-sized flag read once per frame.
    nonisolated(unsafe) private static var flag: sig_atomic_t = 0

    static var requested: Bool { flag != 0 }

    /// Installs the handlers; called by the commands that stream frames.
    static func install() {
        for signalNumber in [SIGINT, SIGTERM] {
            signal(signalNumber) { received in
                if Interrupt.flag != 0 { _exit(128 + received) }
                Interrupt.flag = 1
            }
        }
    }
}
