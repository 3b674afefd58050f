import Eyedropper
import EyedropperTestSupport
import Foundation
import Testing

/// `GET /api/v1/chart` on a served chart: the 24 patches where the chart was drawn, patch 1 first;
/// on the test pattern, `found: false` with the reason (tested as a golden file).
@Suite(.timeLimit(.minutes(1)), .oneHeavySuiteAtATime, serializedInDebugBuilds) struct ChartEndpointTests {
    @Test func findsTheServedChartWhereItWasDrawn() async throws {
        let scratch = try ScratchDirectory()
        let path = scratch.file("chart.y4m")
        // The centres of patches 1, 6, 24 and 19, as the file was drawn.
        let corners = try writeChartY4M(path: path, camera: SimulatedCamera(seed: 3), frames: 30)
        var configuration = serveConfiguration(.file(path))
        configuration.source.matrix = .bt601
        try await withServer(configuration) { client in
            let response = try await client.get("/api/v1/chart")
            #expect(response.status == .ok)
            let object = try #require(try JSONSerialization.jsonObject(with: Data(response.text.utf8)) as? [String: Any])
            #expect(object["found"] as? Bool == true, "\(response.text.prefix(300))")
            let patches = try #require(object["patches"] as? [[String: Any]])
            #expect(patches.map { $0["number"] as? Int } == Array(1...24))
            try expectCornerPatches(patches, drawnAt: corners)
        }
    }
}
