import Foundation
import GRDB
import HeraldCore
import Logging
import ServiceLifecycle

/// Herald's embedded store: one SQLite database in WAL mode (one GRDB `DatabasePool`).
///
/// Every commit is durable when it returns (`synchronous = FULL`): a 200 to a provider means the
/// notification survives a power loss. `NotificationWriter` groups concurrent notification writes into
/// one transaction, so the fsync is paid once per batch rather than once per notification.
///
/// Sendable: its only state is the GRDB writer, which is Sendable and serializes writes itself.
public final class SQLiteStore: HeraldStore {
    let writer: any DatabaseWriter
    private let checkpointer: WALCheckpointer?
    /// The database file (nil in memory), named in the messages of storage faults.
    let databasePath: String?
    /// Logs a full disk or a damaged file once, not once per failed operation.
    let faultLog: StorageFaultLog

    /// Opens the database file at `path` (created when missing) and brings its schema up to date.
    /// A damaged file, a full disk or an I/O failure throws a `StorageFaultError` that says what to
    /// do next; `logger` gets the storage faults met later, once each (`StorageFaultLog`).
    public convenience init(path: String, logger: Logger = Logger(label: "herald.store")) throws {
        do {
            let pool = try DatabasePool(path: path, configuration: Self.makeConfiguration())
            try self.init(
                writer: pool, checkpointer: WALCheckpointer(path: path, configuration: Self.makeConfiguration()),
                databasePath: path, logger: logger)
        } catch let error as DatabaseError {
            throw StorageFaultError(error, databasePath: path) ?? error
        }
    }

    /// A new, empty, private in-memory database (for tests; nothing is durable).
    public static func inMemory(logger: Logger = Logger(label: "herald.store")) throws -> SQLiteStore {
        try SQLiteStore(
            writer: DatabaseQueue(configuration: makeConfiguration()), checkpointer: nil, databasePath: nil,
            logger: logger)
    }

    private init(writer: any DatabaseWriter, checkpointer: WALCheckpointer?, databasePath: String?, logger: Logger)
        throws
    {
        self.databasePath = databasePath
        self.faultLog = StorageFaultLog(logger: logger)
        // Set on the one connection that writes, after `DatabasePool` switched it to WAL with
        // `synchronous = NORMAL` (which runs after `prepareDatabase`):
        // - synchronous = FULL: durable at commit, even on power loss (the log is synced every commit);
        // - a 64 MiB page cache: notification ids are random, so each batch dirties index pages all
        //   over, and a small cache re-reads them;
        // - checkpoints off the commit path: `WALCheckpointer` copies the log into the database on its
        //   own connection and thread. SQLite's automatic checkpoint runs inside the commit that
        //   crosses the threshold, and copying 64 MiB of log stalled that commit (and every push
        //   waiting on it) for hundreds of milliseconds — the p99 of the APNs endpoint. The automatic
        //   one stays as a safety net at 256 MiB of log, should the background one fall behind.
        // - journal_size_limit: the log file shrinks back to 64 MiB after a checkpoint.
        // - temp_store = MEMORY: a statement that writes many rows (the group commit's multi-row
        //   upsert) keeps a statement journal of the pages it changes; past 64 KiB SQLite spilled it
        //   to a temporary file — an open, ~1 page written per push and an unlink per statement on
        //   the writer's thread, half of the bytes it wrote (scripts/profile-push: 3.8 KB a push).
        //   Only this connection's: the readers' temporary sorts stay on disk.
        let autocheckpoint = checkpointer == nil ? 16384 : 65536
        try writer.writeWithoutTransaction { db in
            try db.execute(
                sql: """
                    PRAGMA synchronous = FULL;
                    PRAGMA cache_size = -65536;
                    PRAGMA wal_autocheckpoint = \(autocheckpoint);
                    PRAGMA journal_size_limit = 67108864;
                    PRAGMA temp_store = MEMORY;
                    """)
        }
        try Schema.migrator.migrate(writer)
        self.writer = writer
        self.checkpointer = checkpointer
    }

    /// The background checkpoints of the write-ahead log (none in memory): run them in the
    /// application's ServiceGroup.
    public var backgroundServices: [any Service] { checkpointer.map { [$0] } ?? [] }

    private static func makeConfiguration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "herald"
        configuration.foreignKeysEnabled = true
        configuration.busyMode = .timeout(10)
        return configuration
    }

    public func latestCursor() async throws -> Int64 {
        try await read { db in try Self.latestSeq(db) }
    }

    /// Copies the whole write-ahead log into the database file and empties it (a TRUNCATE
    /// checkpoint; waits for the writer and the readers). For maintenance and benchmarks: after a
    /// bulk load, so what is measured next does not share the disk with the load's write-back.
    public func checkpointLog() async throws {
        guard let checkpointer else { return }  // in memory: no log
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            // It retries and sleeps: on a thread of its own, not on the cooperative pool.
            Thread.detachNewThread {
                continuation.resume(with: Result { try checkpointer.truncateLog() })
            }
        }
    }

    public func close() async throws {
        checkpointer?.stop()
        try await writer.writeWithoutTransaction { db in
            if try String.fetchOne(db, sql: "PRAGMA journal_mode") == "wal" {
                try db.checkpoint(.truncate)
            }
        }
        try writer.close()
    }

    /// The largest seq so far (0 when empty): of a notification change or a Scheduled Summary release.
    static func latestSeq(_ db: Database) throws -> Int64 {
        try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT MAX(COALESCE((SELECT MAX(seq) FROM notifications), 0), COALESCE((SELECT MAX(seq) FROM summary_releases), 0))
                    """)) ?? 0
    }
}

// MARK: - Transactions and errors

/// What to tell the caller when a write breaks a constraint of the schema. Operations check the
/// expected cases first with precise messages; these are the fallback when the engine (SQLite or
/// PostgreSQL) catches one.
public struct ConstraintMessages: Sendable {
    public var conflict = "The record already exists."
    public var notFound = "A record it refers to does not exist."
    public var invalid = "A value is not valid."

    public init(
        conflict: String = "The record already exists.", notFound: String = "A record it refers to does not exist.",
        invalid: String = "A value is not valid."
    ) {
        self.conflict = conflict
        self.notFound = notFound
        self.invalid = invalid
    }
}

extension SQLiteStore {
    /// Runs `updates` in one write transaction (durable when this returns); constraint violations
    /// become `StoreError`s with `messages`, a full disk or a damaged file a `StorageFaultError`
    /// (logged once), other errors pass through. Once the file was found damaged, every write is
    /// refused with that fault (see `StorageFaultLog`).
    func write<T: Sendable>(
        _ messages: ConstraintMessages = ConstraintMessages(),
        _ updates: @Sendable (Database) throws -> T
    ) async throws -> T {
        try faultLog.refuseWritesIfDamaged(operation: "write")
        do {
            let value = try await writer.write(updates)
            faultLog.writeSucceeded()
            return value
        } catch let error as DatabaseError {
            throw mapped(error, messages, operation: "write")
        }
    }

    /// `write`, blocking the calling thread (the notification writer's own thread, never a task).
    func writeBlocking<T>(
        _ messages: ConstraintMessages = ConstraintMessages(),
        _ updates: (Database) throws -> T
    ) throws -> T {
        try faultLog.refuseWritesIfDamaged(operation: "write")
        do {
            let value = try writer.write(updates)
            faultLog.writeSucceeded()
            return value
        } catch let error as DatabaseError {
            throw mapped(error, messages, operation: "write")
        }
    }

    /// Runs `value` in a read transaction; a damaged file or an I/O failure becomes a
    /// `StorageFaultError` (logged once).
    func read<T: Sendable>(_ value: @Sendable (Database) throws -> T) async throws -> T {
        do {
            return try await writer.read(value)
        } catch let error as DatabaseError {
            throw mapped(error, ConstraintMessages(), operation: "read")
        }
    }

    /// A SQLite error as the store's callers see it: a constraint as a `StoreError`, a storage fault
    /// as a `StorageFaultError` (reported to the fault log), anything else as it is.
    private func mapped(_ error: DatabaseError, _ messages: ConstraintMessages, operation: String) -> any Error {
        if error.resultCode == .SQLITE_CONSTRAINT { return Self.storeError(error, messages) }
        guard let fault = StorageFaultError(error, databasePath: databasePath) else { return error }
        faultLog.failed(fault, operation: operation)
        return fault
    }

    private static func storeError(_ error: DatabaseError, _ messages: ConstraintMessages) -> StoreError {
        switch error.extendedResultCode {
        case .SQLITE_CONSTRAINT_UNIQUE, .SQLITE_CONSTRAINT_PRIMARYKEY:
            StoreError(.conflict, messages.conflict)
        case .SQLITE_CONSTRAINT_FOREIGNKEY:
            StoreError(.notFound, messages.notFound)
        default:
            StoreError(.invalid, messages.invalid)
        }
    }

    /// Whether `sql` (a query of the form `SELECT 1 FROM …`) finds a row.
    static func exists(_ db: Database, _ sql: String, _ arguments: StatementArguments) throws -> Bool {
        try Bool.fetchOne(db.cachedStatement(sql: "SELECT EXISTS (\(sql))"), arguments: arguments) ?? false
    }
}
