import HTTPTypes
import Hummingbird

/// One route of the JSON API. The router is built from the table of these, and the test that the
/// OpenAPI document describes exactly the routes served reads the same table.
struct APIRoute: Sendable {
    var endpoint: APIEndpoint
    var handler: @Sendable (Request, APIRequestContext) async throws -> Response

    init(
        _ method: HTTPRequest.Method, _ path: String,
        _ handler: @escaping @Sendable (Request, APIRequestContext) async throws -> Response
    ) {
        self.endpoint = APIEndpoint(method: method, path: path)
        self.handler = handler
    }
}

/// Every route of the JSON API.
enum APIRoutes {
    static func all(_ dependencies: APIDependencies) -> [APIRoute] {
        let authenticator = Authenticator(adminToken: dependencies.adminToken, store: dependencies.store)
        return ServiceRoutes(dependencies: dependencies).routes
            + MetricsRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + AdminRoutes(registry: dependencies.registry, authenticator: authenticator).routes
            + ClockRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + DeviceRoutes(
                store: dependencies.store, hub: dependencies.hub, authenticator: authenticator, now: dependencies.now
            ).routes
            + ServerSentEvents(dependencies: dependencies, authenticator: authenticator).routes
            + UserStateRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + AppResourceRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + ContentExtensionRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + DecisionRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + ConsoleRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + ThreadRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + AppRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + AuthorizationRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + ResponseRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + AppStreamRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + WebhookRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + ServiceExtensionRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + AttachmentRoutes(dependencies: dependencies, authenticator: authenticator).routes
            + InteractionRoutes(dependencies: dependencies, authenticator: authenticator).routes
    }
}

/// The router of the JSON API: every route of `APIRoutes`, errors as JSON.
public func makeAPIRouter(_ dependencies: APIDependencies) -> Router<APIRequestContext> {
    let routes = APIRoutes.all(dependencies)
    let router = Router(context: APIRequestContext.self)
    router.add(middleware: APIErrorMiddleware(endpoints: routes.map(\.endpoint), logger: dependencies.logger))
    for route in routes {
        router.on(RouterPath(route.endpoint.path), method: route.endpoint.method) { request, context in
            try await route.handler(request, context)
        }
    }
    WebAppRoutes.add(to: router, logger: dependencies.logger)
    return router
}
