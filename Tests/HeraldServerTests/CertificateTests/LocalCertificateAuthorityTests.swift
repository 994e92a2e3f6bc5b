import Foundation
import HeraldDelivery
import HeraldServer
import Testing
import X509

extension CertificateTests {
    @Suite("The local CA and the server certificate")
    struct LocalCertificateAuthorityTests {
        private static let now = Date(timeIntervalSince1970: 1_750_000_000)

        @Test func theFilesAreCreatedOnceAndThenReused() throws {
            let directory = try makeTemporaryDirectory().appendingPathComponent("tls")
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }

            let created = try LocalCertificateAuthority.loadOrCreate(directory: directory, now: Self.now)
            let names = ["ca.pem", "ca-key.pem", "server.pem", "server-key.pem"]
            let firstContents = try names.map { try Data(contentsOf: directory.appendingPathComponent($0)) }

            let reused = try LocalCertificateAuthority.loadOrCreate(
                directory: directory, now: Self.now.addingTimeInterval(86_400))
            let secondContents = try names.map { try Data(contentsOf: directory.appendingPathComponent($0)) }
            #expect(firstContents == secondContents)
            #expect(reused.serverCertificate == created.serverCertificate)
            #expect(reused.authorityCertificate == created.authorityCertificate)
            #expect(reused.serverPrivateKeyPEM == created.serverPrivateKeyPEM)
        }

        @Test func privateKeysAreReadableByTheOwnerOnly() throws {
            let directory = try makeTemporaryDirectory().appendingPathComponent("tls")
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            _ = try LocalCertificateAuthority.loadOrCreate(directory: directory, now: Self.now)
            for name in ["ca-key.pem", "server-key.pem"] {
                let attributes = try FileManager.default.attributesOfItem(
                    atPath: directory.appendingPathComponent(name).path)
                #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "\(name)")
            }
        }

        @Test func theServerCertificateIsValidFor825DaysForLocalhostAnd127001() throws {
            let directory = try makeTemporaryDirectory().appendingPathComponent("tls")
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            let authority = try LocalCertificateAuthority.loadOrCreate(directory: directory, now: Self.now)
            let server = authority.serverCertificate
            #expect(server.notValidAfter.timeIntervalSince(Self.now) == 825 * 86_400)
            #expect(server.notValidBefore <= Self.now)
            #expect(server.issuer == authority.authorityCertificate.subject)
            let names = try #require(try server.extensions.subjectAlternativeNames)
            #expect(names.contains(.dnsName("localhost")))
            #expect(try server.extensions.extendedKeyUsage?.contains(.serverAuth) == true)
            #expect(try server.extensions.basicConstraints == .notCertificateAuthority)
            #expect(
                try authority.authorityCertificate.extensions.basicConstraints
                    == .isCertificateAuthority(maxPathLength: 0))
            #expect(try authority.authorityCertificate.extensions.keyUsage?.keyCertSign == true)
        }

        @Test func anExpiredServerCertificateIsReissuedByTheSameCA() throws {
            let directory = try makeTemporaryDirectory().appendingPathComponent("tls")
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            let first = try LocalCertificateAuthority.loadOrCreate(directory: directory, now: Self.now)
            let later = Self.now.addingTimeInterval(900 * 86_400)
            let second = try LocalCertificateAuthority.loadOrCreate(directory: directory, now: later)
            #expect(second.authorityCertificate == first.authorityCertificate)
            #expect(second.serverCertificate != first.serverCertificate)
            #expect(second.serverCertificate.notValidAfter > later)
        }

        @Test(.enabled(if: isInstalled("openssl"), "needs openssl"))
        func opensslVerifiesTheServerCertificateAgainstTheCA() throws {
            let directory = try makeTemporaryDirectory().appendingPathComponent("tls")
            defer { try? FileManager.default.removeItem(at: directory.deletingLastPathComponent()) }
            // Real time: openssl checks validity against its own clock.
            _ = try LocalCertificateAuthority.loadOrCreate(directory: directory, now: Date())
            let ca = directory.appendingPathComponent("ca.pem").path
            let server = directory.appendingPathComponent("server.pem").path

            let verify = try runProcess("openssl", ["verify", "-CAfile", ca, "-purpose", "sslserver", server])
            #expect(verify.status == 0, "\(verify.standardOutput)\(verify.standardError)")
            #expect(verify.standardOutput.contains("OK"))

            let hostCheck = try runProcess(
                "openssl",
                ["verify", "-CAfile", ca, "-verify_hostname", "localhost", "-verify_ip", "127.0.0.1", server])
            #expect(hostCheck.status == 0, "\(hostCheck.standardOutput)\(hostCheck.standardError)")

            let text = try runProcess("openssl", ["x509", "-in", server, "-noout", "-text"])
            #expect(text.status == 0)
            #expect(text.standardOutput.contains("DNS:localhost"))
            #expect(text.standardOutput.contains("IP Address:127.0.0.1"))
            #expect(text.standardOutput.contains("TLS Web Server Authentication"))

            let caText = try runProcess("openssl", ["x509", "-in", ca, "-noout", "-text"])
            #expect(caText.standardOutput.contains("CA:TRUE"))
            #expect(caText.standardOutput.contains("Certificate Sign"))

            let keyCheck = try runProcess(
                "openssl", ["pkey", "-in", directory.appendingPathComponent("server-key.pem").path, "-noout"])
            #expect(keyCheck.status == 0, "\(keyCheck.standardError)")
        }
    }
}
