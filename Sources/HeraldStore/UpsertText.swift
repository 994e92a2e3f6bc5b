import GRDB
import GRDBSQLite

/// The text arguments of one multi-row upsert, copied into one buffer of its own and bound without
/// SQLite copying them again (`SQLITE_STATIC`).
///
/// GRDB binds a `String` as `SQLITE_TRANSIENT` through Swift's implicit C-string conversion: SQLite
/// mallocs and copies each text, and a small string (inline in its `String`: "alert", a thread id)
/// is first copied into an array of its own. At ten texts a row that was two dozen mallocs and frees
/// a row on the writer thread, the push path's serial part (its allocator share: ~1.5 µs of its
/// ~12 µs a push, scripts/profile-push perf). Here each text is one `memcpy` into a buffer sized for
/// the statement, and the buffer outlives the statement's run: `finish` clears the bindings first.
struct UpsertText {
    private let buffer: UnsafeMutableRawBufferPointer
    private var used = 0

    /// Room for `bytes` bytes of UTF-8 (the sum of the `utf8.count` of every text to bind).
    init(bytes: Int) {
        buffer = .allocate(byteCount: max(1, bytes), alignment: 1)
    }

    /// Binds `text` (NULL when nil) at the 1-based `index`; SQLite's result code.
    mutating func bind(_ text: String?, to statement: SQLiteStatement, at index: CInt) -> CInt {
        guard var text else { return sqlite3_bind_null(statement, index) }
        let start = used
        let count = text.withUTF8 { utf8 -> Int in
            precondition(utf8.count <= buffer.count - start, "UpsertText was sized too small")
            if let base = utf8.baseAddress {
                (buffer.baseAddress! + start).copyMemory(from: base, byteCount: utf8.count)
            }
            return utf8.count
        }
        used += count
        let pointer = (buffer.baseAddress! + start).assumingMemoryBound(to: CChar.self)
        return sqlite3_bind_text(statement, index, pointer, CInt(count), nil /* SQLITE_STATIC */)
    }

    /// Clears `statement`'s bindings (they point into the buffer), then frees the buffer.
    func finish(_ statement: SQLiteStatement) {
        sqlite3_clear_bindings(statement)
        buffer.deallocate()
    }
}
