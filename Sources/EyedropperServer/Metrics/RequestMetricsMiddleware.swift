import Hummingbird

/// Counts requests by route, method and status into `ServerMetrics`.
///
/// Not Hummingbird's `MetricsMiddleware`: that records through the process-wide
/// `MetricsSystem.bootstrap`, and this server keeps a registry per application. Counted when the
/// response head is ready, so an endless stream is counted when it starts. Goes outside
/// `JSONErrorMiddleware`, which turns every error into a response this then sees.
struct RequestMetricsMiddleware<Context: RequestContext>: RouterMiddleware {
    let metrics: ServerMetrics

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response = try await next(request, context)
        metrics.requests(route: context.endpointPath ?? "NotFound", method: request.method.rawValue, status: response.status.code)
            .increment()
        return response
    }
}
