import ArgumentParser
import Eyedropper
import EyedropperCalibration

/// `eyedropper chart`: finds the ColorChecker in each frame and prints where its patches are.
struct Chart: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find a ColorChecker Classic 24 in each frame and print its patches.",
        discussion: """
            Prints one JSON line a frame: {"frame":N,"found":true,"confidence":C,"mirrored":B,\
            "patches":[{"number":1,"center":[X,Y],"corners":[[X,Y],[X,Y],[X,Y],[X,Y]],\
            "mean":[R,G,B],"sd":[R,G,B]},...]}, patch 1 (dark skin) first, 24 in all. \
            Coordinates are in the --at system (0...1 from the frame's top left); a patch's \
            corners go round it as the chart is upright (top left, top right, bottom right, \
            bottom left); mean and sd are in levels over the middle of the patch, away from \
            its edges. confidence (0...1) says how closely the colours fit the chart the way \
            it was read and by how much that beats every other way; mirrored says the chart \
            is seen in a mirror (it is still read right). A frame without the chart, with \
            two, or with one the detector is not sure of (confidence under 0.5) prints \
            {"frame":N,"found":false,"reason":"...","detail":"..."}.

            Any roll, a tilt away from the camera, a chart down to about 150 pixels wide; \
            other things may be in view. Exits 65 when no frame had the chart.
            """
    )

    @OptionGroup var input: SourceOptions

    @Option(help: "Frames to look at (default: 1 from the test pattern, else every frame until interrupted).")
    var frames: Int?

    func validate() throws {
        if let frames, frames < 1 { throw ValidationError("--frames must be at least 1, got \(frames)") }
    }

    func run() throws {
        let configuration = try input.configuration()
        let sampler = ColorSampler()
        let detector = ChartDetector()
        var found = 0, index = 0
        try input.forEachFrame(configuration, limit: frames, done: "searched") { frame, _ in
            let line = try sampler.withRGB24(frame) { rgb in
                do throws(ChartDetectionFailure) {
                    try detector.detect(rgb24: rgb.bytes, width: rgb.width, height: rgb.height)
                    found += 1
                    return Self.json(frame: index, detector.chart)
                } catch {
                    return Self.json(frame: index, failure: error)
                }
            }
            print(line)
            index += 1
        }
        if found == 0 {
            throw CommandFailure(
                index == 0 ? "no frames were read from the source" : "no ColorChecker in any of the \(index) frames",
                status: index == 0 ? 66 : 65)
        }
    }

    /// `{"frame":N,"found":true,...}`: coordinates with 5 decimals (a tenth of a pixel up to 10,000
    /// pixels), levels with 2.
    static func json(frame: Int, _ chart: DetectedChart) -> String {
        let width = Double(chart.width), height = Double(chart.height)
        func point(_ p: SIMD2<Double>) -> String {
            "[\(DecimalText.fixed(min(max(p.x / width, 0), 1), 5)),\(DecimalText.fixed(min(max(p.y / height, 0), 1), 5))]"
        }
        func triple(_ v: SIMD3<Double>) -> String {
            "[\(DecimalText.fixed(v.x, 2)),\(DecimalText.fixed(v.y, 2)),\(DecimalText.fixed(v.z, 2))]"
        }
        let patches = (0..<24).map { patch in
            let corners = (0..<4).map { point(chart.corners[4 * patch + $0]) }.joined(separator: ",")
            return #"{"number":\#(patch + 1),"center":\#(point(chart.centers[patch])),"corners":[\#(corners)],"#
                + #""mean":\#(triple(chart.means[patch])),"sd":\#(triple(chart.deviations[patch]))}"#
        }
        return #"{"frame":\#(frame),"found":true,"confidence":\#(DecimalText.fixed(chart.confidence, 2)),"#
            + #""mirrored":\#(chart.mirrored),"patches":[\#(patches.joined(separator: ","))]}"#
    }

    static func json(frame: Int, failure: ChartDetectionFailure) -> String {
        #"{"frame":\#(frame),"found":false,"reason":"\#(failure.reason)","detail":\#(JSONText.string(failure.description))}"#
    }
}
