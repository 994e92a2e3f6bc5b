import Foundation
import HeraldCore
import HeraldDelivery
import HeraldStore
import Hummingbird
import Logging
import NIOCore

/// `GET /healthz` (alive), `GET /readyz` (ready for traffic) and `GET /openapi.yaml`.
struct ServiceRoutes: Sendable {
    let dependencies: APIDependencies
    var logger: Logger { dependencies.logger }

    /// How long the readiness check waits for the database.
    static let readinessTimeout: Duration = .seconds(2)

    var routes: [APIRoute] {
        let document = Self.openAPIDocument(logger: logger)
        return [
            APIRoute(.get, "/healthz") { _, _ in
                JSONBody.response(["status": "ok"])
            },
            APIRoute(.get, "/readyz") { [dependencies] _, _ in
                await Self.readiness(dependencies)
            },
            APIRoute(.get, "/openapi.yaml") { _, _ in
                guard let document else { throw APIError.internalError }
                return Response(
                    status: .ok,
                    headers: [.contentType: "application/yaml; charset=utf-8"],
                    body: ResponseBody(byteBuffer: ByteBuffer(bytes: document))
                )
            },
        ]
    }

    /// Ready: the node is not shutting down and its database answers in time. A load balancer sends
    /// traffic to ready nodes only; 503 (with the reason) takes a node out without a restart. Also
    /// says whether this node runs the time-driven services (`scheduled_services`: `leading` or
    /// `standby`).
    static func readiness(_ dependencies: APIDependencies) async -> Response {
        func unavailable(_ reason: String, _ message: String) -> Response {
            JSONBody.response(
                status: .serviceUnavailable,
                JSONValue.object([
                    "status": .string("unavailable"), "reason": .string(reason), "message": .string(message),
                ]))
        }
        if dependencies.hub.isClosed {
            return unavailable("shutting_down", "The node is shutting down.")
        }
        let store = dependencies.store
        // Raced, not awaited: a store call stuck on a database that went away does not hold the probe.
        let isAnswered = await succeeds(within: readinessTimeout) { _ = try await store.latestCursor() }
        guard isAnswered else {
            return unavailable("database_unavailable", "The database did not answer within 2 seconds.")
        }
        return JSONBody.response(
            JSONValue.object([
                "status": .string("ready"), "database": .string("ok"),
                "scheduled_services": .string(dependencies.policy.leadsScheduledServices ? "leading" : "standby"),
            ]))
    }

    /// The OpenAPI document shipped as a resource of this module.
    static func openAPIDocument(logger: Logger) -> Data? {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "yaml"),
            let data = try? Data(contentsOf: url)
        else {
            logger.error("The OpenAPI document is missing from the HeraldAPI resources")
            return nil
        }
        return data
    }
}
