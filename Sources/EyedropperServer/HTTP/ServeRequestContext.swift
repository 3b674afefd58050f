import Foundation
import Hummingbird

/// serve's request context: Hummingbird's basic one, with the API's JSON encoder as its response
/// encoder, so that a handler returns a value (`ResponseEncodable`) and errors encode their bodies
/// the same way.
struct ServeRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage

    init(source: ApplicationRequestContextSource) { coreContext = .init(source: source) }

    var responseEncoder: APIJSONEncoder { APIJSONEncoder() }
}

/// How the API writes an ordinary JSON body: keys sorted, so that the text is stable, with
/// `Content-Type: application/json` (Hummingbird's `JSONEncoder` adds `; charset=utf-8`, which JSON
/// does not have). Bodies whose field order is part of the contract (the sample line) or that the
/// command line prints too (the controls listing) are written as text by their controllers.
struct APIJSONEncoder: ResponseEncoder {
    func encode(_ value: some Encodable, from request: Request, context: some RequestContext) throws -> Response {
        try Self.response(value)
    }

    /// `value` as the API writes it, answered with `status`.
    static func response(_ value: some Encodable, status: HTTPResponse.Status = .ok) throws -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Response(
            status: status, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: try encoder.encode(value))))
    }
}
