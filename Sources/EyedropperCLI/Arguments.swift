import ArgumentParser
import Eyedropper
#if canImport(Glibc)
import Glibc
#endif

/// Writes one line to standard error.
func printError(_ line: String) {
    var text = line + "\n"
    text.withUTF8 { bytes in _ = write(STDERR_FILENO, bytes.baseAddress, bytes.count) }
}

/// `WxH`, both at least 1.
struct FrameSize: ExpressibleByArgument, Hashable {
    var width: Int
    var height: Int

    init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    init?(argument: String) {
        let parts = argument.lowercased().split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let width = Int(parts[0]), let height = Int(parts[1]), width > 0, height > 0
        else { return nil }
        self.init(width: width, height: height)
    }

    var defaultValueDescription: String { "\(width)x\(height)" }
}

/// `X,Y` with both in 0...1; anything else (outside, NaN, infinite) is refused, never clamped.
extension SamplePoint: ExpressibleByArgument {
    public init?(argument: String) {
        let parts = argument.split(separator: ",", omittingEmptySubsequences: false)
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]),
              let point = try? SamplePoint(x: x, y: y)
        else { return nil }
        self = point
    }
}

enum MatrixChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, bt601, bt709, bt2020

    var matrix: YCbCrMatrix? { YCbCrMatrix(rawValue: rawValue) }
}

enum RangeChoice: String, ExpressibleByArgument, CaseIterable {
    case auto, full, limited

    var range: ColorRange? { ColorRange(rawValue: rawValue) }
}
