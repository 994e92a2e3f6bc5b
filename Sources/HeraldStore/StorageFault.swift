import Foundation
import GRDB
import HeraldCore
import Logging
import Synchronization

/// A failure of the storage itself rather than of the request: the disk is full, the database file is
/// damaged, or reading or writing the file failed. The operation was not carried out (a failed
/// transaction changes nothing). `SQLiteStore` throws it in place of SQLite's error and logs it once
/// (`StorageFaultLog`), so callers answer with a 5xx and need not log it again for every request.
public struct StorageFaultError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Sendable {
        /// No space left on the file system of the data directory (SQLITE_FULL).
        case diskFull
        /// The database file is damaged (SQLITE_CORRUPT, SQLITE_NOTADB).
        case damaged
        /// Reading or writing the file failed (SQLITE_IOERR): a failing disk, a file system that went
        /// read-only, or a disk full met while syncing.
        case ioFailure
    }

    public let kind: Kind
    /// The database file (nil in memory).
    public let databasePath: String?
    /// SQLite's own message ("database or disk is full", "database disk image is malformed", …).
    public let sqliteMessage: String

    public init(_ kind: Kind, databasePath: String?, sqliteMessage: String) {
        self.kind = kind
        self.databasePath = databasePath
        self.sqliteMessage = sqliteMessage
    }

    /// The fault `error` is, if it is one (a SQLite error of the disk or the file).
    init?(_ error: DatabaseError, databasePath: String?) {
        let kind: Kind
        switch error.resultCode {
        case .SQLITE_FULL: kind = .diskFull
        case .SQLITE_CORRUPT, .SQLITE_NOTADB: kind = .damaged
        case .SQLITE_IOERR: kind = .ioFailure
        default: return nil
        }
        self.init(kind, databasePath: databasePath, sqliteMessage: error.message ?? "\(error.resultCode)")
    }

    /// The file as people should name it in a command.
    private var file: String { databasePath ?? "(in memory)" }

    /// What happened and what the operator should do next (for the log and for a start that fails).
    public var description: String {
        switch kind {
        case .diskFull:
            "The disk of the database \(file) is full (SQLite: \(sqliteMessage)); nothing was written. "
                + "Free space on its file system: writes succeed again as soon as there is room, without a restart."
        case .damaged:
            "The database \(file) is damaged (SQLite: \(sqliteMessage)). "
                + "With Herald stopped, check the file with `sqlite3 '\(file)' 'PRAGMA integrity_check'`, then restore it "
                + "from a backup: copy the backup over \(file) and delete \(file)-wal and \(file)-shm "
                + "(`sqlite3 '\(file)' .recover` may save what is still readable if there is no backup)."
        case .ioFailure:
            "Herald could not read or write the database \(file) (SQLite: \(sqliteMessage)); nothing was written. "
                + "Check the disk and its file system (free space, a file system remounted read-only, "
                + "the kernel log)."
        }
    }
}

/// Logs storage faults once, not once per request: under a full disk every push and API write
/// fails, and a line each would flood the log (itself often on the full disk).
///
/// The first fault of a kind is logged (`error`; `critical` for damage) with what to do next; later
/// faults of that kind only at `debug`. A full disk or an I/O failure ends with the first write that
/// succeeds, logged with the number of operations that failed meanwhile; a later fault is logged
/// again. Damage does not heal by itself: it is logged once for the life of the process, and from
/// then on the store refuses every write (`refuseWritesIfDamaged`): a 200 must mean durable, and
/// what is written into a file known to be damaged may be lost with it (SQLite's advice is to stop
/// writing to a damaged database and restore it).
final class StorageFaultLog: Sendable {
    private struct State {
        /// The disk-full and I/O-failure episodes under way: the failures counted in each.
        var open: [StorageFaultError.Kind: Int] = [:]
        /// The first damage met, if any.
        var damage: StorageFaultError?
    }

    private let logger: Logger
    private let state = HeraldMutex(State())
    /// Whether an episode is under way (a lock-free check on the path of every write).
    private let hasOpenEpisode = Atomic<Bool>(false)
    /// Whether damage was met (a lock-free check on the path of every write).
    private let isDamaged = Atomic<Bool>(false)

    init(logger: Logger) {
        self.logger = logger
    }

    /// An operation (`operation`: what it was, for the log) failed with `fault`.
    func failed(_ fault: StorageFaultError, operation: String) {
        let first = state.withLock { state -> Bool in
            switch fault.kind {
            case .damaged:
                guard state.damage == nil else { return false }
                state.damage = fault
                isDamaged.store(true, ordering: .releasing)
                return true
            case .diskFull, .ioFailure:
                let count = state.open[fault.kind, default: 0]
                state.open[fault.kind] = count + 1
                hasOpenEpisode.store(true, ordering: .releasing)
                return count == 0
            }
        }
        let metadata: Logger.Metadata = [
            "storage.fault": "\(fault.kind.rawValue)", "storage.operation": "\(operation)",
        ]
        if first {
            logger.log(level: fault.kind == .damaged ? .critical : .error, "\(fault.description)", metadata: metadata)
        } else {
            logger.debug("Storage fault again (logged once above)", metadata: metadata)
        }
    }

    /// Throws the damage met earlier, if any: a write must not be acknowledged once the file is
    /// known to be damaged.
    func refuseWritesIfDamaged(operation: String) throws {
        guard isDamaged.load(ordering: .acquiring), let damage = state.withLock({ $0.damage }) else { return }
        failed(damage, operation: operation)
        throw damage
    }

    /// A write transaction committed: ends the disk-full and I/O-failure episodes under way.
    func writeSucceeded() {
        guard hasOpenEpisode.load(ordering: .acquiring) else { return }
        let ended = state.withLock { state -> [StorageFaultError.Kind: Int] in
            defer {
                state.open = [:]
                hasOpenEpisode.store(false, ordering: .releasing)
            }
            return state.open
        }
        for (kind, count) in ended.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            logger.notice(
                "Storage writes succeed again",
                metadata: ["storage.fault": "\(kind.rawValue)", "storage.failed_operations": "\(count)"])
        }
    }
}
