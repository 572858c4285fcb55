import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `--cache` on the command line, end to end against the replica: records, crawl output bytes,
/// a SIGKILL mid-write, and runs sharing one directory.
///
/// Every wait for a child process happens on a thread of its own: blocking the cooperative pool
/// (2 threads here) for seconds starved the timing-sensitive suites running beside this one.
@Suite(.serialized)
struct CacheCommandTests {
    /// Runs `body` on a new thread and waits for it without blocking the cooperative pool.
    static func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    /// Runs `batchfetch` with `arguments` (and `stdin`), off the cooperative pool.
    static func batchfetch(_ arguments: [String], stdin: String? = nil) async throws -> Executable.Output {
        try await Self.offPool { try Executable("batchfetch").run(arguments, stdin: stdin) }
    }

    static func temporaryDirectory() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("bf-cache-cli-\(UUID().uuidString)").path
    }

    /// Records without what may differ between runs (timing, attempts, the cache field).
    static func comparable(_ records: String) -> String {
        records.replacing(/"attempts":\d+/, with: "").replacing(/"(time|total)_ms":([0-9.]+|null)/, with: "")
            .replacing(/,"cache":"[a-z]+"/, with: "")
    }

    static func cacheFields(_ records: String) -> [String] {
        records.matches(of: /"cache":"([a-z]+)"/).map { String($0.1) }
    }

    static func urlFile(_ server: ReplicaServer, count: Int, in directory: String) throws -> String {
        let path = directory + "/urls.txt"
        let lines = server.catalogue.drinks.prefix(count).map { server.url("lookup.php?i=\($0.id)") }
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func fetchRecordsSayWhereEachResponseCameFromAndKeepTheirBodies() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer { server in
            let urls = try Self.urlFile(server, count: 30, in: directory)
            let cache = directory + "/cache"
            let plain = try await Self.batchfetch(["fetch", "-q", "-i", urls])
            #expect(!plain.stdout.contains("\"cache\""))
            let first = try await Self.batchfetch(["fetch", "-q", "-i", urls, "--cache", cache])
            #expect(first.status == 0, "\(first.stderr)")
            #expect(Self.cacheFields(first.stdout) == Array(repeating: "miss", count: 30))
            let second = try await Self.batchfetch(["fetch", "-q", "-i", urls, "--cache", cache])
            #expect(Self.cacheFields(second.stdout) == Array(repeating: "revalidated", count: 30))
            let stats = directory + "/stats.json"
            let third = try await Self.batchfetch([
                "fetch", "-q", "-i", urls, "--cache", cache, "--max-age", "600", "--stats", stats,
            ])
            #expect(Self.cacheFields(third.stdout) == Array(repeating: "hit", count: 30))
            for run in [first, second, third] {
                #expect(Self.comparable(run.stdout) == Self.comparable(plain.stdout))
            }
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats)))
            let counts = (summary as? [String: Any])?["cache"] as? [String: Int]
            #expect(counts?["hits"] == 30)
            #expect(counts?["misses"] == 0)
            #expect((summary as? [String: Any])?["requests"] as? Int == 0)
            #expect(server.stats().requests == 90)
            #expect(server.stats().conditionalRequests == 30)
        }
    }

    @Test func urlsFromAPipeUseTheCacheToo() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer { server in
            let urls = try String(contentsOfFile: Self.urlFile(server, count: 20, in: directory), encoding: .utf8)
            let cache = directory + "/cache"
            for order in ["input", "completion"] {
                let cold = try await Self.batchfetch(
                    ["fetch", "-q", "--order", order, "--cache", cache + order], stdin: urls)
                #expect(cold.status == 0, "\(cold.stderr)")
                #expect(Self.cacheFields(cold.stdout) == Array(repeating: "miss", count: 20))
                let stale = try await Self.batchfetch(
                    ["fetch", "-q", "--order", order, "--cache", cache + order], stdin: urls)
                #expect(Self.cacheFields(stale.stdout) == Array(repeating: "revalidated", count: 20))
                let offline = try await Self.batchfetch(
                    ["fetch", "-q", "--order", order, "--cache", cache + order, "--cache-mode", "only"], stdin: urls)
                #expect(Self.cacheFields(offline.stdout) == Array(repeating: "hit", count: 20))
                if order == "input" {
                    #expect(Self.comparable(offline.stdout) == Self.comparable(cold.stdout))
                }
            }
            #expect(server.stats().conditionalRequests == 40)
        }
    }

    @Test func crawlOutputIsByteIdenticalWithAColdOrWarmCacheAndStatsCountTheHits() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer(ReplicaConfiguration(scale: 0.2)) { server in
            let base = ["crawl", "--base-url", server.baseURL, "-q", "--details"]
            let cached = base + ["--cache", directory + "/cache", "--max-age", "600"]
            let plain = try await Self.batchfetch(base)
            #expect(plain.status == 0, "\(plain.stderr)")
            let cold = try await Self.batchfetch(cached)
            let requests = server.stats().requests
            let stats = directory + "/stats.json"
            let warm = try await Self.batchfetch(cached + ["--stats", stats])
            #expect(cold.stdout == plain.stdout)
            #expect(warm.stdout == plain.stdout)
            #expect(server.stats().requests == requests)
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats)))
            let counts = (summary as? [String: Any])?["cache"] as? [String: Int]
            #expect(counts?["hits"] == requests / 2)
            #expect(counts?["misses"] == 0)
            let offline = try await Self.batchfetch(
                base + ["--cache", directory + "/cache", "--cache-mode", "only"])
            #expect(offline.stdout == plain.stdout)
        }
    }

    @Test func aSIGKILLMidWriteLeavesOnlyWholeEntries() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer(ReplicaConfiguration(scale: 3)) { server in
            let urls = try Self.urlFile(server, count: 1500, in: directory)
            let cache = directory + "/cache"
            let plain = try await Self.batchfetch(["fetch", "-q", "-i", urls])
            #expect(plain.status == 0)
            let executable = try Executable("batchfetch").url
            let records = directory + "/killed.ndjson"
            let reason = try await Self.offPool { () throws -> Process.TerminationReason in
                let victim = Process()
                victim.executableURL = executable
                victim.arguments = ["fetch", "-q", "-i", urls, "-o", records, "--cache", cache, "-c", "8"]
                try victim.run()
                // Kill it mid-run once about 500 records (~1 MB) are out and the writer has had
                // time to commit some of their entries (it gathers for at most 50 ms), while it
                // commits more.
                for _ in 0..<2500 where victim.isRunning {
                    let size = (try? FileManager.default.attributesOfItem(atPath: records)[.size] as? Int) ?? 0
                    if size > 1_000_000 {
                        usleep(150_000)
                        break
                    }
                    usleep(2000)
                }
                kill(victim.processIdentifier, SIGKILL)
                victim.waitUntilExit()
                return victim.terminationReason
            }
            #expect(reason == .uncaughtSignal)
            let again = try await Self.batchfetch([
                "fetch", "-q", "-i", urls, "--cache", cache, "--max-age", "600",
            ])
            #expect(again.status == 0, "\(again.stderr)")
            let fields = Self.cacheFields(again.stdout)
            #expect(fields.contains("hit"))
            #expect(fields.contains("miss"))
            #expect(Self.comparable(again.stdout) == Self.comparable(plain.stdout))
            let offline = try await Self.batchfetch([
                "fetch", "-q", "-i", urls, "--cache", cache, "--cache-mode", "only",
            ])
            #expect(Self.comparable(offline.stdout) == Self.comparable(plain.stdout))
        }
    }

    // Sizes are kept small: these runs share 2 cores with the timing-sensitive suites.
    @Test func concurrentRunsSharingADirectoryBothStoreAndLeaveItReadable() async throws {
        let directory = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer(ReplicaConfiguration(scale: 2)) { server in
            let urls = try Self.urlFile(server, count: 400, in: directory)
            let cache = directory + "/cache"
            let plain = try await Self.batchfetch(["fetch", "-q", "-i", urls])
            let executable = try Executable("batchfetch").url
            let statuses = try await Self.offPool { () throws -> [Int32] in
                let runs = try (0..<3).map { _ in
                    let process = Process()
                    process.executableURL = executable
                    process.arguments = ["fetch", "-q", "-i", urls, "-o", "/dev/null", "--cache", cache, "-c", "16"]
                    process.standardError = FileHandle.nullDevice
                    try process.run()
                    return process
                }
                return runs.map { process in
                    process.waitUntilExit()
                    return process.terminationStatus
                }
            }
            #expect(statuses == [0, 0, 0])
            let offline = try await Self.batchfetch([
                "fetch", "-q", "-i", urls, "--cache", cache, "--cache-mode", "only",
            ])
            #expect(offline.status == 0, "\(offline.stderr)")
            #expect(Self.cacheFields(offline.stdout) == Array(repeating: "hit", count: 400))
            #expect(Self.comparable(offline.stdout) == Self.comparable(plain.stdout))
        }
    }

    @Test func cacheFlagsWithoutADirectoryAreAUsageError() async throws {
        let output = try await Self.batchfetch(["fetch", "--cache-mode", "only", "http://127.0.0.1:9/"])
        #expect(output.status == 2)
        #expect(output.stderr.contains("need --cache DIR"))
    }
}
