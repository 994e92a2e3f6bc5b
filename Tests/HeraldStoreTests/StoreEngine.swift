import Foundation
import HeraldStore
import Testing

/// The store contract: every test that takes a `StoreEngine` runs against each engine here, through
/// the `HeraldStore` protocol only. A new engine (PostgreSQL) adds a case and must pass all of them;
/// tests of one engine's internals (SQL plans, migrations, files) take no engine.
enum StoreEngine: String, CaseIterable, Sendable, CustomTestStringConvertible {
    /// SQLite in memory (one connection).
    case sqliteMemory = "SQLite in memory"
    /// SQLite in a file in WAL mode (a pool: one writer, concurrent readers), as `herald serve` runs it.
    case sqliteFile = "SQLite file"

    var testDescription: String { rawValue }

    /// An empty store of this engine, with the schema in place.
    func makeEmpty() throws -> any HeraldStore {
        switch self {
        case .sqliteMemory:
            return try SQLiteStore.inMemory()
        case .sqliteFile:
            let directory = Self.directory.appendingPathComponent(UUID().uuidString, isDirectory: true)
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return try SQLiteStore(path: directory.appendingPathComponent("herald.sqlite").path)
        }
    }

    /// Where this test process puts its database files: `herald-store-contract-<pid>` in the
    /// temporary directory. Made once per process, after removing those of processes that ended.
    static let directory: URL = {
        let temporary = FileManager.default.temporaryDirectory
        let prefix = "herald-store-contract-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) == 0 { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
        return temporary.appendingPathComponent(prefix + "\(getpid())", isDirectory: true)
    }()

    /// A store with the fixture's team, two apps, a user and two devices (`Fixture.seed`).
    func make() async throws -> any HeraldStore {
        let store = try makeEmpty()
        try await Fixture.seed(store)
        return store
    }

    /// `make()` and a second user with one device (`Fixture.seedOtherUser`).
    func makePolicyStore() async throws -> any HeraldStore {
        let store = try await make()
        try await Fixture.seedOtherUser(store)
        return store
    }
}
