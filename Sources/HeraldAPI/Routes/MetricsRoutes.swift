import Foundation
import HeraldMetrics
import HeraldPolicy
import HeraldStore
import Hummingbird
import NIOCore

/// `GET /metrics`: this node's metrics in Prometheus's text format (`HeraldMetrics`), for the admin
/// token (Prometheus: `authorization: {credentials_file: …}`): they describe every user's traffic.
struct MetricsRoutes: Sendable {
    let dependencies: APIDependencies
    let authenticator: Authenticator

    var routes: [APIRoute] {
        [APIRoute(.get, "/metrics", authenticator.adminOnly(metrics))]
    }

    @Sendable func metrics(_ request: Request, context: APIRequestContext) async throws -> Response {
        guard let metrics = dependencies.metrics else {
            throw APIError.notFound("metrics_not_kept", "This server keeps no metrics.")
        }
        // A database that does not answer leaves the held gauges at their last value; the rest is
        // this node's own.
        let held = try? await dependencies.store.heldNotificationCounts()
        let text = metrics.exposition(
            sessions: dependencies.hub.sessionCount,
            held: held.map { counts in Dictionary(uniqueKeysWithValues: counts.map { ($0.key.rawValue, $0.value) }) },
            live: dependencies.hub.counters.snapshot)
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: text)))
    }
}
