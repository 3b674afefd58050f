import Hummingbird
import Logging

/// One route of the server: a method and a path as the router holds it.
public struct Route: Hashable, Sendable, CustomStringConvertible {
    public let method: String
    public let path: String

    public var description: String { "\(method) \(path)" }
}

extension EyedropperServer {
    /// Every route the server for `configuration` has, 405 answers included, in the router's
    /// order: what a test that must cover each route (the token, the API description) checks its
    /// own list against, so that a route added later cannot be missed. Builds the server's parts
    /// (the blocking-work threads start and stop again) without starting the capture.
    public static func routes(_ configuration: ServeConfiguration) throws -> [Route] {
        let parts = try ServerParts(configuration, logger: Logger(label: "eyedropper.routes"))
        defer { parts.work.stop() }
        return buildRouter(configuration, parts: parts).routes.map { Route(method: $0.method.rawValue, path: $0.path.description) }
    }
}
