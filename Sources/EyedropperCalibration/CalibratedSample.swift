import Eyedropper

/// A sample's calibrated colour and, with a target, how far it is from it.
public struct CalibratedSample: Hashable, Sendable {
    public let color: CalibratedColor
    /// CIEDE2000 to the target; nil without one.
    public let deltaE: Double?
    /// Whether `deltaE` is within the target's tolerance; nil without a target.
    public let pass: Bool?

    public init(color: CalibratedColor, deltaE: Double? = nil, pass: Bool? = nil) {
        self.color = color
        self.deltaE = deltaE
        self.pass = pass
    }
}

extension CameraProfile {
    /// The calibrated colour of each sample's mean (not its rounded colour), compared with
    /// `target` when there is one. Replaces the contents of `calibrated`, keeping its capacity:
    /// reuse one array to allocate nothing.
    public func calibrate(
        _ samples: [ColorSample], target: ColorTarget?, reference: ReferenceReading? = nil, into calibrated: inout [CalibratedSample]
    ) {
        calibrated.removeAll(keepingCapacity: true)
        for sample in samples {
            let color = self.calibrated(sample.statistics.mean, reference: reference)
            if let target {
                let (deltaE, pass) = target.compare(color)
                calibrated.append(CalibratedSample(color: color, deltaE: deltaE, pass: pass))
            } else {
                calibrated.append(CalibratedSample(color: color))
            }
        }
    }
}
