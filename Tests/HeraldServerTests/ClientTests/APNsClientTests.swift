import Crypto
import Foundation
import HeraldClient
import HeraldCore
import HeraldDelivery
import HeraldServer
import Testing

/// An APNs endpoint in Node: HTTP/2 over TLS only (ALPN h2), with the certificate of Herald's local
/// CA. It answers BadDeviceToken for the token "bad", otherwise 200 with `apns-unique-id` holding
/// what it received (base64 JSON) so the test can check the request on the wire.
private let apnsServer = #"""
    const http2 = require('http2'), fs = require('fs');
    const [cert, key] = process.argv.slice(-2);
    const server = http2.createSecureServer({ cert: fs.readFileSync(cert), key: fs.readFileSync(key) });
    server.on('stream', (stream, headers) => {
      let body = '';
      stream.on('data', d => body += d);
      stream.on('end', () => {
        const id = headers['apns-id'] || 'generated-id';
        if (headers[':path'].endsWith('/bad')) {
          stream.respond({ ':status': 400, 'content-type': 'application/json', 'apns-id': id });
          stream.end(JSON.stringify({ reason: 'BadDeviceToken' }));
          return;
        }
        const seen = { ...headers, body, alpn: stream.session.alpnProtocol };
        stream.respond({ ':status': 200, 'apns-id': id,
                         'apns-unique-id': Buffer.from(JSON.stringify(seen)).toString('base64') }, { endStream: true });
      });
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
    """#

extension ClientTests {
    @Suite("Sending pushes over HTTP/2 and TLS", .enabled(if: isInstalled("node"), "needs node"))
    struct APNsClientTests {
        private struct Fixture {
            let directory: URL
            let authority: LocalCertificateAuthority
            let server: MockServer
            let credentials = APNsCredentials(
                teamID: "ABCDE12345", keyID: "ABC123DEFG", privateKey: P256.Signing.PrivateKey())

            init() throws {
                directory = try makeTemporaryDirectory()
                authority = try LocalCertificateAuthority.loadOrCreate(
                    directory: directory.appendingPathComponent("tls"), now: Date())
                server = try MockServer(
                    "node", script: apnsServer,
                    arguments: [authority.serverCertificateURL.path, authority.serverKeyURL.path])
            }

            func makeClient(host: String = "127.0.0.1", trustingTheCA: Bool = true) throws -> APNsClient {
                try APNsClient(
                    baseURL: URL(string: "https://\(host):\(server.port)")!, credentials: credentials,
                    caFile: trustingTheCA ? authority.authorityCertificateURL.path : nil
                )
            }

            func tearDown() {
                server.stop()
                try? FileManager.default.removeItem(at: directory)
            }
        }

        @Test(arguments: ["127.0.0.1", "localhost"])
        func aPushCarriesTheHeadersTheTokenAndThePayload(host: String) async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let client = try fixture.makeClient(host: host)
            let payload = AlertPayload(title: "Hello", body: "World").encoded()
            let result = try await client.send(
                APNsPush(
                    deviceToken: "abcd", topic: "com.example.app", payload: payload, pushType: "alert",
                    priority: 10, expiration: 0, collapseID: "c1", apnsID: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"
                ))
            try await client.shutdown()

            #expect(result.status == 200)
            #expect(result.reason == nil)
            #expect(result.apnsID == "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")
            let seenData = try #require(Data(base64Encoded: result.apnsUniqueID ?? ""))
            let seen = try #require(try JSONDecoder().decode(JSONValue.self, from: seenData).objectValue)
            #expect(seen["alpn"] == .string("h2"))
            #expect(seen[":method"] == .string("POST"))
            #expect(seen[":path"] == .string("/3/device/abcd"))
            #expect(seen["apns-topic"] == .string("com.example.app"))
            #expect(seen["apns-push-type"] == .string("alert"))
            #expect(seen["apns-priority"] == .string("10"))
            #expect(seen["apns-expiration"] == .string("0"))
            #expect(seen["apns-collapse-id"] == .string("c1"))
            #expect(seen["body"] == .string(String(decoding: payload, as: UTF8.self)))

            let authorization = try #require(seen["authorization"]?.stringValue)
            #expect(authorization.hasPrefix("bearer "))
            let token = try #require(ProviderToken.parse(authorization.dropFirst("bearer ".count)))
            #expect(token.claims.teamID == "ABCDE12345")
            #expect(token.claims.keyID == "ABC123DEFG")
            #expect(token.isSigned(by: fixture.credentials.privateKey.publicKey))
        }

        @Test func anErrorAnswerGivesTheStatusAndReason() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let client = try fixture.makeClient()
            let result = try await client.send(
                APNsPush(deviceToken: "bad", topic: "com.example.app", payload: Data("{}".utf8)))
            try await client.shutdown()
            #expect(
                result
                    == APNsPushResult(status: 400, reason: "BadDeviceToken", apnsID: "generated-id", apnsUniqueID: nil))
        }

        @Test func withoutTheCATheServerIsNotTrusted() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            let client = try fixture.makeClient(trustingTheCA: false)
            await #expect(throws: (any Error).self) {
                try await client.send(APNsPush(deviceToken: "abcd", topic: "com.example.app", payload: Data("{}".utf8)))
            }
            try await client.shutdown()
        }

        @Test("a client released without shutdown() (its owner threw first) shuts itself down, no trap")
        func releasedWithoutShutdown() async throws {
            let fixture = try Fixture()
            defer { fixture.tearDown() }
            weak var released: APNsClient?
            do {
                let client = try fixture.makeClient()
                released = client
                let result = try await client.send(
                    APNsPush(deviceToken: "abcd", topic: "com.example.app", payload: Data("{}".utf8)))
                #expect(result.status == 200)
            }
            // Debug builds of AsyncHTTPClient trap when a client is released before it is shut down: were
            // the shutdown missing, the test process would die here.
            #expect(released == nil)
            try await Task.sleep(for: .milliseconds(200))
        }
    }
}
