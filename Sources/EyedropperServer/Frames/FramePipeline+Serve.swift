import Eyedropper
import EyedropperPipeline

extension FramePipeline {
    /// serve's pipeline: its points and radius (or those of one request), with the profile,
    /// target and white reference served now (none when this profile cannot take it), and the
    /// palette.
    init(
        _ configuration: ServeConfiguration, calibration: ServeConfiguration.CalibrationSettings?, points: [SamplePoint]? = nil,
        radius: Int? = nil, driverClock: Bool
    ) {
        self.init(
            points: points ?? configuration.points, radius: radius ?? configuration.radius,
            profile: calibration?.profile, target: calibration?.target,
            reference: try? calibration?.whiteReference?.get(), palette: configuration.palette, driverClock: driverClock)
    }
}
