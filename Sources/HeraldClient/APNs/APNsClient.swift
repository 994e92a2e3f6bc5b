import AsyncHTTPClient
import Foundation
import HeraldCore
import NIOCore
import NIOFoundationCompat
import NIOHTTP1

/// Sends pushes to an APNs endpoint — Apple's or Herald's — with token-based authentication.
///
/// Over `https://` the client speaks HTTP/2 (ALPN `h2`), as APNs requires; over `http://` it speaks
/// HTTP/1.1, which Herald's cleartext listener answers with the same semantics. One provider token
/// is reused for 50 minutes, so a long-lived client never trips TooManyProviderTokenUpdates.
///
/// Call ``shutdown()`` when done (a client released without it shuts itself down).
public final class APNsClient: Sendable {
    /// Apple's development endpoint.
    public static let sandboxURL = URL(string: "https://api.sandbox.push.apple.com")!
    /// Apple's production endpoint.
    public static let productionURL = URL(string: "https://api.push.apple.com")!

    /// The endpoint, e.g. `https://127.0.0.1:2198`.
    public let baseURL: URL
    private let httpClient: OwnedHTTPClient
    private let tokens: ProviderTokenCache
    private let timeout: TimeAmount
    private let now: @Sendable () -> Date

    /// A client for the endpoint at `baseURL`.
    ///
    /// - Parameters:
    ///   - caFile: a PEM file of CA certificates to trust instead of the system roots (Herald's
    ///     `tls/ca.pem`); nil trusts the system roots.
    ///   - timeout: how long one push may take until the response head arrives.
    ///   - now: the clock that dates provider tokens.
    public init(
        baseURL: URL = APNsClient.sandboxURL,
        credentials: APNsCredentials,
        caFile: String? = nil,
        timeout: TimeAmount = .seconds(30),
        now: @escaping @Sendable () -> Date = { Date() }
    ) throws {
        guard let scheme = baseURL.scheme?.lowercased(), scheme == "https" || scheme == "http", baseURL.host != nil
        else {
            throw HeraldClientError(
                "The APNs URL must look like https://host[:port] or http://host[:port], not \(baseURL.absoluteString).")
        }
        self.baseURL = baseURL
        self.httpClient = OwnedHTTPClient(try HTTPClient.makeHerald(caFile: caFile))
        self.tokens = ProviderTokenCache(credentials: credentials)
        self.timeout = timeout
        self.now = now
    }

    /// Sends one push and returns what APNs answered; throws only when no answer arrived
    /// (connection refused, TLS failure, timeout).
    public func send(_ push: APNsPush) async throws -> APNsPushResult {
        var httpRequest = HTTPClientRequest(url: Self.url(base: baseURL, deviceToken: push.deviceToken))
        httpRequest.method = .POST
        httpRequest.headers.add(name: "authorization", value: "bearer \(try await tokens.token(now: now()))")
        for header in push.headers {
            httpRequest.headers.add(name: header.name, value: header.value)
        }
        httpRequest.headers.add(name: "content-type", value: "application/json")
        httpRequest.body = .bytes(ByteBuffer(data: push.payload))

        let response = try await httpClient.client.execute(httpRequest, timeout: timeout)
        let body = try await response.body.collect(upTo: 64 * 1024)
        let fields = APNsPushResult.errorFields(of: Data(buffer: body))
        return APNsPushResult(
            status: Int(response.status.code),
            reason: fields.reason,
            apnsID: response.headers.first(name: "apns-id"),
            apnsUniqueID: response.headers.first(name: "apns-unique-id"),
            timestamp: fields.timestamp
        )
    }

    /// Closes the connections; the client cannot send afterwards.
    public func shutdown() async throws {
        try await httpClient.shutdown()
    }

    static func url(base: URL, deviceToken: String) -> String {
        var base = base.absoluteString
        while base.hasSuffix("/") { base.removeLast() }
        let token =
            deviceToken.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(["/"])) ?? deviceToken
        return "\(base)/3/device/\(token)"
    }
}
