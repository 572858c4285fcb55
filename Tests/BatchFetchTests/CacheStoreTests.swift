import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchCache

/// The SQLite store on its own: round trips, replacement, durability across reopening, a full
/// disk, and a directory that cannot be created.
struct CacheStoreTests {
    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bf-cache-\(UUID().uuidString)").path
    }

    static func entry(_ key: String, body: String, status: Int = 200) -> CacheEntry {
        CacheEntry(
            key: key, vary: "", status: status, effectiveURL: "http://h/x",
            headers: Array("ETag: \"1\"\r\n".utf8), body: Data(body.utf8), requestTime: 1, responseTime: 2)
    }

    @Test func storedEntriesReadBackByteForByteAfterReopening() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = HTTPCacheConfiguration(directory: directory)
        let store = try CacheStore(configuration: configuration) { _, _ in }
        store.store(Self.entry("GET a", body: "one"))
        store.store(Self.entry("GET b", body: ""))
        store.store(Self.entry("GET a", body: "two", status: 404))
        store.close()
        #expect(store.counts.stored == 3)
        let reopened = try CacheStore(configuration: configuration) { _, _ in }
        defer { reopened.close() }
        let a = try #require(reopened.lookup("GET a"))
        #expect(a.body == Data("two".utf8))
        #expect(a.status == 404)
        #expect(a.responseHeaders["etag"] == "\"1\"")
        #expect(a.requestTime == 1 && a.responseTime == 2)
        #expect(reopened.lookup("GET b")?.body == Data())
        #expect(reopened.lookup("GET c") == nil)
    }

    @Test func rowsAreFoundByAStableKeyHashAndACollisionReadsAsAMiss() throws {
        // FNV-1a: these values are in every store written so far and must never change.
        #expect(CacheStore.keyHash("") == -3_750_763_034_362_895_579)
        #expect(CacheStore.keyHash("GET a") == 8_592_667_926_759_364_348)
        #expect(
            CacheStore.keyHash("GET http://127.0.0.1/api/json/v1/1/lookup.php?i=11000") == 6_319_428_644_826_127_760)
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = HTTPCacheConfiguration(directory: directory)
        let writer = try CacheStore(configuration: configuration) { _, _ in }
        writer.store(Self.entry("GET a", body: "one"))
        writer.close()
        // Another key under "GET a"'s hash, as a collision would leave it: neither key finds it.
        let connection = try SQLiteConnection(path: writer.path)
        try connection.execute("UPDATE entries SET key = 'GET z'")
        let store = try CacheStore(configuration: configuration) { _, _ in }
        defer { store.close() }
        #expect(store.lookup("GET a") == nil)
        #expect(store.lookup("GET z") == nil)
    }

    @Test func aStoreFromBeforeTheHashIndexIsReplacedByAnEmptyOne() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let old = try SQLiteConnection(path: directory + "/" + CacheStore.fileName)
        try old.execute(
            """
            PRAGMA journal_mode=WAL;
            CREATE TABLE responses (key TEXT PRIMARY KEY NOT NULL, vary TEXT NOT NULL, status INTEGER NOT NULL,
                effective_url TEXT NOT NULL, headers BLOB NOT NULL, body BLOB NOT NULL,
                request_time REAL NOT NULL, response_time REAL NOT NULL);
            INSERT INTO responses VALUES ('GET a', '', 200, 'http://h/x', x'', x'6f6c64', 1, 2);
            """)
        let store = try CacheStore(configuration: HTTPCacheConfiguration(directory: directory)) { _, _ in }
        #expect(store.lookup("GET a") == nil)
        store.store(Self.entry("GET a", body: "new"))
        store.close()
        let reopened = try CacheStore(configuration: HTTPCacheConfiguration(directory: directory)) { _, _ in }
        defer { reopened.close() }
        #expect(reopened.lookup("GET a")?.body == Data("new".utf8))
        // The old table is gone, not left taking space beside the new one.
        let tables = try old.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'responses'")
        #expect(try tables.step())
        #expect(tables.int(0) == 0)
    }

    @Test func lookupsInOneReadSeeOneSnapshotAndTheNextReadSeesLaterWrites() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configuration = HTTPCacheConfiguration(directory: directory)
        let writer = try CacheStore(configuration: configuration) { _, _ in }
        writer.store(Self.entry("GET a", body: "one"))
        writer.close()
        let store = try CacheStore(configuration: configuration) { _, _ in }
        defer { store.close() }
        let other = try CacheStore(configuration: configuration) { _, _ in }
        let (first, during, missing) = store.reading { session in
            let first = session.lookup("GET a")?.body
            // Another connection commits while the read is open: the read keeps its snapshot.
            other.store(Self.entry("GET a", body: "two"))
            other.store(Self.entry("GET b", body: "three"))
            other.close()
            return (first, session.lookup("GET a")?.body, session.lookup("GET b"))
        }
        #expect(first == Data("one".utf8))
        #expect(during == Data("one".utf8))
        #expect(missing == nil)
        #expect(store.lookup("GET a")?.body == Data("two".utf8))
        #expect(store.lookup("GET b")?.body == Data("three".utf8))
    }

    @Test func aFullDiskWarnsOnceAndDropsLaterEntries() throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var configuration = HTTPCacheConfiguration(directory: directory)
        configuration.maxPageCount = 3
        let warnings = WarningLog()
        let store = try CacheStore(configuration: configuration) { kind, message in warnings.add(kind, message) }
        let big = String(repeating: "x", count: 64 * 1024)
        for index in 0..<20 {
            store.store(Self.entry("GET \(index)", body: big))
        }
        store.close()
        #expect(store.counts.stored == 0)
        #expect(store.counts.dropped == 20)
        #expect(warnings.kinds.contains("full"))
        #expect(warnings.messages.contains { $0.contains("full") })
    }

    @Test func aDirectoryThatCannotBeCreatedIsAnErrorNotACrash() throws {
        let file = Self.temporaryDirectory()
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        #expect(throws: SQLiteError.self) {
            _ = try CacheStore(configuration: HTTPCacheConfiguration(directory: file + "/cache")) { _, _ in }
        }
    }
}

final class WarningLog: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [(String, String)] = []

    func add(_ kind: String, _ message: String) {
        self.lock.withLock { self.entries.append((kind, message)) }
    }

    var kinds: [String] { self.lock.withLock { self.entries.map(\.0) } }
    var messages: [String] { self.lock.withLock { self.entries.map(\.1) } }
}
