import ArgumentParser
import Eyedropper
import EyedropperCapture

/// `eyedropper devices`: the capture devices there are.
struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List video capture devices (path, card, driver, bus).",
        discussion: "Only nodes that capture video are listed: output, metadata and VBI nodes are left out."
    )

    @Option(help: "text (one line per device, tab-separated) or json (one array).")
    var format: ListingFormat = .text

    func run() throws {
        let devices = CaptureDevices.list()
        // stdout stays what a script reads (nothing, or []); a person is told why it is empty.
        if devices.isEmpty { StandardError.writeLine("eyedropper: no video capture devices found (no /dev/video* node captures video)") }
        switch format {
        case .text:
            for device in devices { print([device.path, device.card, device.driver, device.bus].joined(separator: "\t")) }
        case .json:
            print(
                JSONText.array(
                    devices.map { device in
                        JSONText.object([
                            ("path", JSONText.string(device.path)), ("card", JSONText.string(device.card)),
                            ("driver", JSONText.string(device.driver)), ("bus", JSONText.string(device.bus)),
                        ])
                    }))
        }
    }
}

/// `eyedropper formats`: what one device offers.
struct Formats: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "List a device's pixel formats, frame sizes and frame rates.",
        discussion: """
            'native' formats are 4:2:0 layouts (YU12, YV12, NV12, NV21) the driver delivers itself: \
            Eyedropper reads them in place. 'converted' ones reach Eyedropper through libv4l2's \
            conversion to YU12, which costs a copy and, for MJPG, decoding.
            """
    )

    @Option(help: ArgumentHelp("The capture device (default: the first one).", valueName: "PATH"))
    var device: String?

    @Option(help: "text or json (one object).")
    var format: ListingFormat = .text

    func run() throws {
        guard let path = device ?? CaptureDevices.list().first?.path else {
            throw CommandFailure("no capture device found: plug a camera in, or give --device PATH", status: 66)
        }
        let formats = try CaptureDevices.formats(device: path)
        switch format {
        case .text:
            for format in formats {
                print("\(format.fourCC)  \(format.support.rawValue)  \(format.description)")
                for size in format.sizes {
                    switch size {
                    case let .discrete(width, height, fps):
                        print("    \(width)x\(height)  " + fps.map { "\(Self.rate($0)) fps" }.joined(separator: ", "))
                    case let .stepwise(minWidth, maxWidth, stepWidth, minHeight, maxHeight, stepHeight):
                        print("    \(minWidth)x\(minHeight) to \(maxWidth)x\(maxHeight) in steps of \(stepWidth)x\(stepHeight)")
                    }
                }
            }
        case .json:
            let entries = formats.map { format in
                JSONText.object([
                    ("fourcc", JSONText.string(format.fourCC)), ("description", JSONText.string(format.description)),
                    ("support", JSONText.string(format.support.rawValue)),
                    ("sizes", JSONText.array(format.sizes.map(Self.json))),
                ])
            }
            print(JSONText.object([("device", JSONText.string(path)), ("formats", JSONText.array(entries))]))
        }
    }

    private static func json(_ size: CaptureFormat.Sizes) -> String {
        switch size {
        case let .discrete(width, height, fps):
            JSONText.object([("width", "\(width)"), ("height", "\(height)"), ("fps", JSONText.array(fps.map { "\(rate($0))" }))])
        case let .stepwise(minWidth, maxWidth, stepWidth, minHeight, maxHeight, stepHeight):
            JSONText.object([
                ("min_width", "\(minWidth)"), ("max_width", "\(maxWidth)"), ("step_width", "\(stepWidth)"),
                ("min_height", "\(minHeight)"), ("max_height", "\(maxHeight)"), ("step_height", "\(stepHeight)"),
            ])
        }
    }

    /// Frames per second to 3 decimals (29.97, 25.0).
    private static func rate(_ fps: Double) -> Double { (fps * 1000).rounded() / 1000 }
}

enum ListingFormat: String, ExpressibleByArgument, CaseIterable {
    case text, json
}
