import Foundation
import HeraldPostgres
import HeraldStore
import Logging
import Synchronization
import Testing

/// The store contract: every test that takes a `StoreEngine` runs against each engine here, through
/// the store protocols only; tests of one engine's internals (SQL plans, migrations, files) take no
/// engine.
enum StoreEngine: String, Sendable, CustomTestStringConvertible {
    /// SQLite in memory (one connection).
    case sqliteMemory = "SQLite in memory"
    /// SQLite in a file in WAL mode (a pool: one writer, concurrent readers), as `herald serve` runs it.
    case sqliteFile = "SQLite file"
    /// PostgreSQL (a server of this test process, `scripts/pg-temp`; a database per store).
    case postgres = "PostgreSQL"

    /// Every engine.
    static let all: [StoreEngine] = [.sqliteMemory, .sqliteFile, .postgres]

    var testDescription: String { rawValue }

    /// An empty store of this engine, with the schema in place.
    func makeEmpty() async throws -> any HeraldStore {
        switch self {
        case .postgres:
            return try await PostgresStore.connect(try await TestPostgres.newDatabase(), logger: TestPostgres.logger)
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
        let store = try await makeEmpty()
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

/// One PostgreSQL server for this test process, started on first use with `scripts/pg-temp` in the
/// temporary directory and stopped when the process exits (servers of processes that ended are
/// stopped and removed first); each store gets a new database on it.
enum TestPostgres {
    private static let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("scripts/pg-temp").path

    private static let directory: Result<String, any Error> = Result {
        let temporary = FileManager.default.temporaryDirectory
        let prefix = "herald-postgres-"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        where name.hasPrefix(prefix) {
            if let pid = Int32(name.dropFirst(prefix.count)), kill(pid, 0) == 0 { continue }
            let old = temporary.appendingPathComponent(name).path
            _ = try? run(["stop", old])
            try? FileManager.default.removeItem(atPath: old)
        }
        let directory = temporary.appendingPathComponent(prefix + "\(getpid())").path
        _ = try run(["start", directory])
        atexit {
            _ = try? TestPostgres.run([
                "stop",
                FileManager.default.temporaryDirectory.appendingPathComponent("herald-postgres-\(getpid())").path,
            ])
        }
        return directory
    }

    private static let counter = Mutex(0)

    /// Quiet: the stores' start-up lines (migrations applied) would fill the test output.
    static let logger: Logger = {
        var logger = Logger(label: "herald.postgres.test")
        logger.logLevel = .error
        return logger
    }()

    /// Rows of `sql` on the database at `url`, each as psql prints it (`a|b`).
    static func query(_ url: String, _ sql: String) throws -> [String] {
        let parsed = try PostgresURL(url)
        return try run(["psql", parsed.socketDirectory ?? "", parsed.database, sql]).split(separator: "\n").map(
            String.init)
    }

    /// The URL of a new, empty database. The script runs on a thread of Dispatch's, not of the
    /// tasks' pool: starting the server takes a second or two, and the pool has two threads here.
    static func newDatabase() async throws -> String {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: Result { try newDatabaseBlocking() }) }
        }
    }

    private static func newDatabaseBlocking() throws -> String {
        let directory = try directory.get()
        let number = counter.withLock { value in
            value += 1
            return value
        }
        return try run(["createdb", directory, "contract_\(number)"]).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs `scripts/pg-temp` with `arguments` and returns what it printed. With posix_spawn and
    /// waitpid rather than Foundation's `Process`, whose `waitUntilExit` never returned here when
    /// called from a test's task while another task waited on this one's lazy start.
    @discardableResult
    static func run(_ arguments: [String]) throws -> String {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("pg-temp-\(UUID().uuidString)")
        defer {
            try? FileManager.default.removeItem(atPath: output.path + ".out")
            try? FileManager.default.removeItem(atPath: output.path + ".err")
        }
        let quoted = ([script] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let command = quoted.joined(separator: " ") + " >'\(output.path).out' 2>'\(output.path).err' </dev/null"
        var pid: pid_t = 0
        let argv: [UnsafeMutablePointer<CChar>?] =
            ["/bin/sh", "-c", command].map { (text: String) in strdup(text) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        let spawned = posix_spawn(&pid, "/bin/sh", nil, nil, argv, environ)
        guard spawned == 0 else { throw TestPostgresError(description: "posix_spawn: \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let text = (try? String(contentsOfFile: output.path + ".out", encoding: .utf8)) ?? ""
        guard status == 0 else {
            let failure = (try? String(contentsOfFile: output.path + ".err", encoding: .utf8)) ?? ""
            throw TestPostgresError(description: "scripts/pg-temp \(arguments.joined(separator: " ")): \(failure)")
        }
        return text
    }
}

struct TestPostgresError: Error, CustomStringConvertible {
    let description: String
}
