import Foundation
import GRDB

// Apps' notification service extensions and the pushes waiting for them (`v16-service-extensions`).

extension SQLiteStore {
    public func setServiceExtension(_ record: ServiceExtensionRecord) async throws {
        let (kind, executable, arguments, url, secret): (String, String?, String, String?, String?) =
            switch record.runner {
            case .process(let executable, let arguments):
                ("process", executable, String(decoding: try JSONEncoder().encode(arguments), as: UTF8.self), nil, nil)
            case .webhook(let url, let secret): ("webhook", nil, "[]", url, secret)
            }
        try await write(Self.notFound("The app does not exist.")) { db in
            try Self.requireApp(db, record.bundleID)
            try db.execute(
                sql: """
                    INSERT INTO service_extensions (bundle_id, kind, executable, arguments, url, timeout_ms,
                        memory_limit_bytes, processes, created_at, secret)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (bundle_id) DO UPDATE SET
                        kind = excluded.kind, executable = excluded.executable, arguments = excluded.arguments,
                        url = excluded.url, timeout_ms = excluded.timeout_ms,
                        memory_limit_bytes = excluded.memory_limit_bytes, processes = excluded.processes,
                        created_at = excluded.created_at, secret = excluded.secret
                    """,
                arguments: [
                    record.bundleID, kind, executable, arguments, url, record.timeoutMilliseconds,
                    record.memoryLimitBytes, record.processes, record.createdAt.storedMilliseconds, secret,
                ])
        }
    }

    public func serviceExtensions() async throws -> [ServiceExtensionRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT bundle_id, kind, executable, arguments, url, timeout_ms, memory_limit_bytes, processes,
                        created_at, secret
                    FROM service_extensions ORDER BY bundle_id
                    """
            ).map { row in
                let runner: ServiceExtensionRecord.Runner =
                    if let executable = row[2] as String? {
                        .process(
                            executable: executable,
                            arguments: (try? JSONDecoder().decode([String].self, from: Data((row[3] as String).utf8)))
                                ?? [])
                    } else {
                        .webhook(url: row[4] ?? "", secret: row[9] ?? "")
                    }
                return ServiceExtensionRecord(
                    bundleID: row[0], runner: runner, timeoutMilliseconds: row[5], memoryLimitBytes: row[6],
                    processes: row[7], createdAt: Date(storedMilliseconds: row[8]))
            }
        }
    }

    public func removeServiceExtension(bundleID: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM service_extensions WHERE bundle_id = ?", arguments: [bundleID])
            return db.changesCount > 0
        }
    }

    public func addExtensionJob(_ job: ExtensionJobRecord) async throws {
        try await updateExtensionJobs(adding: [job], removing: [])
    }

    public func updateExtensionJobs(adding: [ExtensionJobRecord], removing: [String]) async throws {
        guard !adding.isEmpty || !removing.isEmpty else { return }
        try await write(Self.notFound("The device or the app does not exist.")) { db in
            for id in removing {
                try db.execute(
                    sql: "DELETE FROM extension_jobs WHERE id = ?", arguments: [id])
            }
            for job in adding {
                try Self.insertJob(db, job)
            }
        }
    }

    private static func insertJob(_ db: Database, _ job: ExtensionJobRecord) throws {
        try db.execute(
            sql: """
                INSERT INTO extension_jobs (id, device_id, bundle_id, token, topic, push_type, priority,
                    expiration, collapse_id, payload, received_at, claimed_until)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (id) DO UPDATE SET
                    device_id = excluded.device_id, bundle_id = excluded.bundle_id, token = excluded.token,
                    topic = excluded.topic, push_type = excluded.push_type, priority = excluded.priority,
                    expiration = excluded.expiration, collapse_id = excluded.collapse_id,
                    payload = excluded.payload, received_at = excluded.received_at,
                    claimed_until = excluded.claimed_until
                """,
            arguments: [
                job.id, job.deviceID, job.bundleID, job.token, job.topic, job.pushType, job.priority,
                job.expiration, job.collapseID, job.payload, job.receivedAt.storedMilliseconds,
                ExtensionJobRecord.storedClaim(job.claimedUntil),
            ])
    }

    public func extensionJobs(limit: Int) async throws -> [ExtensionJobRecord] {
        try await read { db in
            try Self.jobs(db, "ORDER BY received_at, id LIMIT ?", [limit])
        }
    }

    public func claimExtensionJobs(through date: Date, leaseEnd: Date, limit: Int) async throws
        -> [ExtensionJobRecord]
    {
        try await write { db in
            let jobs = try Self.jobs(
                db, "WHERE claimed_until <= ? ORDER BY received_at, id LIMIT ?",
                [ExtensionJobRecord.storedClaim(date), limit])
            for job in jobs {
                try db.execute(
                    sql: "UPDATE extension_jobs SET claimed_until = ? WHERE id = ?",
                    arguments: [leaseEnd.storedMilliseconds, job.id])
            }
            return jobs.map { job in
                var claimed = job
                claimed.claimedUntil = leaseEnd
                return claimed
            }
        }
    }

    public func renewExtensionJobs(ids: [String], leaseEnd: Date) async throws {
        guard !ids.isEmpty else { return }
        try await write { db in
            for id in ids {
                try db.execute(
                    sql: "UPDATE extension_jobs SET claimed_until = ? WHERE id = ?",
                    arguments: [ExtensionJobRecord.storedClaim(leaseEnd), id])
            }
        }
    }

    private static func jobs(_ db: Database, _ clauses: String, _ arguments: StatementArguments) throws
        -> [ExtensionJobRecord]
    {
        try Row.fetchAll(
            db,
            sql: """
                SELECT id, device_id, bundle_id, token, topic, push_type, priority, expiration, collapse_id,
                    payload, received_at, claimed_until
                FROM extension_jobs \(clauses)
                """, arguments: arguments
        ).map { row in
            let claimed: Int64 = row[11]
            return ExtensionJobRecord(
                id: row[0], deviceID: row[1], bundleID: row[2], token: row[3], topic: row[4], pushType: row[5],
                priority: row[6], expiration: row[7], collapseID: row[8], payload: row[9],
                receivedAt: Date(storedMilliseconds: row[10]),
                claimedUntil: ExtensionJobRecord.claim(stored: claimed))
        }
    }

    public func removeExtensionJob(id: String) async throws {
        try await write { db in
            try db.execute(sql: "DELETE FROM extension_jobs WHERE id = ?", arguments: [id])
        }
    }
}
