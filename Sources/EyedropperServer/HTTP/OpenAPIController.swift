import Hummingbird
import Logging

/// `GET /api/v1/openapi.json`: the API's contract, the OpenAPI 3.1 document kept beside this file
/// (`openapi.json`), compiled into the binary byte for byte (SwiftPM's `embedInCode`), so there is
/// one copy and nothing to find at run time.
struct OpenAPIController: Sendable {
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("openapi.json") { request, _ in
            _ = try Query(request.uri.query, allowed: [])
            return Response(status: .ok, headers: [.contentType: "application/json"],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: APIDocument.json)))
        }
    }
}

/// The OpenAPI document, and the routes it must describe: what the tests compare.
public enum APIDocument {
    /// The document's bytes, as kept in the repository.
    public static var json: [UInt8] { PackageResources.openapi_json }

    /// Every route `buildApplication` makes for `configuration`, as `METHOD /path` (those that
    /// only answer 405 included: the router cannot tell them apart).
    public static func routes(_ configuration: ServeConfiguration) throws -> [String] {
        let parts = try ServerParts(configuration, logger: Logger(label: "eyedropper.routes"))
        defer { parts.encoders.stop() }
        return buildRouter(configuration, parts: parts).routes.map { "\($0.method) \($0.path)" }
    }
}
