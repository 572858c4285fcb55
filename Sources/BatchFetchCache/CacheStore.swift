import BatchFetch
import Foundation

/// The SQLite database behind an ``HTTPCache``: lookups from any thread, writes batched on a
/// writer thread of its own.
///
/// Layout: `DIR/responses.sqlite` in WAL mode, one row per key, rows in the order they were
/// stored, found through a unique index on a 64-bit hash of the key (``keyHash(_:)``), so a lookup
/// is one probe of a small integer index and one row read however many entries there are; the
/// row's key is compared too, so a hash collision reads as a miss, never as another URL's body.
/// (A text primary key made every probe compare ~60-byte URLs that share their first 50 bytes,
/// and an index five times the size.) Every write batch is one transaction: a crash or a
/// SIGKILL at any moment leaves each entry either whole or absent (SQLite's atomic commit;
/// `synchronous=NORMAL` in WAL mode loses at most the last batches on power loss, never
/// consistency). Other processes may share the directory: every connection waits up to 5 s for
/// their locks, and the writer takes the write lock up front (`BEGIN IMMEDIATE`).
///
/// Threading: any thread. Idle read connections sit in a locked pool (one per thread that is
/// reading at the time); the write queue is bounded (``maxPendingEntries``, ``maxPendingBytes``):
/// a producer that gets ahead of the disk waits, so memory stays flat.
/// `@unchecked Sendable`: every mutable property is guarded by `readerLock` or `queue`; the
/// writer's connection is touched only by `init` and then the writer thread.
final class CacheStore: @unchecked Sendable {
    static let fileName = "responses.sqlite"
    static let maxPendingEntries = 4096
    static let maxPendingBytes = 64 << 20
    /// The writer commits once this many entries wait, or ``gatherSeconds`` after the first.
    static let batchEntries = 512
    static let gatherSeconds = 0.05
    /// Each read connection's page cache, KiB.
    static let readerCacheKiB = 8192

    let path: String
    private let warn: @Sendable (String, String) -> Void

    private let readerLock = NSLock()
    private var idleReaders: [Reader] = []

    private let queue = NSCondition()
    private var pending: [CacheEntry] = []
    private var pendingBytes = 0
    private var closing = false
    private var writerExited = false
    /// Set when writing failed for good (full disk, read-only file): later entries are dropped.
    private var broken = false
    private var stored = 0
    private var dropped = 0

    /// Opens (creating) the store in `configuration.directory` and starts its writer thread.
    /// - Parameter warn: receives a problem's kind (to report each kind once) and its message.
    init(configuration: HTTPCacheConfiguration, warn: @escaping @Sendable (String, String) -> Void) throws(SQLiteError)
    {
        do {
            try FileManager.default.createDirectory(
                atPath: configuration.directory, withIntermediateDirectories: true)
        } catch {
            throw SQLiteError(
                code: 14, message: "cannot create \(configuration.directory): \(error.localizedDescription)")
        }
        self.path = (configuration.directory as NSString).appendingPathComponent(Self.fileName)
        self.warn = warn
        let connection = try SQLiteConnection(path: self.path)
        // 16 KiB pages: at SQLite's default 4 KiB, two rows of a typical 2.3 KB API response do
        // not fit one page, so each took a page of its own (1,000,000 W1 documents: 4.2 KB a row,
        // 4 GB). The page size is fixed when the file is created; later opens keep theirs.
        try connection.execute(
            """
            PRAGMA page_size=16384;
            PRAGMA journal_mode=WAL;
            PRAGMA synchronous=NORMAL;
            DROP TABLE IF EXISTS responses;
            CREATE TABLE IF NOT EXISTS entries (
                id INTEGER PRIMARY KEY,
                key_hash INTEGER NOT NULL UNIQUE,
                key TEXT NOT NULL,
                vary TEXT NOT NULL,
                status INTEGER NOT NULL,
                effective_url TEXT NOT NULL,
                headers BLOB NOT NULL,
                body BLOB NOT NULL,
                request_time REAL NOT NULL,
                response_time REAL NOT NULL
            );
            """)
        if configuration.maxPageCount > 0 {
            try connection.execute("PRAGMA max_page_count=\(configuration.maxPageCount);")
        }
        let insert = try connection.prepare(
            """
            INSERT OR REPLACE INTO entries
                (key_hash, key, vary, status, effective_url, headers, body, request_time, response_time)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        let writer = Writer(connection: connection, insert: insert)
        let thread = Thread { [self] in
            nameCurrentThread("batchfetch-db")
            self.runWriter(writer)
        }
        thread.name = "batchfetch-db"
        thread.start()
    }

    // MARK: - reads

    /// The stored entry for `key`, or `nil` (also when the database cannot be read).
    func lookup(_ key: String) -> CacheEntry? {
        self.reading { $0.lookup(key) }
    }

    /// Runs `body` with lookups that share one read transaction: one snapshot and one round of
    /// SQLite's file locking (two `fcntl` and an `fstat`) for the whole run instead of per key,
    /// which was a third of a warm crawl's time in the kernel. Keep the run short (one inbox's
    /// worth of keys): while it lasts the writer's WAL cannot be checkpointed past its snapshot.
    func reading<T>(_ body: (ReadSession) -> T) -> T {
        let reader: Reader
        do throws(SQLiteError) {
            reader = try self.checkOut()
        } catch {
            self.warn("read", "cannot read the cache \(self.path): \(error.message); fetching instead")
            return body(ReadSession(store: self, reader: nil))
        }
        defer { self.checkIn(reader) }
        // Deferred: takes its snapshot at the first lookup. When it cannot begin, each lookup runs
        // in a transaction of its own, as before.
        let open = (try? reader.begin.step()) != nil
        reader.begin.reset()
        defer {
            if open {
                _ = try? reader.commit.step()
                reader.commit.reset()
            }
        }
        return body(ReadSession(store: self, reader: reader))
    }

    /// Lookups inside ``reading(_:)``; valid only during its `body`.
    struct ReadSession {
        fileprivate let store: CacheStore
        fileprivate let reader: Reader?

        /// The stored entry for `key`, or `nil` (also when the database cannot be read).
        func lookup(_ key: String) -> CacheEntry? {
            guard let select = self.reader?.select else {
                return nil
            }
            defer { select.reset() }
            select.bind(1, CacheStore.keyHash(key))
            select.bind(2, key)
            do throws(SQLiteError) {
                guard try select.step() else {
                    return nil
                }
            } catch {
                self.store.warn("read", "cannot read the cache \(self.store.path): \(error.message); fetching instead")
                return nil
            }
            return CacheEntry(
                key: key, vary: select.text(0), status: select.int(1), effectiveURL: select.text(2),
                headers: select.blob(3), body: select.data(4), requestTime: select.double(5),
                responseTime: select.double(6))
        }
    }

    private func checkOut() throws(SQLiteError) -> Reader {
        if let reader = self.readerLock.withLock({ self.idleReaders.popLast() }) {
            return reader
        }
        // No memory map (mmap_size): mapped pages count in the process's RSS, which reached 1 GB
        // over 1,000,000 offline lookups, for no measurable gain over pread. A larger page cache
        // than SQLite's 2 MB default instead: the key index alone is ~4 MB at 63,500 entries, and
        // a warm crawl read a 16 KiB page from the kernel for 8 of every 10 lookups.
        let connection = try SQLiteConnection(path: self.path)
        try connection.execute("PRAGMA cache_size=-\(Self.readerCacheKiB);")
        let select = try connection.prepare(
            """
            SELECT vary, status, effective_url, headers, body, request_time, response_time
            FROM entries WHERE key_hash = ?1 AND key = ?2
            """)
        return Reader(select: select, begin: try connection.prepare("BEGIN"), commit: try connection.prepare("COMMIT"))
    }

    private func checkIn(_ reader: Reader) {
        self.readerLock.withLock { self.idleReaders.append(reader) }
    }

    /// The key's 64-bit FNV-1a hash: the same in every process and version (Swift's `Hasher` is
    /// seeded per process), as the index the store finds rows by.
    static func keyHash(_ key: String) -> Int {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in key.utf8 {
            hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
        }
        return Int(bitPattern: UInt(hash))
    }

    // MARK: - writes

    /// Queues `entry` for the writer; waits while the queue is full. Drops it when the store
    /// cannot be written or is closing.
    func store(_ entry: CacheEntry) {
        self.queue.lock()
        defer { self.queue.unlock() }
        while !self.broken && !self.closing
            && (self.pending.count >= Self.maxPendingEntries || self.pendingBytes >= Self.maxPendingBytes)
        {
            self.queue.wait()
        }
        guard !self.broken && !self.closing else {
            self.dropped += 1
            return
        }
        self.pending.append(entry)
        self.pendingBytes += entry.body.count + entry.headers.count + entry.key.utf8.count
        if self.pending.count == 1 || self.pending.count == Self.batchEntries {
            self.queue.broadcast()
        }
    }

    /// Entries written and dropped so far.
    var counts: (stored: Int, dropped: Int) {
        self.queue.withLock { (self.stored, self.dropped) }
    }

    /// Writes what is queued, stops the writer and closes every connection. Idempotent; blocks
    /// until the writer has committed.
    func close() {
        self.queue.lock()
        self.closing = true
        self.queue.broadcast()
        while !self.writerExited {
            self.queue.wait()
        }
        self.queue.unlock()
        self.readerLock.withLock { self.idleReaders.removeAll() }
    }

    private func runWriter(_ writer: Writer) {
        while true {
            self.queue.lock()
            while self.pending.isEmpty && !self.closing {
                self.queue.wait()
            }
            // Gather a batch before committing: a commit rewrites every page it touches (16 KiB
            // each, index and interior pages too), so one row per commit wrote many times its size.
            let gatherUntil = Date(timeIntervalSinceNow: Self.gatherSeconds)
            while self.pending.count < Self.batchEntries && !self.closing && Date() < gatherUntil {
                _ = self.queue.wait(until: gatherUntil)
            }
            if self.pending.isEmpty {
                self.writerExited = true
                self.queue.broadcast()
                self.queue.unlock()
                return
            }
            let batch = self.pending
            self.pending = []
            self.pendingBytes = 0
            let broken = self.broken
            self.queue.broadcast()
            self.queue.unlock()
            let failure = broken ? nil : writer.write(batch)
            self.queue.withLock {
                if broken {
                    self.dropped += batch.count
                } else if let failure {
                    self.dropped += batch.count
                    self.broken = self.broken || !failure.isBusy
                } else {
                    self.stored += batch.count
                }
                self.queue.broadcast()
            }
            if let failure {
                self.report(failure)
            }
        }
    }

    private func report(_ failure: SQLiteError) {
        if failure.isBusy {
            self.warn(
                "busy", "the cache \(self.path) stayed locked by another process; some responses were not stored")
        } else if failure.isFull {
            self.warn("full", "the cache \(self.path) is full (\(failure.message)); fetching on without storing")
        } else {
            self.warn("write", "cannot write the cache \(self.path): \(failure.message); fetching on without storing")
        }
    }

    /// A read connection and its compiled statements.
    fileprivate final class Reader {
        let select: SQLiteStatement
        let begin: SQLiteStatement
        let commit: SQLiteStatement

        init(select: SQLiteStatement, begin: SQLiteStatement, commit: SQLiteStatement) {
            self.select = select
            self.begin = begin
            self.commit = commit
        }
    }

    /// The writer thread's connection and its compiled insert. `@unchecked Sendable`: created by
    /// `init`, then handed to the writer thread, which alone uses it.
    private final class Writer: @unchecked Sendable {
        let connection: SQLiteConnection
        let insert: SQLiteStatement

        init(connection: SQLiteConnection, insert: SQLiteStatement) {
            self.connection = connection
            self.insert = insert
        }

        /// Writes `batch` in one transaction. - Returns: the failure, after rolling back.
        func write(_ batch: [CacheEntry]) -> SQLiteError? {
            do throws(SQLiteError) {
                try self.connection.execute("BEGIN IMMEDIATE")
                for entry in batch {
                    defer { self.insert.reset() }
                    self.insert.bind(1, CacheStore.keyHash(entry.key))
                    self.insert.bind(2, entry.key)
                    self.insert.bind(3, entry.vary)
                    self.insert.bind(4, entry.status)
                    self.insert.bind(5, entry.effectiveURL)
                    entry.headers.withUnsafeBytes { self.insert.bind(6, blob: $0) }
                    entry.body.withUnsafeBytes { self.insert.bind(7, blob: $0) }
                    self.insert.bind(8, entry.requestTime)
                    self.insert.bind(9, entry.responseTime)
                    _ = try self.insert.step()
                }
                try self.connection.execute("COMMIT")
                return nil
            } catch {
                try? self.connection.execute("ROLLBACK")
                return error
            }
        }
    }
}
