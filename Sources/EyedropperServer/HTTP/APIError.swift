import Eyedropper
import Foundation
import Hummingbird

/// An error a client sees: its status and its `{"error":...,"parameter":...}` body in one place,
/// so a 400, 404, 405 and 503 all speak the same JSON.
protocol JSONResponseError: HTTPResponseError {
    /// What went wrong, for a person.
    var message: String { get }
    /// The request parameter at fault, if one is.
    var parameterAtFault: String? { get }
    var headers: HTTPFields { get }
}

extension JSONResponseError {
    var parameterAtFault: String? { nil }
    var headers: HTTPFields { [:] }

    func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(
            ErrorBody(error: message, parameter: parameterAtFault), from: request, context: context)
        response.status = status
        response.headers.append(contentsOf: headers)
        return response
    }
}

/// A query parameter that cannot be used (`QueryString`'s error): 400, naming it.
struct BadParameter: JSONResponseError {
    let error: QueryParameterError
    var status: HTTPResponse.Status { .badRequest }
    var message: String { error.reason }
    var parameterAtFault: String? { error.parameter }
}

extension FrameUnavailable: JSONResponseError {
    var status: HTTPResponse.Status { .serviceUnavailable }
    var message: String { description }
}

/// More stream clients than `--max-streams`.
struct TooManyStreams: JSONResponseError {
    let limit: Int
    var status: HTTPResponse.Status { .serviceUnavailable }
    var message: String { "too many stream clients: at most \(limit) at once (--max-streams)" }
}

/// No route has this path.
struct PathNotFound: JSONResponseError {
    let path: String
    var status: HTTPResponse.Status { .notFound }
    var message: String { "nothing at \(path): see the endpoints at /" }
}

/// A route has this path, but not for this method.
struct MethodNotAllowed: JSONResponseError {
    let method: HTTPRequest.Method
    let path: String
    /// The methods the path answers.
    let allowed: [HTTPRequest.Method]
    var status: HTTPResponse.Status { .methodNotAllowed }
    var message: String { "\(path) answers \(allowed.map(\.rawValue).joined(separator: " and ")) only, not \(method)" }
    var headers: HTTPFields { [.allow: allowed.map(\.rawValue).joined(separator: ", ")] }
}

/// Anything else a handler throws: 500, with the error's description.
struct InternalError: JSONResponseError {
    let error: any Error
    var status: HTTPResponse.Status { .internalServerError }
    var message: String { "\(error)" }
}

/// Any other error with an HTTP status (Hummingbird's own): that status, named.
struct StatusError: JSONResponseError {
    let status: HTTPResponse.Status
    var message: String { status.reasonPhrase }
}

/// Makes every error JSON: the router's own 404 and errors that are not `JSONResponseError`s
/// included (Hummingbird's would have an empty or differently shaped body).
struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any JSONResponseError {
            return try error.response(from: request, context: context)
        } catch let error as QueryParameterError {
            return try BadParameter(error: error).response(from: request, context: context)
        } catch let error as HTTPError where error.status == .notFound {
            return try PathNotFound(path: request.uri.path).response(from: request, context: context)
        } catch let error as any HTTPResponseError {
            return try StatusError(status: error.status).response(from: request, context: context)
        } catch {
            return try InternalError(error: error).response(from: request, context: context)
        }
    }
}

extension RouterMethods {
    /// Routes GET `path` to `handler`, and every other usual method on `path` to 405 (rather than
    /// the router's 404, which would say the path does not exist).
    @discardableResult
    func getOnly(
        _ path: RouterPath, use handler: @escaping @Sendable (Request, Context) async throws -> some ResponseGenerator
    ) -> Self {
        get(path, use: handler)
        return refusingMethods(path, but: [.get])
    }

    /// Routes every method on `path` but those in `allowed` to 405, naming those allowed.
    @discardableResult
    func refusingMethods(_ path: RouterPath, but allowed: [HTTPRequest.Method]) -> Self {
        for method in HTTPRequest.Method.aimedAtPaths where !allowed.contains(method) {
            on(path, method: method) { request, _ -> Response in
                throw MethodNotAllowed(method: request.method, path: request.uri.path, allowed: allowed)
            }
        }
        return self
    }
}

extension HTTPRequest.Method {
    /// The methods a request may aim at a path with: RFC 9110's but CONNECT (whose target is a host,
    /// never a path), and QUERY (the safe method with a body, an HTTP working group draft). Any of
    /// them on a known path that does not take it is 405, not the 404 of a path that is not there.
    static let aimedAtPaths: [HTTPRequest.Method] = [
        .get, .head, .post, .put, .patch, .delete, .options, .trace, HTTPRequest.Method("QUERY")!,
    ]
}

private struct ErrorBody: Encodable {
    let error: String
    let parameter: String?
}
