import Foundation
import HeraldStore
import PostgresNIO

// Apps' notification service extensions and the pushes waiting for them, as SQLiteStore keeps them.

extension PostgresStore: ServiceExtensionStore {
    public func setServiceExtension(_ record: ServiceExtensionRecord) async throws {
        let (kind, executable, arguments, url, secret): (String, String?, [String], String?, String?) =
            switch record.runner {
            case .process(let executable, let arguments): ("process", executable, arguments, nil, nil)
            case .webhook(let url, let secret): ("webhook", nil, [], url, secret)
            }
        try await write(ConstraintMessages(notFound: "The app does not exist.")) { connection in
            guard
                try await Self.exists(
                    connection, "SELECT 1 FROM apps WHERE bundle_id = \(record.bundleID)", logger: self.logger)
            else { throw StoreError(.notFound, "The app does not exist.") }
            try await connection.query(
                """
                INSERT INTO service_extensions (bundle_id, kind, executable, arguments, url, timeout_ms,
                    memory_limit_bytes, processes, created_at, secret)
                VALUES (\(record.bundleID), \(kind), \(executable), \(arguments), \(url), \(record.timeoutMilliseconds),
                    \(record.memoryLimitBytes), \(record.processes), \(record.createdAt.storedMilliseconds), \(secret))
                ON CONFLICT (bundle_id) DO UPDATE SET
                    kind = excluded.kind, executable = excluded.executable, arguments = excluded.arguments,
                    url = excluded.url, timeout_ms = excluded.timeout_ms,
                    memory_limit_bytes = excluded.memory_limit_bytes, processes = excluded.processes,
                    created_at = excluded.created_at, secret = excluded.secret
                """, logger: self.logger)
            // The other nodes run their pushes through it too (`ServiceExtensionService.changed`).
            try await self.notifyRegistryChange(connection)
        }
    }

    public func serviceExtensions() async throws -> [ServiceExtensionRecord] {
        try await read { connection in
            var records: [ServiceExtensionRecord] = []
            let rows = try await connection.query(
                """
                SELECT bundle_id, executable, arguments, url, timeout_ms, memory_limit_bytes, processes,
                    created_at, secret
                FROM service_extensions ORDER BY bundle_id
                """, logger: self.logger)
            for try await (bundleID, executable, arguments, url, timeout, memory, processes, createdAt, secret)
                in rows.decode((String, String?, [String], String?, Int, Int, Int, Int64, String?).self)
            {
                let runner: ServiceExtensionRecord.Runner =
                    if let executable { .process(executable: executable, arguments: arguments) } else {
                        .webhook(url: url ?? "", secret: secret ?? "")
                    }
                records.append(
                    ServiceExtensionRecord(
                        bundleID: bundleID, runner: runner, timeoutMilliseconds: timeout, memoryLimitBytes: memory,
                        processes: processes, createdAt: Date(storedMilliseconds: createdAt)))
            }
            return records
        }
    }

    public func removeServiceExtension(bundleID: String) async throws -> Bool {
        try await write { connection in
            let removed = try await Self.deletes(
                connection, "DELETE FROM service_extensions WHERE bundle_id = \(bundleID)", logger: self.logger)
            if removed { try await self.notifyRegistryChange(connection) }
            return removed
        }
    }

    public func addExtensionJob(_ job: ExtensionJobRecord) async throws {
        try await updateExtensionJobs(adding: [job], removing: [])
    }

    public func updateExtensionJobs(adding: [ExtensionJobRecord], removing: [String]) async throws {
        guard !adding.isEmpty || !removing.isEmpty else { return }
        try await write(ConstraintMessages(notFound: "The device or the app does not exist.")) { connection in
            if !removing.isEmpty {
                try await connection.query(
                    "DELETE FROM extension_jobs WHERE id = ANY(\(removing))", logger: self.logger)
            }
            for job in adding {
                try await connection.query(
                    """
                    INSERT INTO extension_jobs (id, device_id, bundle_id, token, topic, push_type, priority,
                        expiration, collapse_id, payload, received_at, claimed_until)
                    VALUES (\(job.id), \(job.deviceID), \(job.bundleID), \(job.token), \(job.topic), \(job.pushType),
                        \(job.priority), \(job.expiration), \(job.collapseID), \(job.payload),
                        \(job.receivedAt.storedMilliseconds), \(ExtensionJobRecord.storedClaim(job.claimedUntil)))
                    ON CONFLICT (id) DO UPDATE SET
                        device_id = excluded.device_id, bundle_id = excluded.bundle_id, token = excluded.token,
                        topic = excluded.topic, push_type = excluded.push_type, priority = excluded.priority,
                        expiration = excluded.expiration, collapse_id = excluded.collapse_id,
                        payload = excluded.payload, received_at = excluded.received_at,
                        claimed_until = excluded.claimed_until
                    """, logger: self.logger)
            }
        }
    }

    public func extensionJobs(limit: Int) async throws -> [ExtensionJobRecord] {
        try await read { connection in
            try await Self.jobs(
                connection,
                """
                SELECT \(unescaped: Self.jobColumns) FROM extension_jobs ORDER BY received_at, id LIMIT \(limit)
                """, logger: self.logger)
        }
    }

    /// The claimable rows locked `SKIP LOCKED`: two nodes claiming at once take different jobs.
    public func claimExtensionJobs(through date: Date, leaseEnd: Date, limit: Int) async throws
        -> [ExtensionJobRecord]
    {
        try await write { connection in
            try await Self.jobs(
                connection,
                """
                WITH due AS (
                    SELECT id FROM extension_jobs
                    WHERE claimed_until <= \(ExtensionJobRecord.storedClaim(date))
                    ORDER BY received_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED
                ), claimed AS (
                    UPDATE extension_jobs j SET claimed_until = \(leaseEnd.storedMilliseconds)
                    FROM due WHERE j.id = due.id RETURNING j.*
                )
                SELECT \(unescaped: Self.jobColumns) FROM claimed ORDER BY received_at, id
                """, logger: self.logger)
        }
    }

    public func renewExtensionJobs(ids: [String], leaseEnd: Date) async throws {
        guard !ids.isEmpty else { return }
        try await execute(
            "UPDATE extension_jobs SET claimed_until = \(ExtensionJobRecord.storedClaim(leaseEnd)) WHERE id = ANY(\(ids))"
        )
    }

    private static let jobColumns = """
        id, device_id, bundle_id, token, topic, push_type, priority, expiration, collapse_id, payload, received_at,
        claimed_until
        """

    private static func jobs(_ connection: PostgresConnection, _ query: PostgresQuery, logger: Logger) async throws
        -> [ExtensionJobRecord]
    {
        var jobs: [ExtensionJobRecord] = []
        for try await row in try await connection.query(query, logger: logger) {
            let (
                id, deviceID, bundleID, token, topic, pushType, priority, expiration, collapseID, payload, received,
                claimed
            ) =
                try row.decode(
                    (String, String, String, String, String, String, Int, Int64?, String?, String, Int64, Int64).self)
            jobs.append(
                ExtensionJobRecord(
                    id: id, deviceID: deviceID, bundleID: bundleID, token: token, topic: topic, pushType: pushType,
                    priority: priority, expiration: expiration, collapseID: collapseID, payload: payload,
                    receivedAt: Date(storedMilliseconds: received),
                    claimedUntil: ExtensionJobRecord.claim(stored: claimed)))
        }
        return jobs
    }

    public func removeExtensionJob(id: String) async throws {
        try await execute("DELETE FROM extension_jobs WHERE id = \(id)")
    }
}
