import Hummingbird

/// With `--token-file` or `EYEDROPPER_TOKEN`: every request but those of `openRoutes` answers 401
/// unless it carries `Authorization: Bearer TOKEN`. Unknown paths are refused too, before the
/// router's 404, so that an outsider cannot learn which paths exist.
///
/// Not hummingbird-auth's `AuthenticatorMiddleware`: that wants a request context of its own
/// (an identity per request, for users), parses `Bearer` case-sensitively, and its 401 carries
/// neither this API's JSON body nor `WWW-Authenticate`. One shared token needs one comparison.
struct TokenMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Whose token, as a reload replaces it.
    let settings: LiveSettings

    /// The routes open to anyone: `/healthz`, for whatever watches that the service is up, and
    /// the page, which a browser navigating to it cannot send a header for and which is the same
    /// static text for everyone, with nothing of the camera in it (its script takes the token
    /// from the URL fragment and sends it with everything else it asks for).
    let openRoutes: Set<String> = ["/", "/healthz"]

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        // The router has matched the route before any middleware runs; nil for an unknown path.
        if let route = context.endpointPath, openRoutes.contains(route) {
            return try await next(request, context)
        }
        let authorization = request.headers[.authorization]
        guard settings.settings.token?.authorizes(authorization) == true else {
            throw Unauthorized(tokenGiven: authorization != nil)
        }
        return try await next(request, context)
    }
}

/// 401: no `Authorization: Bearer` header, or not this server's token. Says what to do, never what
/// was sent.
struct Unauthorized: JSONResponseError {
    /// Whether an Authorization header came (a wrong token), rather than none.
    let tokenGiven: Bool
    var status: HTTPResponse.Status { .unauthorized }
    var message: String {
        (tokenGiven ? "the token in Authorization is not this server's" : "this server needs a token")
            + ": send the header Authorization: Bearer TOKEN, with the token of serve's --token-file or EYEDROPPER_TOKEN (the page: open /#token=TOKEN)"
    }
    var parameterAtFault: String? { "Authorization" }
    var headers: HTTPFields { [.wwwAuthenticate: "Bearer"] }
}
