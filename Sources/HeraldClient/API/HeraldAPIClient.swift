import AsyncHTTPClient
import Foundation
import HeraldCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// A client of Herald's JSON API: the admin API (with the admin token) and the device API (with a
/// user's token), per `docs/architecture.md`.
///
/// Calls return the response body as the server sent it (JSON); an error status throws
/// ``HeraldAPIError`` with the server's error body. Call ``shutdown()`` when done.
public final class HeraldAPIClient: Sendable {
    /// The API's base URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    let bearerToken: String?
    let httpClient: OwnedHTTPClient
    private let timeout: TimeAmount

    /// A client of the API at `baseURL` that authenticates with `bearerToken`.
    ///
    /// - Parameters:
    ///   - caFile: PEM CA certificates to trust instead of the system roots, for an `https` API.
    ///   - timeout: how long one call may take until the response head arrives.
    ///   - idleTimeout: how long a connection may receive nothing before it counts as lost (a stream
    ///     then reconnects); nil waits for ever.
    public init(
        baseURL: URL, bearerToken: String?, caFile: String? = nil,
        timeout: TimeAmount = .seconds(30), idleTimeout: TimeAmount? = nil
    ) throws {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "https" || scheme == "http", baseURL.host != nil
        else {
            throw HeraldClientError("The API URL must look like http://host[:port], not \(baseURL.absoluteString).")
        }
        self.baseURL = baseURL
        self.bearerToken = bearerToken
        self.httpClient = OwnedHTTPClient(try HTTPClient.makeHerald(caFile: caFile, readTimeout: idleTimeout))
        self.timeout = timeout
    }

    /// Closes the connections; the client cannot be used afterwards.
    public func shutdown() async throws {
        try await httpClient.shutdown()
    }

    /// Sends one request and returns the response body.
    ///
    /// - Parameters:
    ///   - method: `GET`, `POST`, `DELETE`, …
    ///   - path: the path below the base URL, e.g. `/v1/admin/teams`; its segments must already be
    ///     percent-encoded (see ``pathSegment(_:)``).
    ///   - query: query items, percent-encoded here.
    ///   - body: a JSON body.
    /// - Throws: ``HeraldAPIError`` when the status is not 2xx.
    @discardableResult
    public func send(
        _ method: String, path: String, query: [(name: String, value: String)] = [], body: JSONValue? = nil
    ) async throws -> Data {
        var request = makeRequest(path: path, query: query)
        request.method = HTTPMethod(rawValue: method.uppercased())
        request.headers.add(name: "accept", value: "application/json")
        if let body {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.withoutEscapingSlashes]
            request.headers.add(name: "content-type", value: "application/json")
            request.body = .bytes(ByteBuffer(data: try encoder.encode(body)))
        }
        let response = try await httpClient.client.execute(request, timeout: timeout)
        let data = Data(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
        guard (200..<300).contains(response.status.code) else {
            throw HeraldAPIError(status: Int(response.status.code), body: data)
        }
        return data
    }

    /// Sends one request with a raw body (a file upload) and returns the response body.
    /// - Throws: ``HeraldAPIError`` when the status is not 2xx.
    @discardableResult
    public func send(_ method: String, path: String, data: Data, contentType: String) async throws -> Data {
        var request = makeRequest(path: path, query: [])
        request.method = HTTPMethod(rawValue: method.uppercased())
        request.headers.add(name: "accept", value: "application/json")
        request.headers.add(name: "content-type", value: contentType)
        request.body = .bytes(ByteBuffer(data: data))
        let response = try await httpClient.client.execute(request, timeout: timeout)
        let body = Data(buffer: try await response.body.collect(upTo: 16 * 1024 * 1024))
        guard (200..<300).contains(response.status.code) else {
            throw HeraldAPIError(status: Int(response.status.code), body: body)
        }
        return body
    }

    /// `segment` percent-encoded for use as one path segment (a token, an id).
    public static func pathSegment(_ segment: String) -> String {
        segment.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? segment
    }

    func makeRequest(path: String, query: [(name: String, value: String)]) -> HTTPClientRequest {
        var base = baseURL.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        var url = base + (path.hasPrefix("/") ? path : "/" + path)
        if !query.isEmpty {
            var components = URLComponents()
            components.queryItems = query.map { URLQueryItem(name: $0.name, value: $0.value) }
            // `+` means a space to many servers: encode it.
            url += "?" + (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
        }
        var request = HTTPClientRequest(url: url)
        if let bearerToken {
            request.headers.add(name: "authorization", value: "Bearer \(bearerToken)")
        }
        return request
    }
}

/// An error answer of the JSON API: `{"error":{"code":…,"message":…}}` with its HTTP status.
public struct HeraldAPIError: Error, CustomStringConvertible, Sendable {
    /// The HTTP status.
    public let status: Int
    /// The response body as sent (the error JSON, or whatever the server answered).
    public let body: Data
    /// `error.code`, e.g. `device_not_found`.
    public let code: String?
    /// `error.message`, a sentence.
    public let message: String?

    /// An error from the status and body of a response.
    public init(status: Int, body: Data) {
        self.status = status
        self.body = body
        let error = (try? JSONDecoder().decode(JSONValue.self, from: body))?.objectValue?["error"]?.objectValue
        self.code = error?["code"]?.stringValue
        self.message = error?["message"]?.stringValue
    }

    /// The error body when it is JSON, otherwise a JSON error made from the status and body text —
    /// the line `herald admin` prints to stderr.
    public var jsonLine: String {
        if code != nil, let text = String(data: body, encoding: .utf8) {
            return text.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let text = String(decoding: body.prefix(1000), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let message = text.isEmpty ? "The server answered with status \(status)." : text
        return OrderedJSONObject([
            "error": .object(["code": .string("http_\(status)"), "message": .string(message)])
        ]).jsonLine
    }

    public var description: String {
        "HTTP \(status)" + (code.map { " \($0)" } ?? "") + (message.map { ": \($0)" } ?? "")
    }
}
