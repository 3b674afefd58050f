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

    /// Installs the handlers; called by the commands that stream frames. Also unblocks the two
    /// signals: a blocked mask is inherited through exec (Foundation's `Process` passes one on),
    /// and a blocked Ctrl-C would wait unseen until the stream ended by itself.
    static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in [SIGINT, SIGTERM] {
            sigaddset(&signals, signalNumber)
            signal(signalNumber) { received in
                if Interrupt.flag != 0 { _exit(128 + received) }
                Interrupt.flag = 1
            }
        }
        sigprocmask(SIG_UNBLOCK, &signals, nil)
    }
}
