import Foundation
import GRDB
import HeraldCore
import Logging
import Synchronization
import Testing

@testable import HeraldStore

/// The log lines a test reads back (level and message).
final class CapturedLog: Sendable {
    let lines = HeraldMutex<[(level: Logger.Level, message: String)]>([])

    var logger: Logger {
        var logger = Logger(label: "herald.store.tests") { _ in CapturingLogHandler(log: self) }
        logger.logLevel = .trace
        return logger
    }

    /// The lines at `level` (that contain `text`, if given).
    func count(_ level: Logger.Level, containing text: String? = nil) -> Int {
        lines.withLock { $0.filter { $0.level == level && (text.map($0.message.contains) ?? true) }.count }
    }
}

struct CapturingLogHandler: LogHandler {
    let log: CapturedLog
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        log.lines.withLock { $0.append((event.level, event.message.description)) }
    }
}

/// A full disk and a damaged file, as the store's callers see them: a `StorageFaultError` that says
/// what to do next, logged once rather than once per operation; nothing half-written.
@Suite("Storage faults")
struct StorageFaultTests {
    private func withDatabasePath(_ body: (String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "herald-faults-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory.appendingPathComponent("herald.sqlite").path)
    }

    private func notifications(_ prefix: String, count: Int) -> [StoredNotification] {
        (0..<count).map {
            Fixture.notification(
                "\(prefix)-\($0)", receivedAt: Fixture.time(Int64($0)),
                payload: #"{"aps":{"alert":"\#(String(repeating: "x", count: 2_000))"}}"#)
        }
    }

    /// Limits the database to the pages it has now, as a full disk does (SQLITE_FULL).
    private func fillTheDisk(_ store: SQLiteStore, extraPages: Int = 0) async throws {
        try await store.writer.writeWithoutTransaction { db in
            let pages = try Int.fetchOne(db, sql: "PRAGMA page_count") ?? 0
            try db.execute(sql: "PRAGMA max_page_count = \(pages + extraPages)")
        }
    }

    /// Overwrites every page but the first (header and schema) with random bytes.
    private func overwritePages(of path: String) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        let pageSize = Int(data[16]) << 8 | Int(data[17])
        let pages = data.count / pageSize
        #expect(pages > 10)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        var generator = SystemRandomNumberGenerator()
        for page in 1..<pages {
            try handle.seek(toOffset: UInt64(page * pageSize))
            try handle.write(contentsOf: Data((0..<pageSize).map { _ in UInt8.random(in: 0...255, using: &generator) }))
        }
        try handle.synchronize()
    }

    @Test func aFullDiskRefusesWritesWithDiskFullChangesNothingAndWritesAgainOnceThereIsRoom() async throws {
        try await withDatabasePath { path in
            let log = CapturedLog()
            let store = try SQLiteStore(path: path, logger: log.logger)
            try await Fixture.seed(store)
            _ = try await store.insert(notifications("before", count: 3))
            try await fillTheDisk(store)

            // Batches of notifications (new pages): refused as disk full, nothing written
            for attempt in 0..<3 {
                let error = await #expect(throws: StorageFaultError.self) {
                    try await store.insert(notifications("full-\(attempt)", count: 50))
                }
                #expect(error?.kind == .diskFull)
                #expect(error?.description.contains("is full") == true)
                #expect(error?.description.contains(path) == true)
            }
            let listed = try await store.notifications(
                deviceID: Fixture.deviceID, after: 0, limit: 100, now: Fixture.time())
            #expect(listed.map(\.id) == (0..<3).map { "before-\($0)" })

            // Logged once, not once per refused write
            #expect(log.count(.error, containing: "is full") == 1)
            #expect(log.count(.debug, containing: "logged once above") == 2)

            // Room again: the next write succeeds, and the end of the episode is logged
            try await fillTheDisk(store, extraPages: 10_000)
            _ = try await store.insert(notifications("after", count: 50))
            #expect(log.count(.notice, containing: "succeed again") == 1)
            try await store.close()
        }
    }

    @Test func damageMetWhileServingIsLoggedOnceAndEveryWriteIsRefusedFromThenOn() async throws {
        try await withDatabasePath { path in
            let log = CapturedLog()
            let store = try SQLiteStore(path: path, logger: log.logger)
            try await Fixture.seed(store)
            _ = try await store.insert(notifications("n", count: 200))
            try await store.checkpointLog()  // everything in the file, the log empty
            try overwritePages(of: path)

            // A read meets the damage
            let error = await #expect(throws: StorageFaultError.self) {
                try await store.notifications(deviceID: Fixture.deviceID, after: 0, limit: 500, now: Fixture.time())
            }
            #expect(error?.kind == .damaged)
            // From then on every write is refused with it, even one the writer's page cache could
            // have carried out without reading a damaged page: a 200 must mean durable
            for attempt in 0..<5 {
                let refused = await #expect(throws: StorageFaultError.self) {
                    try await store.insert([Fixture.notification("late-\(attempt)")])
                }
                #expect(refused?.kind == .damaged)
            }
            #expect(log.count(.critical, containing: "PRAGMA integrity_check") == 1)
            #expect(log.count(.critical) == 1)
        }
    }

    @Test func aFileDamagedBeforeTheStartIsRefusedWithWhatToDoNext() async throws {
        try await withDatabasePath { path in
            let store = try SQLiteStore(path: path)
            try await Fixture.seed(store)
            _ = try await store.insert(notifications("n", count: 100))
            try await store.close()
            try overwritePages(of: path)

            let error = #expect(throws: StorageFaultError.self) { try SQLiteStore(path: path) }
            #expect(error?.kind == .damaged)
            let message = error?.description ?? ""
            #expect(message.contains("database disk image is malformed"))
            #expect(message.contains("sqlite3 '\(path)' 'PRAGMA integrity_check'"))
            #expect(message.contains("restore it from a backup"))
            #expect(message.contains("\(path)-wal"))
        }
    }
}
