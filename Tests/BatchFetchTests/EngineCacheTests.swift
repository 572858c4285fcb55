import CocktailReplica
import Foundation
import TestSupport
import Testing

@testable import BatchFetch
@testable import BatchFetchCache

/// The engine with an on-disk cache, end to end against the replica (validators on and off) and
/// the test server (Cache-Control variants).
@Suite(.serialized)
struct EngineCacheTests {
    static func configuration(
        _ directory: String, mode: HTTPCacheConfiguration.Mode = .use, maxAge: Int? = nil
    ) -> Engine.Configuration {
        var configuration = Engine.Configuration.testing(retries: 0)
        configuration.cache = HTTPCacheConfiguration(directory: directory, mode: mode, defaultMaxAge: maxAge)
        return configuration
    }

    /// Runs `requests` through a new engine on `directory`, in input order.
    static func run(
        _ requests: [Request], _ directory: String, mode: HTTPCacheConfiguration.Mode = .use, maxAge: Int? = nil
    ) async throws -> (results: [FetchResult], statistics: HTTPCacheStatistics?) {
        try await withEngine(configuration: Self.configuration(directory, mode: mode, maxAge: maxAge)) { engine in
            var results: [FetchResult] = []
            for await result in engine.orderedResults(for: requests) {
                results.append(result)
            }
            await engine.shutdown()
            return (results, engine.cacheStatistics)
        }
    }

    static func lookups(_ server: ReplicaServer, count: Int = 40) -> [Request] {
        server.catalogue.drinks.prefix(count).map { Request(server.url("lookup.php?i=\($0.id)")) }
    }

    @Test func staleEntriesAreRevalidatedWithOnlyConditionalRequestsAndServedByteForByte() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer { server in
            let requests = Self.lookups(server)
            let first = try await Self.run(requests, directory)
            #expect(first.results.allSatisfy { $0.cache == .miss && $0.response?.status == 200 })
            #expect(first.statistics?.stored == requests.count)
            let before = server.stats()
            #expect(before.conditionalRequests == 0)
            let second = try await Self.run(requests, directory)
            let after = server.stats()
            #expect(after.requests - before.requests == requests.count)
            #expect(after.conditionalRequests == requests.count)
            #expect(after.responses(withStatus: 304) == requests.count)
            #expect(second.results.allSatisfy { $0.cache == .revalidated && $0.response?.status == 200 })
            #expect(second.results.map { $0.response?.body } == first.results.map { $0.response?.body })
            // The record shows the request as submitted, not the conditional one sent.
            #expect(second.results.map(\.request) == requests)
            #expect(second.statistics?.revalidated == requests.count)
        }
    }

    @Test func freshEntriesAnswerWithoutARequest() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer { server in
            let requests = Self.lookups(server)
            let first = try await Self.run(requests, directory, maxAge: 3600)
            let before = server.stats().requests
            let second = try await Self.run(requests, directory, maxAge: 3600)
            #expect(server.stats().requests == before)
            #expect(second.results.allSatisfy { $0.cache == .hit && $0.attempts == 0 })
            #expect(second.results.map(\.index) == Array(requests.indices))
            #expect(second.results.map { $0.response?.body } == first.results.map { $0.response?.body })
            #expect(second.statistics?.hits == requests.count)
        }
    }

    @Test func repeatedURLsShareOneTransferAndEachResultPassesTheCache() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer { server in
            let distinct = Self.lookups(server, count: 10)
            let requests = distinct + distinct + distinct
            let before = server.stats().requests
            let first = try await Self.run(requests, directory)
            #expect(server.stats().requests - before == distinct.count)
            #expect(first.results.allSatisfy { $0.cache == .miss && $0.response?.status == 200 })
            #expect(first.statistics?.misses == requests.count)
            // Stale now (no --max-age): one conditional request per URL, and every copy revalidated.
            let second = try await Self.run(requests, directory)
            #expect(server.stats().conditionalRequests == distinct.count)
            #expect(second.results.allSatisfy { $0.cache == .revalidated })
            #expect(second.results.map(\.request) == requests)
            #expect(second.results.map { $0.response?.body } == first.results.map { $0.response?.body })
            let third = try await Self.run(requests, directory, maxAge: 3600)
            #expect(third.results.allSatisfy { $0.cache == .hit })
            #expect(third.statistics?.hits == requests.count)
        }
    }

    @Test func refreshRevalidatesFreshEntriesAndOnlySendsNothing() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer { server in
            let requests = Self.lookups(server, count: 10)
            _ = try await Self.run(requests, directory, maxAge: 3600)
            let refreshed = try await Self.run(requests, directory, mode: .refresh, maxAge: 3600)
            #expect(refreshed.results.allSatisfy { $0.cache == .revalidated })
            #expect(server.stats().conditionalRequests == requests.count)
            let before = server.stats().requests
            let missing = Request(server.url("lookup.php?i=\(server.catalogue.drinks[20].id)"))
            let offline = try await Self.run(requests + [missing], directory, mode: .only)
            #expect(server.stats().requests == before)
            #expect(offline.results.prefix(requests.count).allSatisfy { $0.cache == .hit })
            #expect(offline.results.last?.error?.kind == .notCached)
            #expect(offline.results.last?.cache == .miss)
        }
    }

    @Test func requestsRefusedBeforeSendingCountAsMissesOnBothPaths() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let requests = [Request("file:///etc/passwd"), Request("not a url")]
        let listed = try await Self.run(requests, directory)
        #expect(listed.results.map(\.cache) == [.miss, .miss])
        #expect(listed.statistics?.misses == 2)
        let streamed = try await withEngine(configuration: Self.configuration(directory)) { engine in
            let stream = AsyncStream { continuation in
                requests.forEach { continuation.yield($0) }
                continuation.finish()
            }
            var results: [FetchResult] = []
            for await result in engine.orderedResults(streaming: stream) {
                results.append(result)
            }
            return (results, engine.cacheStatistics)
        }
        #expect(streamed.0.map(\.cache) == [.miss, .miss])
        #expect(streamed.1?.misses == 2)
    }

    @Test func withoutValidatorsAStaleEntryIsFetchedAgainInFull() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await ReplicaServer.withServer(ReplicaConfiguration(validators: false)) { server in
            let requests = Self.lookups(server, count: 10)
            _ = try await Self.run(requests, directory)
            let second = try await Self.run(requests, directory)
            #expect(second.results.allSatisfy { $0.cache == .miss && $0.response?.status == 200 })
            #expect(server.stats().conditionalRequests == 0)
            #expect(server.stats().requests == 2 * requests.count)
        }
    }

    @Test func noStoreResponsesAndCredentialedRequestsAreNeverStored() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        let requests = [
            Request("\(server.baseURL)/cached?cc=no-store"),
            Request(
                "\(server.baseURL)/cached?cc=max-age=600&who=alice",
                headers: [
                    HeaderField(name: "Authorization", value: "Bearer secret")
                ]),
            Request("http://user:pw@127.0.0.1:\(server.port)/cached?cc=max-age=600"),
            Request("\(server.baseURL)/cached?cc=max-age=600"),
        ]
        let first = try await Self.run(requests, directory)
        #expect(first.statistics?.stored == 1)
        let second = try await Self.run(requests, directory)
        #expect(second.results.map(\.cache) == [.miss, .miss, .miss, .hit])
        #expect(second.results[3].response?.body == first.results[3].response?.body)
        #expect(server.snapshot.arrivals["/cached"]?.count == 7)
    }

    @Test func noCacheEntriesAreRevalidatedEvenWithAMaxAge() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let server = try await TestHTTPServer.start()
        defer { Task { try? await server.shutdown() } }
        // The test server answers 200 to conditional requests: a revalidation that gets the body again.
        let request = Request("\(server.baseURL)/cached?cc=no-cache,max-age=600")
        _ = try await Self.run([request], directory, maxAge: 600)
        let second = try await Self.run([request], directory, maxAge: 600)
        #expect(second.results.first?.cache == .miss)
        #expect(server.snapshot.arrivals["/cached"]?.count == 2)
    }

    @Test func anUnusableDirectoryWarnsAndFetchesWithoutTheCache() async throws {
        let file = CacheStoreTests.temporaryDirectory()
        #expect(FileManager.default.createFile(atPath: file, contents: Data()))
        defer { try? FileManager.default.removeItem(atPath: file) }
        try await ReplicaServer.withServer { server in
            let warnings = WarningLog()
            var configuration = Self.configuration(file + "/cache")
            var cache = configuration.cache as? HTTPCacheConfiguration
            cache?.onWarning = { warnings.add("", $0) }
            configuration.cache = cache
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, Self.lookups(server, count: 5))
            }
            #expect(results.allSatisfy { $0.response?.status == 200 && $0.cache == .miss })
            #expect(warnings.messages.count == 1)
            #expect(warnings.messages.first?.contains("cannot use the cache") == true)
        }
    }
}
