import Eyedropper
import EyedropperPipeline

extension FramePipeline {
    /// serve's pipeline: the configured points and radius (or a request's), with the profile,
    /// target and white reference of `settings` (none when this profile cannot take it), and the
    /// palette; its readings name the profile and `generation`. Without `readsReference` (a
    /// request's pipeline) it reads no reference of its own: it is given the capture's reading of
    /// the same frame.
    init(
        _ configuration: ServeConfiguration, settings: ServeSettings, generation: Int, points: [SamplePoint]? = nil,
        radius: Int? = nil, readsReference: Bool = true, driverClock: Bool
    ) {
        self.init(
            points: points ?? configuration.points, radius: radius ?? configuration.radius,
            profile: settings.profile?.profile, target: settings.target,
            reference: readsReference ? try? settings.whiteReference?.get() : nil, palette: settings.palette,
            driverClock: driverClock, profileStamp: settings.profile.map { ProfileStamp(path: $0.path, generation: generation) })
    }
}
