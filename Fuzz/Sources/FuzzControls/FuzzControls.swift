import EyedropperCapture
import FoundationEssentials
import FuzzSupport

/// The input as a `--controls` file (and the body of `PUT /api/v1/controls`): decoded as both
/// decode it, into settings by name.
func fuzzControls(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    guard let settings = try? ControlSetting.settings(json: Data(fuzzInput(data, count))) else { return 0 }
    let names = settings.map(\.name)
    invariant(names == names.sorted(), "settings not in name order: \(names)")
    invariant(Set(names).count == names.count, "a name twice: \(names)")
    return 0
}
