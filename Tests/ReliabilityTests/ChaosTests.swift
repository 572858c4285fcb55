import CocktailReplica
import Foundation
import TestSupport
import Testing

/// The replica resets, truncates, fails and drips responses at seeded random; with enough retries
/// the output is byte for byte the fault-free run's, and the server saw no storm. (Bounded here:
/// `scripts/chaos` runs 20,000 URLs and more seeds.)
@Suite(.serialized)
struct ChaosTests {
    static let retries = 6
    static let cap = 16

    /// Transient faults only: each is retried, so retries can hide every one of them.
    static func transientFaults() -> ReplicaFaults {
        ReplicaFaults(failRate: 0.1, resetRate: 0.02, truncateRate: 0.02, slowRate: 0.01, slowMilliseconds: 300)
    }

    /// Checks the server's side: no target tried more than retries + 1 times, never more than
    /// the cap in flight, and every fault kind actually injected.
    private func expectPoliteTraffic(_ stats: ReplicaStats, distinctTargets: Int) {
        #expect(stats.requestsByURL.count == distinctTargets)
        let most = stats.requestsByURL.values.max() ?? 0
        #expect(most <= Self.retries + 1, "a URL was tried \(most) times")
        #expect(stats.maxRequestsInFlight <= Self.cap, "\(stats.maxRequestsInFlight) in flight")
        for fault in ["fail", "reset", "truncate", "slow"] {
            #expect((stats.faults[fault] ?? 0) > 0, "no \(fault) was injected: the test proves nothing")
        }
    }

    @Test(arguments: [3, 11] as [UInt64])
    func aCrawlThroughTransientFaultsWritesTheFaultFreeBytes(seed: UInt64) async throws {
        let directory = try ScratchDirectory("bf-chaos-crawl")
        let arguments = [
            "--details", "--complete", "-q", "-c", "\(Self.cap)", "--retries", "\(Self.retries)", "--timeout", "10",
        ]
        let reference = try await ReplicaServer.withServer(ReplicaConfiguration(seed: seed)) { replica in
            let output = try Executable.batchfetch().run(
                ["crawl", "--base-url", replica.baseURL, "-o", directory.path("reference.ndjson")] + arguments)
            #expect(output.status == 0, "\(output.stderr)")
            return try Data(contentsOf: URL(fileURLWithPath: directory.path("reference.ndjson")))
        }
        try await ReplicaServer.withServer(ReplicaConfiguration(seed: seed, faults: Self.transientFaults())) {
            replica in
            let output = try Executable.batchfetch().run(
                [
                    "crawl", "--base-url", replica.baseURL, "-o", directory.path("chaos.ndjson"), "--stats",
                    directory.path("stats.json"),
                ] + arguments, deadline: 120)
            #expect(!output.hung)
            #expect(output.status == 0, "\(output.stderr)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: directory.path("chaos.ndjson")))
            #expect(bytes == reference, "seed \(seed): output differs from the fault-free run")
            let stats = replica.stats()
            let lines = bytes.split(separator: 0x0A)
            #expect(lines.count == replica.catalogue.categories.count, "one line per facet")
            self.expectPoliteTraffic(stats, distinctTargets: stats.requestsByURL.count)
            let summary =
                try JSONSerialization.jsonObject(
                    with: Data(contentsOf: URL(fileURLWithPath: directory.path("stats.json")))) as? [String: Any]
            let retried = try #require((summary?["summary"] as? [String: Any])?["retries"] as? Int)
            // libcurl re-sends once by itself when a reused connection dies before any response
            // (a reset), and the engine does not see that as an attempt: the server's count of
            // repeats is the engine's retries plus at most one per reset.
            let repeats = stats.requests - stats.requestsByURL.count
            #expect(retried > 0 && retried <= repeats && repeats <= retried + (stats.faults["reset"] ?? 0))
        }
    }

    /// `fetch` over 1,000 distinct URLs: one record per input line, in input order, equal to the
    /// fault-free run's records except for timings and attempt counts.
    @Test(arguments: [5, 23] as [UInt64])
    func fetchThroughTransientFaultsKeepsOneRecordPerURLAndTheFaultFreeContent(seed: UInt64) async throws {
        let count = 1000
        let arguments = ["fetch", "-q", "-c", "\(Self.cap)", "--retries", "\(Self.retries)", "--timeout", "10"]
        func urls(_ replica: ReplicaServer) -> Data {
            let ids = replica.catalogue.drinks.map(\.id)
            let lines = (0..<count).map { replica.url("lookup.php?i=\(ids[$0 % ids.count])&n=\($0)") }
            return Data((lines.joined(separator: "\n") + "\n").utf8)
        }
        func comparable(_ output: Executable.Output) throws -> [String] {
            try output.records().map { record in
                var record = record
                record["time_ms"] = nil
                record["total_ms"] = nil
                record["attempts"] = nil
                // The port differs between the two replicas.
                record["url"] = (record["url"] as? String)?.split(separator: "/", maxSplits: 3).last.map(String.init)
                let data = try JSONSerialization.data(withJSONObject: record, options: [.sortedKeys])
                return String(decoding: data, as: UTF8.self)
            }
        }
        let reference = try await ReplicaServer.withServer(ReplicaConfiguration(seed: seed)) { replica in
            let output = try Executable.batchfetch().run(arguments, stdin: urls(replica))
            #expect(output.status == 0, "\(output.stderr)")
            return try comparable(output)
        }
        #expect(reference.count == count)
        try await ReplicaServer.withServer(ReplicaConfiguration(seed: seed, faults: Self.transientFaults())) {
            replica in
            let output = try Executable.batchfetch().run(arguments, stdin: urls(replica), deadline: 120)
            #expect(!output.hung)
            #expect(output.status == 0, "\(output.stderr)")
            let records = try output.records()
            #expect(records.compactMap { $0["index"] as? Int } == Array(0..<count), "one record each, input order")
            let retried = records.filter { ($0["attempts"] as? Int ?? 0) > 1 }.count
            #expect(retried > count / 20, "only \(retried) records needed a retry")
            #expect(try comparable(output) == reference, "seed \(seed)")
            self.expectPoliteTraffic(replica.stats(), distinctTargets: count)
        }
    }

    /// When retries do not suffice (every attempt fails), each URL still gets exactly one record,
    /// with the error and the attempt count, and the server saw exactly retries + 1 attempts.
    @Test func whenRetriesRunOutEveryURLStillGetsOneErrorRecord() async throws {
        var faults = ReplicaFaults()
        faults.failFirst = 100
        try await ReplicaServer.withServer(ReplicaConfiguration(faults: faults)) { replica in
            let lines = (0..<50).map { replica.url("lookup.php?i=1&n=\($0)") }
            let output = try Executable.batchfetch().run(
                ["fetch", "-q", "-c", "8", "--retries", "2", "--order", "completion"],
                stdin: Data(lines.joined(separator: "\n").utf8), deadline: 60)
            #expect(output.status == 1)
            let records = try output.records()
            #expect(Set(records.compactMap { $0["index"] as? Int }) == Set(0..<50))
            #expect(records.count == 50)
            #expect(records.allSatisfy { $0["attempts"] as? Int == 3 && $0["status"] as? Int == 503 })
            #expect(Set(replica.stats().requestsByURL.values) == [3])
        }
    }
}
