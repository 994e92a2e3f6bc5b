import Crypto
import Foundation
import SwiftASN1
import X509

/// Herald's local certificate authority and the TLS server certificate it issues for `localhost` and
/// `127.0.0.1`, kept as PEM files in `<data>/tls`.
///
/// Clients trust the CA (`ca.pem`) once — `curl --cacert`, `ssl.create_default_context(cafile:)`,
/// `herald push --ca` — and every server certificate Herald issues afterwards verifies.
public struct LocalCertificateAuthority: Sendable {
    /// How long a new CA certificate is valid.
    public static let authorityValidity: TimeInterval = 3650 * 86_400
    /// How long a new server certificate is valid: Apple's limit for TLS server certificates.
    public static let serverValidity: TimeInterval = 825 * 86_400

    /// The file names inside the TLS directory.
    public enum FileName {
        public static let authorityCertificate = "ca.pem"
        public static let authorityKey = "ca-key.pem"
        public static let serverCertificate = "server.pem"
        public static let serverKey = "server-key.pem"
    }

    /// The directory holding the four PEM files.
    public let directory: URL
    /// The CA certificate.
    public let authorityCertificate: Certificate
    /// The server certificate, signed by the CA.
    public let serverCertificate: Certificate
    /// The server certificate's private key, PEM (PKCS#8).
    public let serverPrivateKeyPEM: String

    /// `ca.pem`: the file clients trust.
    public var authorityCertificateURL: URL { directory.appendingPathComponent(FileName.authorityCertificate) }
    /// `ca-key.pem` (mode 0600).
    public var authorityKeyURL: URL { directory.appendingPathComponent(FileName.authorityKey) }
    /// `server.pem`: the certificate the TLS listener presents.
    public var serverCertificateURL: URL { directory.appendingPathComponent(FileName.serverCertificate) }
    /// `server-key.pem` (mode 0600).
    public var serverKeyURL: URL { directory.appendingPathComponent(FileName.serverKey) }

    /// Loads the CA and server certificate from `directory`, creating what is missing.
    ///
    /// Existing files are reused; a server certificate that has expired at `now` (or was not issued
    /// by the CA on disk) is reissued from the existing CA; an expired or missing CA is recreated
    /// together with a new server certificate.
    public static func loadOrCreate(directory: URL, now: Date) throws -> LocalCertificateAuthority {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
        )
        let files = PEMFiles(directory: directory)
        let authority: (certificate: Certificate, key: P256.Signing.PrivateKey)
        if let existing = try files.loadAuthority(), existing.certificate.isValid(at: now) {
            authority = existing
        } else {
            authority = try makeAuthority(now: now)
            try files.writePrivate(authority.key.pemRepresentation, to: FileName.authorityKey)
            try files.write(authority.certificate.serializeAsPEM().pemString, to: FileName.authorityCertificate)
        }

        let server: (certificate: Certificate, keyPEM: String)
        if let existing = try files.loadServer(),
            existing.certificate.isValid(at: now),
            existing.certificate.issuer == authority.certificate.subject,
            authority.certificate.publicKey.isValidSignature(existing.certificate.signature, for: existing.certificate)
        {
            server = existing
        } else {
            let key = P256.Signing.PrivateKey()
            let certificate = try makeServerCertificate(publicKey: key.publicKey, authority: authority, now: now)
            try files.writePrivate(key.pemRepresentation, to: FileName.serverKey)
            try files.write(certificate.serializeAsPEM().pemString, to: FileName.serverCertificate)
            server = (certificate, key.pemRepresentation)
        }
        return LocalCertificateAuthority(
            directory: directory,
            authorityCertificate: authority.certificate,
            serverCertificate: server.certificate,
            serverPrivateKeyPEM: server.keyPEM
        )
    }

    static func makeAuthority(now: Date) throws -> (certificate: Certificate, key: P256.Signing.PrivateKey) {
        let key = P256.Signing.PrivateKey()
        let publicKey = Certificate.PublicKey(key.publicKey)
        let name = try DistinguishedName {
            OrganizationName("Herald")
            CommonName("Herald Local CA")
        }
        let certificate = try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: publicKey,
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(authorityValidity),
            issuer: name,
            subject: name,
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                SubjectKeyIdentifier(hash: publicKey)
            },
            issuerPrivateKey: Certificate.PrivateKey(key)
        )
        return (certificate, key)
    }

    static func makeServerCertificate(
        publicKey: P256.Signing.PublicKey,
        authority: (certificate: Certificate, key: P256.Signing.PrivateKey),
        now: Date
    ) throws -> Certificate {
        let subjectKey = Certificate.PublicKey(publicKey)
        let authorityKeyID = try authority.certificate.extensions.subjectKeyIdentifier?.keyIdentifier
        return try Certificate(
            version: .v3,
            serialNumber: Certificate.SerialNumber(),
            publicKey: subjectKey,
            notValidBefore: now.addingTimeInterval(-300),
            notValidAfter: now.addingTimeInterval(serverValidity),
            issuer: authority.certificate.subject,
            subject: try DistinguishedName {
                OrganizationName("Herald")
                CommonName("localhost")
            },
            signatureAlgorithm: .ecdsaWithSHA256,
            extensions: try Certificate.Extensions {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
                try ExtendedKeyUsage([.serverAuth])
                SubjectAlternativeNames([
                    .dnsName("localhost"),
                    .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                ])
                SubjectKeyIdentifier(hash: subjectKey)
                AuthorityKeyIdentifier(keyIdentifier: authorityKeyID)
            },
            issuerPrivateKey: Certificate.PrivateKey(authority.key)
        )
    }
}

extension Certificate {
    fileprivate func isValid(at now: Date) -> Bool {
        notValidBefore <= now && now < notValidAfter
    }
}

/// Reading and writing the PEM files of one TLS directory.
private struct PEMFiles {
    let directory: URL

    func read(_ name: String) throws -> String? {
        let url = directory.appendingPathComponent(name)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try String(contentsOf: url, encoding: .utf8)
    }

    func loadAuthority() throws -> (certificate: Certificate, key: P256.Signing.PrivateKey)? {
        guard let certificatePEM = try read(LocalCertificateAuthority.FileName.authorityCertificate),
            let keyPEM = try read(LocalCertificateAuthority.FileName.authorityKey)
        else { return nil }
        let certificate = try Certificate(pemEncoded: certificatePEM)
        let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else { return nil }
        return (certificate, key)
    }

    func loadServer() throws -> (certificate: Certificate, keyPEM: String)? {
        guard let certificatePEM = try read(LocalCertificateAuthority.FileName.serverCertificate),
            let keyPEM = try read(LocalCertificateAuthority.FileName.serverKey)
        else { return nil }
        let certificate = try Certificate(pemEncoded: certificatePEM)
        let key = try P256.Signing.PrivateKey(pemRepresentation: keyPEM)
        guard certificate.publicKey == Certificate.PublicKey(key.publicKey) else { return nil }
        return (certificate, keyPEM)
    }

    func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: directory.appendingPathComponent(name), options: .atomic)
    }

    func writePrivate(_ text: String, to name: String) throws {
        try PrivateFile.write(Data(text.utf8), to: directory.appendingPathComponent(name))
    }
}
