import Eyedropper
import EyedropperPipeline

extension FramePipeline {
    /// serve's pipeline: its points and radius (or those of one request), its profile and target.
    init(_ configuration: ServeConfiguration, points: [SamplePoint]? = nil, radius: Int? = nil, driverClock: Bool) {
        self.init(
            points: points ?? configuration.points, radius: radius ?? configuration.radius,
            profile: configuration.calibration?.profile, target: configuration.calibration?.target,
            driverClock: driverClock)
    }
}
