import Eyedropper
import NIOCore

/// The camera's frames as YUV4MPEG2 for whoever records them (`GET /api/v1/recording.y4m`, the
/// page's Record button): as `eyedropper record` writes them, the planes unchanged (as I420), the
/// colorimetry and controls in the header, each frame's time in its `FRAME` line.
///
/// While nobody records, the capture thread does nothing here; while someone does, it copies
/// each frame's planes once, into one buffer every recorder shares. A recorder slower than the
/// camera loses the oldest frames past `backlog`, counted; a source that changes size or
/// colorimetry ends every recording (a file holds one of each).
final class RecordingTap: Sendable {
    /// One recorder's stream: the header, then one chunk per frame.
    typealias Chunks = AsyncStream<ByteBuffer>

    private struct Recorder {
        let continuation: Chunks.Continuation
        /// The header it was sent; nil until its first frame.
        var header: Y4MHeader?
    }

    private struct State {
        var recorders: [Int: Recorder] = [:]
        var next = 0
    }

    /// Frames a recorder may fall behind by (at 1080p, 3.1 MB each).
    let backlog: Int
    private let state = Locked(State())

    init(backlog: Int = 30) { self.backlog = backlog }

    /// A new recording: its chunks from the next frame on, until `stop(id)` or the source changes.
    func start() -> (id: Int, chunks: Chunks) {
        let (stream, continuation) = Chunks.makeStream(bufferingPolicy: .bufferingOldest(backlog))
        let id = state.withLock { state in
            state.next += 1
            state.recorders[state.next] = Recorder(continuation: continuation)
            return state.next
        }
        continuation.onTermination = { [weak self] _ in self?.stop(id) }
        return (id, stream)
    }

    func stop(_ id: Int) {
        let recorder = state.withLock { $0.recorders.removeValue(forKey: id) }
        recorder?.continuation.finish()
    }

    var isRecording: Bool { state.withLock { !$0.recorders.isEmpty } }

    /// Capture thread, every frame: its planes to every recorder, with its time and the
    /// camera's `controls`; nothing while nobody records.
    func offer(_ frame: borrowing PlanarFrame, timestamp: Double, frameRate: Double?, controls: [String: Int]) {
        guard isRecording else { return }
        let header = Y4MHeader(
            width: frame.width, height: frame.height, frameRate: Y4MFrameRate(fps: frameRate ?? 30), colorimetry: frame.colorimetry,
            controls: controls)
        let line = Y4MWriter.frameLine(time: timestamp)
        var chunk = ByteBufferAllocator().buffer(capacity: line.utf8.count + header.frameByteCount)
        chunk.writeString(line)
        chunk.writeWithUnsafeMutableBytes(minimumWritableBytes: header.frameByteCount) { bytes in
            Y4MWriter.packI420(frame, into: UnsafeMutableRawBufferPointer(rebasing: bytes[..<header.frameByteCount]))
            return header.frameByteCount
        }
        let ended = state.withLock { state -> [Recorder] in
            var ended: [Recorder] = []
            for (id, var recorder) in state.recorders {
                if let started = recorder.header {
                    // The same stream: size and colorimetry as the header said.
                    guard started.width == header.width, started.height == header.height, started.colorimetry == header.colorimetry
                    else {
                        ended.append(state.recorders.removeValue(forKey: id)!)
                        continue
                    }
                } else {
                    recorder.header = header
                    state.recorders[id] = recorder
                    recorder.continuation.yield(ByteBuffer(string: header.line))
                }
                recorder.continuation.yield(chunk)
            }
            return ended
        }
        for recorder in ended { recorder.continuation.finish() }
    }
}
