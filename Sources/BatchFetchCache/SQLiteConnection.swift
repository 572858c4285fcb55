import BatchFetch
internal import CSQLite
import Foundation

/// A failed SQLite call: its result code (for deciding what to do) and its message.
struct SQLiteError: Error, CustomStringConvertible {
    let code: Int32
    let message: String

    /// The disk or the database's page limit is full.
    var isFull: Bool { self.code & 0xFF == SQLITE_FULL }
    /// Another connection holds the lock longer than the busy timeout.
    var isBusy: Bool { self.code & 0xFF == SQLITE_BUSY || self.code & 0xFF == SQLITE_LOCKED }

    var description: String { self.message }
}

/// One SQLite connection: the one owner of its `sqlite3*`, closed in `deinit`.
///
/// Opened in multi-thread mode (`SQLITE_OPEN_NOMUTEX`): a connection may move between threads but
/// is used by one at a time, which its owner (the cache's writer thread, or a reader checked out
/// of the pool) guarantees.
final class SQLiteConnection {
    private let handle: OpaquePointer

    /// Opens (creating) the database at `path` and waits up to `busyTimeoutMilliseconds` for locks
    /// other processes hold.
    init(path: String, busyTimeoutMilliseconds: Int32 = 5000) throws(SQLiteError) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(handle)
            throw SQLiteError(code: code, message: message)
        }
        self.handle = handle
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
    }

    deinit {
        sqlite3_close_v2(self.handle)
    }

    /// Runs SQL statements that return no rows.
    func execute(_ sql: String) throws(SQLiteError) {
        let code = sqlite3_exec(self.handle, sql, nil, nil, nil)
        guard code == SQLITE_OK else {
            throw self.error(code)
        }
    }

    /// Compiles one statement.
    func prepare(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(self.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw self.error(code)
        }
        return SQLiteStatement(handle: statement, connection: self)
    }

    /// The error for `code`, with the connection's message.
    func error(_ code: Int32) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(self.handle)))
    }
}

@available(*, unavailable)
extension SQLiteConnection: Sendable {}

/// A compiled statement, finalised in `deinit`; keeps its connection alive.
final class SQLiteStatement {
    private let handle: OpaquePointer
    private let connection: SQLiteConnection

    fileprivate init(handle: OpaquePointer, connection: SQLiteConnection) {
        self.handle = handle
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(self.handle)
    }

    func bind(_ index: Int32, _ text: String) {
        let count = Int32(text.utf8.count)
        _ = text.withCString { csqlite_bind_text_transient(self.handle, index, $0, count) }
    }

    func bind(_ index: Int32, _ value: Int) {
        sqlite3_bind_int64(self.handle, index, Int64(value))
    }

    func bind(_ index: Int32, _ value: Double) {
        sqlite3_bind_double(self.handle, index, value)
    }

    func bind(_ index: Int32, blob: UnsafeRawBufferPointer) {
        // A zero-length blob must still be a blob, not NULL: pass a valid pointer.
        _ = csqlite_bind_blob_transient(
            self.handle, index, blob.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(blob.count))
    }

    /// Steps once. - Returns: whether a row is ready.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(self.handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw self.connection.error(code)
        }
    }

    /// Resets the statement for another run and clears its bindings.
    func reset() {
        sqlite3_reset(self.handle)
        sqlite3_clear_bindings(self.handle)
    }

    func int(_ column: Int32) -> Int {
        Int(sqlite3_column_int64(self.handle, column))
    }

    func double(_ column: Int32) -> Double {
        sqlite3_column_double(self.handle, column)
    }

    func text(_ column: Int32) -> String {
        guard let pointer = sqlite3_column_text(self.handle, column) else {
            return ""
        }
        let count = Int(sqlite3_column_bytes(self.handle, column))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    /// The column's bytes, copied out (SQLite's are valid only until the next step).
    func blob(_ column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(self.handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(self.handle, column) else {
            return []
        }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column's bytes as `Data`, copied once.
    func data(_ column: Int32) -> Data {
        let count = Int(sqlite3_column_bytes(self.handle, column))
        guard count > 0, let pointer = sqlite3_column_blob(self.handle, column) else {
            return Data()
        }
        return Data(bytes: pointer, count: count)
    }
}

@available(*, unavailable)
extension SQLiteStatement: Sendable {}
