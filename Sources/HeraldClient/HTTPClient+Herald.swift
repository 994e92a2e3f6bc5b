import AsyncHTTPClient
import HeraldCore
import NIOCore
import NIOSSL
import Synchronization

extension HTTPClient {
    /// A client that trusts the certificates in `caFile` (PEM) instead of the system roots when a
    /// path is given — Herald's local CA, like `curl --cacert`. HTTP/2 is negotiated over TLS
    /// (ALPN `h2`); `http://` URLs use HTTP/1.1.
    ///
    /// A failed connection attempt fails the request at once. The caller shuts the client down.
    static func makeHerald(caFile: String?, readTimeout: TimeAmount? = nil) throws -> HTTPClient {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile {
            let certificates: [NIOSSLCertificate]
            do {
                certificates = try NIOSSLCertificate.fromPEMFile(caFile)
            } catch {
                throw HeraldClientError("Cannot read the CA certificate \(caFile): \(error)")
            }
            guard !certificates.isEmpty else { throw HeraldClientError("\(caFile) holds no PEM certificate.") }
            tls.trustRoots = .certificates(certificates)
        }
        var configuration = HTTPClient.Configuration(
            tlsConfiguration: tls,
            timeout: .init(connect: .seconds(10), read: readTimeout)
        )
        configuration.httpVersion = .automatic
        // Report a refused connection or an untrusted certificate at once, not after the timeout:
        // the callers (a CLI, a reconnecting stream) decide themselves whether to try again.
        configuration.connectionPool.retryConnectionEstablishment = false
        return HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }
}

/// An `HTTPClient` that its owner shuts down with ``shutdown()``, or that shuts itself down when the
/// owner is released without doing so — an owner that threw before its `shutdown()` call. A released
/// `HTTPClient` that was never shut down leaks its connections, and traps in debug builds.
final class OwnedHTTPClient: Sendable {
    let client: HTTPClient
    private let shutDown = HeraldMutex(false)

    init(_ client: HTTPClient) { self.client = client }

    func shutdown() async throws {
        shutDown.withLock { $0 = true }
        try await client.shutdown()
    }

    deinit {
        // The shutdown holds the client until its connections are closed.
        if !shutDown.withLock({ $0 }) { client.shutdown { _ in } }
    }
}
