import Eyedropper
import EyedropperServer
import EyedropperTestSupport
import Foundation
import Hummingbird
import Testing

@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct RecordingEndpointTests {
    /// `GET /api/v1/recording.y4m?frames=3`: YUV4MPEG2 that `Y4MReader` reads, 3 frames of the
    /// test pattern's planes as the source gave them (not its RGB, not JPEG's), each with its own
    /// time, and the matrix in the header. Catches planes remapped or converted on the way, a
    /// header without the matrix, a frame count that is not the one asked, frames sent twice.
    @Test func recordingIsTheSourcesFramesAsY4M() async throws {
        // A capture, not frames handed in: what is recorded is what the capture loop offers, with
        // the times it gave the frames.
        let response = try await withServer(serveConfiguration(.testPattern(width: 64, height: 32), fps: 20), feed: .capturing) { client in
            try await client.get("/api/v1/recording.y4m?frames=3")
        }
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "video/x-yuv4mpeg")
        let scratch = try ScratchDirectory()
        let path = scratch.file("served.y4m")
        try ScratchDirectory.write(response.bytes, to: path)
        let reader = try Y4MReader(path: path)
        #expect(reader.header.matrix == .bt601 && reader.header.range == .limited && reader.header.frameRate?.description == "20:1")
        let pattern = try TestPattern(width: 64, height: 32).makeFrameBuffer()
        var times: [Double] = []
        while try reader.readFrame({ frame in
            for (x, y) in [(4, 4), (36, 10), (60, 30)] {
                #expect(frame.sample(x: x, y: y) == pattern.withFrame { $0.sample(x: x, y: y) })
            }
        }) == .frame {
            times.append(try #require(reader.frameTime))
        }
        #expect(times.count == 3)
        #expect(zip(times, times.dropFirst()).allSatisfy { $1 > $0 }, "\(times)")
    }

    @Test func recordingFramesOutOfRangeIsABadRequest() async throws {
        try await withServer(serveConfiguration(.testPattern(width: 64, height: 32))) { client in
            let response = try await client.get("/api/v1/recording.y4m?frames=1801")
            #expect(response.status == .badRequest)
            #expect(response.text.contains("frames"), "\(response.text)")
        }
    }
}
