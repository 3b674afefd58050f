import Eyedropper
import Foundation
import Hummingbird

/// `GET /api/v1/openapi.json`: the API's contract, the OpenAPI 3.1 document kept beside this file
/// (`openapi.json`), compiled into the binary (SwiftPM's `embedInCode`), so there is one copy and
/// nothing to find at run time. It describes the server that serves it: with a token, the file byte
/// for byte; without one, the same less what only a token makes true.
struct OpenAPIController: Sendable {
    let document: ByteBuffer

    init(requiresToken: Bool) {
        document = ByteBuffer(bytes: requiresToken ? PackageResources.openapi_json : Self.withoutToken(PackageResources.openapi_json))
    }

    func addRoutes(to group: RouterGroup<some RequestContext>) {
        let document = self.document
        group.getOnly("openapi.json") { request, _ in
            _ = try QueryString(request.uri.query, allowed: [])
            return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: document))
        }
    }

    /// The document for a server that asks no token (loopback, `--no-auth`): no bearer
    /// requirement, no security scheme, no 401 answer (nor the response they all refer to); keys
    /// sorted, indented, slashes as they are.
    static func withoutToken(_ bytes: [UInt8]) -> [UInt8] {
        guard var document = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any],
            var components = document["components"] as? [String: Any], var responses = components["responses"] as? [String: Any],
            var paths = document["paths"] as? [String: [String: Any]]
        else { preconditionFailure("openapi.json is not the document this server was built with") }
        document["security"] = nil
        components["securitySchemes"] = nil
        responses["Unauthorized"] = nil
        components["responses"] = responses
        document["components"] = components
        for (path, item) in paths {
            var item = item
            for (method, operation) in item {
                guard var operation = operation as? [String: Any] else { continue }
                operation["security"] = nil
                if var answers = operation["responses"] as? [String: Any] {
                    answers["401"] = nil
                    operation["responses"] = answers
                }
                item[method] = operation
            }
            paths[path] = item
        }
        document["paths"] = paths
        guard
            let data = try? JSONSerialization.data(
                withJSONObject: document, options: [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes])
        else {
            preconditionFailure("openapi.json cannot be written back as JSON")
        }
        return Array(data) + [UInt8(ascii: "\n")]
    }
}
