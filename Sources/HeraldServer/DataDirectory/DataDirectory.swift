import Foundation
import HeraldCore

/// The files of one Herald data directory (`--data DIR`), as `docs/architecture.md` lays them out.
///
/// Only paths and small files live here; the database, the keys and the CA are written by their
/// owners at the paths this type names.
public struct DataDirectory: Hashable, Sendable {
    /// The directory used when `--data` is not given.
    public static let defaultPath = "./herald-data"

    /// The directory itself.
    public let root: URL

    /// A data directory at `root` (nothing is created until a write).
    public init(root: URL) {
        self.root = root.standardizedFileURL
    }

    /// A data directory at `path`, relative to the current directory unless absolute.
    public init(path: String) {
        self.init(root: URL(fileURLWithPath: path, isDirectory: true))
    }

    /// `herald.sqlite`: the database (with `-wal` and `-shm` beside it).
    public var databaseURL: URL { root.appendingPathComponent("herald.sqlite") }
    /// `admin-token`: the admin bearer token, one line, mode 0600.
    public var adminTokenURL: URL { root.appendingPathComponent("admin-token") }
    /// `tls/`: the local CA and the server certificate (see `LocalCertificateAuthority`).
    public var tlsDirectory: URL { root.appendingPathComponent("tls", isDirectory: true) }
    /// `tls/ca.pem`: the CA certificate clients trust.
    public var authorityCertificateURL: URL {
        tlsDirectory.appendingPathComponent(LocalCertificateAuthority.FileName.authorityCertificate)
    }
    /// `keys/`: the private keys Herald generated.
    public var keysDirectory: URL { root.appendingPathComponent("keys", isDirectory: true) }
    /// `demo.json`: the demo setup.
    public var demoURL: URL { root.appendingPathComponent("demo.json") }
    /// The files of notification attachments, named by their ids.
    public var attachmentsDirectory: URL { root.appendingPathComponent("attachments", isDirectory: true) }
    /// `runtime.json`: the URLs and pid of the running server.
    public var runtimeURL: URL { root.appendingPathComponent("runtime.json") }
    /// `setup.lock`: held while a node makes or reads the directory's files at start.
    public var setUpLockURL: URL { root.appendingPathComponent("setup.lock") }

    /// `keys/AuthKey_<KEYID>.p8`: where Herald writes a private key it generated.
    public func privateKeyURL(keyID: String) -> URL {
        keysDirectory.appendingPathComponent("AuthKey_\(keyID).p8")
    }

    /// Creates the directory (mode 0700) and its `keys/` and `tls/` subdirectories when missing.
    public func create() throws {
        for directory in [root, keysDirectory, tlsDirectory] {
            try FileManager.default.createDirectory(
                at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        }
    }
}

// MARK: - Set-up lock

extension DataDirectory {
    /// An exclusive lock on the directory's `setup.lock` (`flock`), released by `unlock()` or when
    /// the process ends.
    public struct SetUpLock: Sendable {
        let descriptor: Int32

        public func unlock() {
            flock(descriptor, LOCK_UN)
            close(descriptor)
        }
    }

    /// Waits until no other process sets the directory up, then holds the lock: nodes sharing a data
    /// directory make its admin token, certificates and demo once.
    public func lockForSetUp() throws -> SetUpLock {
        try create()
        let descriptor = open(setUpLockURL.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: setUpLockURL.path])
        }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else {
                close(descriptor)
                throw CocoaError(.fileLocking, userInfo: [NSFilePathErrorKey: setUpLockURL.path])
            }
        }
        return SetUpLock(descriptor: descriptor)
    }
}

// MARK: - Admin token

extension DataDirectory {
    /// The admin token, or nil when the file does not exist yet.
    public func readAdminToken() throws -> String? {
        guard FileManager.default.fileExists(atPath: adminTokenURL.path) else { return nil }
        let token = try String(contentsOf: adminTokenURL, encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// The admin token; on first use a random one is created (mode 0600) and kept from then on.
    public func loadOrCreateAdminToken() throws -> String {
        if let token = try readAdminToken() { return token }
        try create()
        var generator = SystemRandomNumberGenerator()
        let token = BearerToken.make(using: &generator)
        try PrivateFile.create(Data((token + "\n").utf8), at: adminTokenURL)
        // Another process may have created it first: the file on disk wins.
        guard let stored = try readAdminToken() else {
            throw FileError(description: "\(adminTokenURL.path) is empty")
        }
        return stored
    }
}

// MARK: - demo.json and runtime.json

extension DataDirectory {
    /// The demo setup, or nil when `demo.json` does not exist.
    public func readDemo() throws -> DemoSetup? {
        try readJSON(DemoSetup.self, from: demoURL)
    }

    /// Writes `demo.json` (mode 0600: it holds the demo user's token).
    public func writeDemo(_ demo: DemoSetup) throws {
        try create()
        try PrivateFile.write(try Self.encoder.encode(demo), to: demoURL)
    }

    /// The running server's URLs and pid, or nil when `runtime.json` does not exist.
    public func readRuntime() throws -> RuntimeInfo? {
        try readJSON(RuntimeInfo.self, from: runtimeURL)
    }

    /// Writes `runtime.json` atomically: a reader sees the old file, or the whole new one.
    public func writeRuntime(_ runtime: RuntimeInfo) throws {
        try create()
        try Self.encoder.encode(runtime).write(to: runtimeURL, options: .atomic)
    }

    /// Removes `runtime.json` (at shutdown) when this process wrote it: of nodes sharing the
    /// directory, the last one started wrote it. No error when it is already gone.
    public func removeRuntime() throws {
        guard FileManager.default.fileExists(atPath: runtimeURL.path) else { return }
        if let runtime = try? readRuntime(), runtime.pid != ProcessInfo.processInfo.processIdentifier { return }
        try FileManager.default.removeItem(at: runtimeURL)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return encoder
    }

    private func readJSON<Value: Decodable>(_ type: Value.Type, from url: URL) throws -> Value? {
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        let data = try Data(contentsOf: url)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw FileError(description: "\(url.path) is not valid: \(error)")
        }
    }
}
