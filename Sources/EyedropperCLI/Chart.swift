import ArgumentParser
import Eyedropper
import EyedropperCalibration

/// `eyedropper chart`: finds the ColorChecker in each frame and prints where its patches are.
struct Chart: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Find a ColorChecker (Classic, Mini or Passport) in each frame and print its patches.",
        discussion: """
            Prints one JSON line a frame: {"frame":N,"found":true,"confidence":C,"mirrored":B,\
            "visible":[1,2,...],"colorDeltaE":D,"warnings":[...],"patches":[{"number":1,\
            "center":[X,Y],"corners":[[X,Y],[X,Y],[X,Y],[X,Y]],"mean":[R,G,B],"sd":[R,G,B]},...]}, \
            patch 1 (dark skin) first, 24 in all. Coordinates are in the --at system (0...1 \
            from the frame's top left; beyond it for a patch beyond the frame's edge); a \
            patch's corners go round it as the chart is upright (top left, top right, bottom \
            right, bottom left); mean and sd are in levels over the middle of the patch, away \
            from its edges. confidence (0...1) says by how much the colours fit the chart the \
            way it was read better than any other way; mirrored says the chart is seen in a \
            mirror (it is still read right). visible lists the patches read: up to \
            \(ChartDetector.maximumHidden) may be hidden (covered, glaring, beyond the frame's \
            edge), their centres from the grid. colorDeltaE is the median CIEDE2000 of the \
            patches from the reference's colours after the best 3x3 matrix: under about 6 for \
            a real chart, over \(Int(DetectedChart.looseColors)) warns (a printed copy, a chart on \
            a screen or a faded one: calibrate then needs its own colours, --reference). A \
            frame without the chart, with two, or with one the detector is not sure of \
            (confidence under 0.5) prints {"frame":N,"found":false,"reason":"...","detail":"..."}.

            Any roll, a tilt away from the camera, a chart from about 150 pixels wide to \
            filling the frame; other things may be in view. Exits 65 when no frame had the \
            chart.
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
                    return ChartJSON.found(frame: index, detector.chart)
                } catch {
                    return ChartJSON.notFound(frame: index, error)
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
}
