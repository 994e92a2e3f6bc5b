import Foundation
import Hummingbird
import Logging
import NIOCore

/// `GET /healthz` and `GET /openapi.yaml`.
struct ServiceRoutes: Sendable {
    let logger: Logger

    var routes: [APIRoute] {
        let document = Self.openAPIDocument(logger: logger)
        return [
            APIRoute(.get, "/healthz") { _, _ in
                JSONBody.response(["status": "ok"])
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
