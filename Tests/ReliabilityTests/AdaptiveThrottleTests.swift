import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `--adaptive` against a real throttling server (the replica: a fixed number of requests a second,
/// 429 with `Retry-After` beyond it): every record ends ok, and the host is asked far less often
/// beyond its limit than by the same run without it, counted by the server.
@Suite(.serialized)
struct AdaptiveThrottleTests {
    private func run(_ extra: [String]) async throws -> (throttled: Int, records: Int, status: Int32, stderr: String) {
        try await ReplicaServer.withServer(ReplicaConfiguration(faults: ReplicaFaults(throttle: 100))) { replica in
            let lines = (0..<500).map { replica.url("lookup.php?i=1&n=\($0)") }
            let output = try Executable.batchfetch().run(
                ["fetch", "-q", "-c", "32", "--retries", "20", "--body", "none"] + extra,
                stdin: Data(lines.joined(separator: "\n").utf8), deadline: 120)
            let records = try output.records()
            #expect(records.allSatisfy { $0["status"] as? Int == 200 }, "\(output.stderr)")
            return (replica.stats().responsesByStatus["429"] ?? 0, records.count, output.status, output.stderr)
        }
    }

    @Test func anAdaptiveRunDrawsFewThrottledAnswersAndLosesNothing() async throws {
        let plain = try await self.run([])
        let adaptive = try await self.run(["--adaptive"])
        #expect(plain.status == 0 && adaptive.status == 0, "\(adaptive.stderr)")
        #expect(plain.records == 500 && adaptive.records == 500)
        #expect(plain.throttled > 0, "the throttle never engaged")
        #expect(
            adaptive.throttled * 4 < plain.throttled, "429s: \(adaptive.throttled) adaptive, \(plain.throttled) plain")
        #expect(adaptive.throttled < 25, "\(adaptive.throttled) 429s for 500 requests")
    }
}
