import Hummingbird

/// `GET /healthz`: `{"status":"ok"}` while the server answers, for a load balancer or a service
/// manager; open without the token (`TokenMiddleware`). It says the HTTP side is up,
/// not that frames are coming: `/api/v1/status` says that.
struct HealthController: Sendable {
    func addRoutes(to group: RouterGroup<some RequestContext>) {
        group.getOnly("healthz") { _, _ in Health() }
    }

    private struct Health: ResponseEncodable {
        let status = "ok"
    }
}
