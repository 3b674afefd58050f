import Eyedropper
import Hummingbird

/// `GET /api/v1/openapi.json`: the API's contract, the OpenAPI 3.1 document kept beside this file
/// (`openapi.json`), compiled into the binary byte for byte (SwiftPM's `embedInCode`), so there is
/// one copy and nothing to find at run time.
struct OpenAPIController: Sendable {
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("openapi.json") { request, _ in
            _ = try QueryString(request.uri.query, allowed: [])
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: ResponseBody(byteBuffer: ByteBuffer(bytes: PackageResources.openapi_json)))
        }
    }
}
