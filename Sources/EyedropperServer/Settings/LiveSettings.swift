import Eyedropper
import Synchronization

/// The settings serve uses now, and their generation: `ServeSettings` from the start, replaced
/// whole by a reload or by a profile applied from the page. Everything reads them here: the
/// capture (which compares `generation` at every frame and remakes its pipeline when it moved, so
/// a frame is read with one generation or the next, never a mix, and says which), the endpoints,
/// the token check, each new connection's TLS, the status and metrics, and the outputs (told of
/// each change through `onChange`).
final class LiveSettings: Sendable {
    private let state: Mutex<(generation: Int, settings: ServeSettings)>
    /// `state`'s generation, for the capture's check at every frame without the lock.
    private let latest = Atomic<Int>(0)
    /// Hears every new generation, in order, after it is in place.
    private let onChange: Mutex<[@Sendable (ServeSettings) -> Void]> = Mutex([])

    init(_ settings: ServeSettings) {
        state = Mutex((0, settings))
    }

    /// The settings and their generation: 0 from the start, one more at each replacement.
    var current: (generation: Int, settings: ServeSettings) { state.withLock { $0 } }

    var settings: ServeSettings { current.settings }

    var generation: Int { latest.load(ordering: .acquiring) }

    /// Puts `settings` in place of generation `expected`; nil, changing nothing, when another
    /// replacement came first (make them anew from the new generation). Returns the new
    /// generation. The listeners hear each generation in order.
    @discardableResult
    func replace(_ expected: Int, with settings: ServeSettings) -> Int? {
        onChange.withLock { listeners in
            let generation: Int? = state.withLock { state in
                guard state.generation == expected else { return nil }
                state = (state.generation + 1, settings)
                latest.store(state.generation, ordering: .releasing)
                return state.generation
            }
            if generation != nil { for listener in listeners { listener(settings) } }
            return generation
        }
    }

    /// Replaces the settings with what `change` makes of the current ones (made outside the
    /// lock, again if another replacement came meanwhile); returns `change`'s other result and
    /// the new generation.
    func replace<Extra>(_ change: (ServeSettings) throws -> (ServeSettings, Extra)) rethrows -> (generation: Int, extra: Extra) {
        while true {
            let (generation, current) = self.current
            let (next, extra) = try change(current)
            if let replaced = replace(generation, with: next) { return (replaced, extra) }
        }
    }

    /// Calls `listener` with every generation from now on (it must not replace or observe).
    func observe(_ listener: @escaping @Sendable (ServeSettings) -> Void) {
        onChange.withLock { $0.append(listener) }
    }
}
