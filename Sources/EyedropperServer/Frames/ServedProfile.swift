import Eyedropper

/// The profile (and target) serve calibrates with now: `--profile` at the start, replaced whole
/// by `PUT /api/v1/profile` or a reload (which may take it away). The capture compares `generation` at every frame and remakes its
/// pipeline when it moved, so a frame is read with one profile or the other, never a mix; the
/// sample endpoint and the status read `settings` when they answer.
final class ServedProfile: Sendable {
    private let state: Locked<(generation: Int, settings: ServeConfiguration.CalibrationSettings?)>

    init(_ settings: ServeConfiguration.CalibrationSettings?) {
        state = Locked((0, settings))
    }

    var settings: ServeConfiguration.CalibrationSettings? { state.withLock { $0.settings } }

    /// How many times the settings were replaced.
    var generation: Int { state.withLock { $0.generation } }

    /// The settings and how many times they were replaced.
    var current: (generation: Int, settings: ServeConfiguration.CalibrationSettings?) { state.withLock { $0 } }

    func replace(with settings: ServeConfiguration.CalibrationSettings?) {
        state.withLock { $0 = ($0.generation + 1, settings) }
    }
}
