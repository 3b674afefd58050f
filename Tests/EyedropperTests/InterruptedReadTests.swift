import Eyedropper
import EyedropperTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Signals the handler has seen: proof the reader was signalled, so the test cannot pass vacuously.
/// Atomic: the handler runs on the reading thread, the test reads it on another.
private let signalsHandled = Atomic<Int>(0)

/// A read interrupted by a signal is tried again, not reported: `eyedropper sample` reading a
/// `.y4m` from a pipe must not fail when the terminal is resized (SIGWINCH) or a timer fires.
@Suite struct InterruptedReadTests {
    /// Without `retryOnInterrupt: true` in the file layer the reader's blocked `read` returns
    /// EINTR and this fails with "cannot read: Interrupted system call".
    @Test func aPipeReadInterruptedBySignalsIsRetried() throws {
        // A handler installed without SA_RESTART makes a blocked read return EINTR.
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in signalsHandled.add(1, ordering: .relaxed) }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        var previous = sigaction()
        #expect(sigaction(SIGUSR2, &action, &previous) == 0)
        defer { sigaction(SIGUSR2, &previous, nil) }
        // The test runs on a worker thread that blocks most signals; let this one through.
        var unblocked = sigset_t(), previousMask = sigset_t()
        sigemptyset(&unblocked)
        sigaddset(&unblocked, SIGUSR2)
        #expect(pthread_sigmask(SIG_UNBLOCK, &unblocked, &previousMask) == 0)
        defer { pthread_sigmask(SIG_SETMASK, &previousMask, nil) }
        signalsHandled.store(0, ordering: .relaxed)
        // Should the reader give up and close the pipe, the writer gets EPIPE rather than SIGPIPE.
        let previousPipeHandler = signal(SIGPIPE, SIG_IGN)
        defer { signal(SIGPIPE, previousPipeHandler) }

        let directory = try ScratchDirectory()
        let fifo = directory.file("frames.y4m")
        #expect(mkfifo(fifo, 0o600) == 0)
        let bytes = y4mBytes(header: "YUV4MPEG2 W4 H2 F25:1 Ip A1:1 C420jpeg\n", frames: [tinyFrame(40)])
        let reading = pthread_self()
        // Opens the writing end (which waits for the reader to open), signals the reader while it
        // waits in `read` for the header, then writes the file.
        let writer = Thread {
            let fd = open(fifo, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            for _ in 0..<5 {
                usleep(20_000)
                pthread_kill(reading, SIGUSR2)
            }
            usleep(20_000)
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            close(fd)
        }
        defer { writer.join() }

        let reader = try Y4MReader(path: fifo)
        var firstLuma: [UInt8] = []
        #expect(try reader.readFrame { frame in firstLuma = (0..<4).map { frame.sample(x: $0, y: 0).y } } == .frame)
        #expect(firstLuma == [40, 41, 42, 43])
        #expect(try reader.readFrame { _ in } == .endOfStream)
        #expect(signalsHandled.load(ordering: .relaxed) > 0)
    }
}
