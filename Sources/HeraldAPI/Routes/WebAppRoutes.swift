import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore

/// The web notification center (`Resources/web`: HTML, CSS and JavaScript modules shipped with
/// Herald, no build step): `GET /` leads to `GET /app/` (the router takes `/app` as the same path),
/// which serves the page; `GET
/// /app/{file}` its files. Everything it shows comes from the JSON API with the user's token (the
/// sign-in link's fragment, `#token=…&device=…`, never sent to the server in a URL). Not part of
/// the JSON API's table (the OpenAPI document describes the API only).
enum WebAppRoutes {
    /// The files, read once at start: name → (content type, bytes).
    static func files(logger: Logger) -> [String: (String, Data)] {
        let types = [
            "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8",
            "css": "text/css; charset=utf-8", "svg": "image/svg+xml",
            "woff2": "font/woff2",
        ]
        guard let directory = Bundle.module.resourceURL?.appendingPathComponent("web", isDirectory: true),
            let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path)
        else {
            logger.error("The web notification center's files are missing from the HeraldAPI resources")
            return [:]
        }
        var files: [String: (String, Data)] = [:]
        for name in names {
            let ext = (name as NSString).pathExtension
            guard let type = types[ext],
                let data = FileManager.default.contents(atPath: directory.appendingPathComponent(name).path)
            else { continue }
            files[name] = (type, data)
        }
        return files
    }

    /// Scripts and styles from Herald only; the page talks to this server only.
    static let securityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; media-src 'self' blob:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

    static func add(to router: Router<APIRequestContext>, logger: Logger) {
        let files = files(logger: logger)
        @Sendable func serve(_ name: String) throws -> Response {
            guard let (type, data) = files[name] else {
                throw APIError.notFound("not_found", "There is no file \(name) in the web notification center.")
            }
            var headers = HTTPFields()
            headers[.contentType] = type
            headers[.cacheControl] = "no-cache"
            headers[.contentSecurityPolicy] = securityPolicy
            headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
            headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
        }
        @Sendable func redirect() -> Response {
            Response(status: .found, headers: [.location: "/app/"])
        }
        router.get("/") { _, _ in redirect() }
        router.get("/favicon.ico") { _, _ in try serve("icon.svg") }
        router.get("/app/") { _, _ in try serve("index.html") }
        router.get("/app/{file}") { _, context in try serve(try context.parameters.require("file")) }
    }
}
