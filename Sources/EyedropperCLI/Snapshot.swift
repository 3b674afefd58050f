import ArgumentParser
import Eyedropper
import EyedropperJPEG

/// `eyedropper snapshot`: frames converted to RGB and written as JPEG or PPM.
struct Snapshot: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write frames as RGB JPEG (libturbojpeg) or binary PPM files.",
        discussion: """
            The extension of --out picks the format: .jpg or .jpeg (--quality, --subsampling), \
            .ppm (P6, exact). With --frames N above 1, a %d in PATH takes the frame number, or -0001, -0002, \
            ... is added before the extension. Each file is written under a temporary name and \
            renamed when whole, so a failure leaves nothing behind. Prints each path written. \
            A 4:2:0 JPEG is compressed straight from the frame's planes, remapped to JPEG's \
            BT.601 full-range YCbCr; 4:4:4 and PPM go through RGB.
            """
    )

    @OptionGroup var input: SourceOptions

    @Option(help: ArgumentHelp("The file to write (.jpg, .jpeg or .ppm).", valueName: "PATH"))
    var out: String

    @Option(help: "JPEG quality, 1 to 100.")
    var quality: Int = 90

    @Option(
        help: ArgumentHelp(
            "JPEG chroma: 444 keeps colour edges sharp (for checking colours); 420 is smaller and faster, and smears them.",
            valueName: "444|420"))
    var subsampling: ChromaSubsampling = .s444

    @Option(help: "How many frames to write.")
    var frames: Int = 1

    private enum Kind { case jpeg, ppm }

    private var kind: Kind? {
        let lower = out.lowercased()
        return lower.hasSuffix(".jpg") || lower.hasSuffix(".jpeg") ? .jpeg : lower.hasSuffix(".ppm") ? .ppm : nil
    }

    func validate() throws {
        guard kind != nil else { throw ValidationError("--out \(out): give a path ending in .jpg, .jpeg or .ppm") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1 to 100, got \(quality)") }
        guard frames >= 1 else { throw ValidationError("--frames must be at least 1, got \(frames)") }
    }

    func run() throws {
        let encoder = try JPEGEncoder(quality: quality, subsampling: subsampling)
        let sampler = ColorSampler()  // converts with each frame's colorimetry, overrides applied
        var index = 0
        try input.forEachFrame(input.configuration(), limit: frames, done: "written") { frame, _ in
            let path = Self.path(out, frame: index + 1, of: frames)
            switch (kind!, subsampling) {
            case (.jpeg, .s420):
                // From the frame's planes, remapped to JPEG's Y'CbCr: no RGB in between.
                try encoder.withJPEG(frame) { jpeg in try AtomicWrite.write(jpeg, to: path) }
            case (.jpeg, .s444):
                // Chroma at every pixel, which the 4:2:0 frame lacks: through RGB.
                try sampler.withRGB24(frame) { image in
                    try encoder.withJPEG(rgb24: image.bytes, width: image.width, height: image.height) { jpeg in
                        try AtomicWrite.write(jpeg, to: path)
                    }
                }
            case (.ppm, _):
                try sampler.withRGB24(frame) { image in
                    try PPMWriter.write(rgb24: image.bytes, width: image.width, height: image.height, to: path)
                }
            }
            print(path)
            index += 1
        }
    }

    /// `pattern` itself for one frame; else with `%d` replaced by the frame number, or the number
    /// (4 digits, from 1) added before the extension.
    static func path(_ pattern: String, frame: Int, of count: Int) -> String {
        guard count > 1 else { return pattern }
        if pattern.contains("%d") { return pattern.replacing("%d", with: "\(frame)") }
        let number = String(repeating: "0", count: max(0, 4 - String(frame).count)) + String(frame)
        guard let dot = pattern.lastIndex(of: "."), !pattern[dot...].contains("/") else { return pattern + "-" + number }
        return pattern[..<dot] + "-" + number + pattern[dot...]
    }
}
