import Foundation
import GRDB

// What `herald migrate` reads of an SQLite data directory to copy it into PostgreSQL: every table
// Herald keeps, row by row, as stored (`PostgresStore.importTables` writes them).

/// One value of a stored row, as SQLite keeps it.
public enum ExportedValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
}

/// A page of one table's rows: `columns` names each row's values (`rowid` first), in order.
public struct ExportedRows: Sendable {
    public var columns: [String]
    public var rows: [[ExportedValue]]
    /// Where the next page starts (`after`): the last row's rowid, or for a table without rowids,
    /// the rows read so far.
    public var lastRowID: Int64?
}

extension SQLiteStore {
    /// The tables Herald keeps (not GRDB's or SQLite's own).
    public func exportedTableNames() async throws -> [String] {
        try await read { db in
            try String.fetchAll(
                db,
                sql: """
                    SELECT name FROM sqlite_master
                    WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != 'grdb_migrations'
                    ORDER BY name
                    """)
        }
    }

    /// Up to `limit` rows of `table` after `after` (nil: from the first) with, first, a column
    /// `rowid`: in rowid order; for a table WITHOUT ROWID, in primary key order, its `rowid` null and
    /// `after` the number of rows read before.
    public func exportedRows(of table: String, after: Int64?, limit: Int) async throws -> ExportedRows {
        let names = try await exportedTableNames()
        guard names.contains(table) else { throw StoreError(.notFound, "There is no table \(table).") }
        return try await read { db in
            let quoted = table.quotedDatabaseIdentifier
            let key = try db.primaryKey(table)
            let definition =
                try String.fetchOne(db, sql: "SELECT sql FROM sqlite_master WHERE name = ?", arguments: [table]) ?? ""
            let words = definition.uppercased().split(whereSeparator: \.isWhitespace).joined(separator: " ")
            let hasRowID = !words.contains("WITHOUT ROWID")
            let cursor: RowCursor
            if hasRowID {
                cursor = try Row.fetchCursor(
                    db, sql: "SELECT rowid AS rowid, * FROM \(quoted) WHERE rowid > ? ORDER BY rowid LIMIT ?",
                    arguments: [after ?? Int64.min, limit])
            } else {
                let order = key.columns.map(\.quotedDatabaseIdentifier).joined(separator: ", ")
                cursor = try Row.fetchCursor(
                    db, sql: "SELECT NULL AS rowid, * FROM \(quoted) ORDER BY \(order) LIMIT ? OFFSET ?",
                    arguments: [limit, after ?? 0])
            }
            var page = ExportedRows(columns: [], rows: [], lastRowID: nil)
            while let row = try cursor.next() {
                if page.columns.isEmpty { page.columns = Array(row.columnNames) }
                var values: [ExportedValue] = []
                values.reserveCapacity(row.count)
                for index in 0..<row.count {
                    let value: DatabaseValue = row[index]
                    switch value.storage {
                    case .null: values.append(.null)
                    case .int64(let integer): values.append(.integer(integer))
                    case .double(let real): values.append(.real(real))
                    case .string(let text): values.append(.text(text))
                    case .blob(let data): values.append(.blob(Array(data)))
                    }
                }
                page.lastRowID = hasRowID ? row[0] : (after ?? 0) + Int64(page.rows.count + 1)
                page.rows.append(values)
            }
            if page.columns.isEmpty {
                page.columns = try ["rowid"] + db.columns(in: table).map(\.name)
            }
            return page
        }
    }
}
