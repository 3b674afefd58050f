import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Ctrl-C (SIGINT) and SIGTERM as a request to stop after the current frame, so a stream ends
/// the way a frame limit ends it: its last line printed, the camera's buffers released, the
/// closing count on stderr. A second signal stops at once.
enum Interrupt {
    /// Set by the signal handler on whichever thread the signal lands, read by the frame loop on
    /// another: an atomic, whose lock-free store is safe in a signal handler.
    private static let flag = Atomic<Bool>(false)

    static var requested: Bool { flag.load(ordering: .relaxed) }

    /// Installs the handlers; called by the commands that stream frames. Also unblocks the two
    /// signals: a blocked mask is inherited through exec (Foundation's `Process` passes one on),
    /// and a blocked Ctrl-C would wait unseen until the stream ended by itself.
    static func install() {
        var signals = sigset_t()
        sigemptyset(&signals)
        for signalNumber in [SIGINT, SIGTERM] {
            sigaddset(&signals, signalNumber)
            signal(signalNumber) { received in
                if Interrupt.flag.exchange(true, ordering: .relaxed) { _exit(128 + received) }
            }
        }
        sigprocmask(SIG_UNBLOCK, &signals, nil)
    }
}
