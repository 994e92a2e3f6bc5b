import Foundation
import HeraldCore
import HeraldStore
import Logging
import PostgresNIO

// `herald migrate --from DIR --to postgres://…`: an SQLite data directory's database copied into an
// empty PostgreSQL database, table by table, in one transaction.
//
// The two schemas keep the same tables and columns (the contract suite reads both the same way), so
// the copy is by name: each PostgreSQL column takes the SQLite column of its name, converted to its
// type (booleans from 0/1, text arrays from the JSON arrays SQLite keeps, bytea from blobs). The
// notifications' `row_id` (the order a summary's horizon names) takes SQLite's rowid. A column or a
// table of the SQLite file with no place here stops the copy before it commits: nothing is dropped
// silently. Seqs are copied as they are, and the database's sequence continues after the largest, so
// every client's cursor stays valid on the new database.

/// What an import copied.
public struct ImportSummary: Sendable {
    /// Rows copied, by table.
    public var rows: [String: Int] = [:]
    /// The latest seq of the copied lists: the next change gets a larger one.
    public var latestSeq: Int64 = 0
}

/// The import could not be made; nothing was written.
public struct ImportError: Error, CustomStringConvertible, Sendable {
    public let description: String
}

extension PostgresStore {
    /// Tables of the PostgreSQL schema that are its own, not data to copy.
    static let ownTables: Set<String> = ["herald_migrations", "herald_sequence"]
    /// PostgreSQL columns whose SQLite column has another name: table → (column → SQLite column).
    static let importedColumnNames: [String: [String: String]] = [
        "notifications": ["row_id": "rowid"],
        "summary_releases": ["horizon_row_id": "horizon_rowid"],
    ]
    /// Rows read from SQLite at a time.
    static let importPage = 1_000

    /// Copies every table of `source` into this database, which must hold no Herald data yet (its
    /// migrations applied, nothing else: a fresh `PostgresStore.connect`). One transaction: a failure
    /// leaves the database as it was.
    public func importTables(from source: SQLiteStore) async throws -> ImportSummary {
        let sourceTables = try await source.exportedTableNames()
        return try await write { connection in
            let columns = try await self.columnTypes(connection)
            let order = try await self.tablesInDependencyOrder(connection, tables: Array(columns.keys))
            try await self.requireEmpty(connection, tables: order)
            let unknown = sourceTables.filter { columns[$0] == nil }
            guard unknown.isEmpty else {
                throw ImportError(
                    description:
                        "The SQLite database has tables this version's PostgreSQL schema does not: \(unknown.joined(separator: ", ")). Migrate with the Herald version that wrote it."
                )
            }
            var summary = ImportSummary()
            for table in order where sourceTables.contains(table) {
                summary.rows[table] = try await self.copy(
                    table, columns: columns[table] ?? [], from: source, on: connection)
            }
            for table in order where !sourceTables.contains(table) { summary.rows[table] = 0 }
            try await self.continueSequences(connection, columns: columns)
            summary.latestSeq = try await self.continueHeraldSequence(connection)
            return summary
        }
    }

    /// A PostgreSQL column: its name, its type (`data_type`), whether it is an identity.
    struct ImportedColumn: Sendable {
        var name: String
        var type: String
        var isIdentity: Bool
    }

    /// The columns of each data table of this schema, in order.
    private func columnTypes(_ connection: PostgresConnection) async throws -> [String: [ImportedColumn]] {
        var tables: [String: [ImportedColumn]] = [:]
        for try await (table, column, type, identity) in try await connection.query(
            """
            SELECT table_name::text, column_name::text, data_type::text, is_identity::text
            FROM information_schema.columns WHERE table_schema = current_schema()
            ORDER BY table_name, ordinal_position
            """, logger: logger
        ).decode((String, String, String, String).self) where !Self.ownTables.contains(table) {
            tables[table, default: []].append(ImportedColumn(name: column, type: type, isIdentity: identity == "YES"))
        }
        return tables
    }

    /// The tables, each after those its foreign keys name.
    private func tablesInDependencyOrder(_ connection: PostgresConnection, tables: [String]) async throws -> [String] {
        var parents: [String: Set<String>] = [:]
        for try await (child, parent) in try await connection.query(
            """
            SELECT c.relname::text, p.relname::text FROM pg_constraint k
            JOIN pg_class c ON c.oid = k.conrelid JOIN pg_class p ON p.oid = k.confrelid
            WHERE k.contype = 'f' AND c.relnamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """, logger: logger
        ).decode((String, String).self) where child != parent {
            parents[child, default: []].insert(parent)
        }
        var order: [String] = []
        var placed: Set<String> = []
        var remaining = tables.sorted()
        while !remaining.isEmpty {
            let ready = remaining.filter { (parents[$0] ?? []).isSubset(of: placed) }
            guard !ready.isEmpty else {
                throw ImportError(description: "The schema's foreign keys form a cycle: \(remaining).")
            }
            order += ready
            placed.formUnion(ready)
            remaining.removeAll { placed.contains($0) }
        }
        return order
    }

    /// Throws unless every data table is empty.
    private func requireEmpty(_ connection: PostgresConnection, tables: [String]) async throws {
        var filled: [String] = []
        for table in tables {
            let query = PostgresQuery(unsafeSQL: "SELECT EXISTS (SELECT 1 FROM \(Self.quoted(table)))")
            for try await exists in try await connection.query(query, logger: logger).decode(Bool.self) where exists {
                filled.append(table)
            }
        }
        guard filled.isEmpty else {
            throw ImportError(
                description:
                    "The PostgreSQL database already holds Herald data (in \(filled.joined(separator: ", "))): migrate into a new, empty database."
            )
        }
    }

    /// Copies one table, a page of rows at a time; the number of rows.
    private func copy(
        _ table: String, columns: [ImportedColumn], from source: SQLiteStore, on connection: PostgresConnection
    ) async throws -> Int {
        let renamed = Self.importedColumnNames[table] ?? [:]
        // Bind parameters of one INSERT: at most 65,535 (the protocol's limit).
        let rowsPerInsert = max(1, min(Self.importPage, 65_535 / max(columns.count, 1)))
        var after: Int64?
        var copied = 0
        var sourceIndexes: [Int]?
        while true {
            let page = try await source.exportedRows(of: table, after: after, limit: Self.importPage)
            if sourceIndexes == nil {
                sourceIndexes = try Self.sourceIndexes(table, columns: columns, source: page.columns, renamed: renamed)
            }
            guard let indexes = sourceIndexes, !page.rows.isEmpty else { return copied }
            var start = 0
            while start < page.rows.count {
                let rows = page.rows[start..<min(start + rowsPerInsert, page.rows.count)]
                try await insert(rows, into: table, columns: columns, indexes: indexes, on: connection)
                start += rows.count
            }
            copied += page.rows.count
            after = page.lastRowID
            if page.rows.count < Self.importPage { return copied }
        }
    }

    /// For each PostgreSQL column, the index of its SQLite column; throws when one is missing or an
    /// SQLite column would be left behind.
    private static func sourceIndexes(
        _ table: String, columns: [ImportedColumn], source: [String], renamed: [String: String]
    ) throws -> [Int] {
        let indexes = try columns.map { column -> Int in
            let name = renamed[column.name] ?? column.name
            guard let index = source.firstIndex(of: name) else {
                throw ImportError(
                    description: "The SQLite table \(table) has no column \(name) for PostgreSQL's \(column.name).")
            }
            return index
        }
        let used = Set(indexes.map { source[$0] })
        let left = source.dropFirst().filter { !used.contains($0) }  // (the first is the rowid)
        guard left.isEmpty else {
            throw ImportError(
                description:
                    "The SQLite table \(table) has columns PostgreSQL's does not: \(left.joined(separator: ", ")). Migrate with the Herald version that wrote it."
            )
        }
        return indexes
    }

    private func insert(
        _ rows: ArraySlice<[ExportedValue]>, into table: String, columns: [ImportedColumn], indexes: [Int],
        on connection: PostgresConnection
    ) async throws {
        var bindings = PostgresBindings(capacity: rows.count * columns.count)
        var tuples: [String] = []
        tuples.reserveCapacity(rows.count)
        var parameter = 0
        for row in rows {
            var placeholders: [String] = []
            for (column, index) in zip(columns, indexes) {
                try Self.bind(row[index], as: column, of: table, into: &bindings)
                parameter += 1
                placeholders.append("$\(parameter)")
            }
            tuples.append("(\(placeholders.joined(separator: ",")))")
        }
        let overriding = columns.contains(where: \.isIdentity) ? " OVERRIDING SYSTEM VALUE" : ""
        let sql =
            "INSERT INTO \(Self.quoted(table)) (\(columns.map { Self.quoted($0.name) }.joined(separator: ",")))"
            + "\(overriding) VALUES \(tuples.joined(separator: ","))"
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// Binds an SQLite value as the PostgreSQL column's type.
    private static func bind(
        _ value: ExportedValue, as column: ImportedColumn, of table: String, into bindings: inout PostgresBindings
    ) throws {
        func refuse() -> ImportError {
            ImportError(description: "\(table).\(column.name): the value \(value) cannot be stored as \(column.type).")
        }
        if case .null = value {
            bindings.appendNull()
            return
        }
        switch (column.type, value) {
        case ("bigint", .integer(let integer)): bindings.append(integer)
        case ("bigint", .text(let text)):
            guard let integer = Int64(text) else { throw refuse() }
            bindings.append(integer)
        case ("boolean", .integer(let integer)): bindings.append(integer != 0)
        case ("double precision", .real(let real)): bindings.append(real)
        case ("double precision", .integer(let integer)): bindings.append(Double(integer))
        case ("text", .text(let text)): bindings.append(text)
        case ("text", .integer(let integer)): bindings.append(String(integer))
        case ("text", .real(let real)): bindings.append(String(real))
        case ("bytea", .blob(let bytes)): bindings.append(ByteBuffer(bytes: bytes))
        case ("bytea", .text(let text)): bindings.append(ByteBuffer(string: text))
        case ("ARRAY", .text(let text)):
            // SQLite keeps a list of strings as its JSON array.
            guard let array = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String] else {
                throw refuse()
            }
            bindings.append(array)
        default:
            throw refuse()
        }
    }

    /// Identity columns continue after the largest value copied.
    private func continueSequences(_ connection: PostgresConnection, columns: [String: [ImportedColumn]]) async throws {
        for (table, list) in columns {
            for column in list where column.isIdentity {
                let name = Self.quoted(column.name)
                let sql = """
                    SELECT setval(pg_get_serial_sequence('\(Self.quoted(table))', '\(column.name)'),
                        GREATEST(COALESCE((SELECT max(\(name)) FROM \(Self.quoted(table))), 0), 1),
                        (SELECT max(\(name)) FROM \(Self.quoted(table))) IS NOT NULL)
                    """
                try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            }
        }
    }

    /// The database's seq continues after the largest copied (a list's change or a summary event).
    private func continueHeraldSequence(_ connection: PostgresConnection) async throws -> Int64 {
        try await connection.query(
            """
            UPDATE herald_sequence SET value = GREATEST(
                COALESCE((SELECT max(seq) FROM notifications), 0), COALESCE((SELECT max(seq) FROM summary_releases), 0))
            """, logger: logger)
        for try await value in try await connection.query("SELECT value FROM herald_sequence", logger: logger)
            .decode(Int64.self)
        {
            return value
        }
        return 0
    }

    /// A table or column name quoted for SQL (the names come from the schema itself).
    private static func quoted(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
