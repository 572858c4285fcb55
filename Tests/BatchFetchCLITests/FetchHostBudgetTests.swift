import Foundation
import TestSupport
import Testing

/// `fetch --host-rate` and `--host-concurrency` against two local servers (two ports of
/// 127.0.0.1), with a list sorted by host (issue 42).
@Suite(.serialized)
struct FetchHostBudgetTests {
    private static func withTwoServers(_ body: (TestHTTPServer, TestHTTPServer) async throws -> Void) async throws {
        try await TestHTTPServer.with { first in
            try await TestHTTPServer.with { second in
                try await body(first, second)
            }
        }
    }

    @Test func eachHostHasAtMostItsCapInFlightAndTheSecondHostIsNotHeldBack() async throws {
        try await Self.withTwoServers { a, b in
            let urls = (0..<24).map { "\(a.baseURL)/delay?ms=20&i=\($0)" } + (0..<24).map { "\(b.baseURL)/ok?i=\($0)" }
            let output = try await Executable("batchfetch").runOffPool(
                ["fetch", "-q", "--body", "none", "--order", "completion", "-c", "16", "--host-concurrency", "3"]
                    + urls)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            #expect(records.count == 48)
            #expect(a.snapshot.maxInFlight <= 3 && b.snapshot.maxInFlight <= 3)
            // b's quick answers do not wait behind a's slow ones: b finishes while a still works.
            let firstB = records.firstIndex { ($0["url"] as? String)?.hasPrefix(b.baseURL) == true } ?? 48
            #expect(firstB < 24, "b's first record came at \(firstB)")
        }
    }

    /// a's starts keep to its rate (never faster: a slow machine only spreads them further);
    /// b, under `*`'s higher rate, is not held to a's.
    @Test func eachHostStartsNoFasterThanItsRule() async throws {
        try await Self.withTwoServers { a, b in
            let port = a.baseURL.split(separator: ":").last ?? ""
            let urls = (0..<20).map { "\(a.baseURL)/ok?i=\($0)" } + (0..<20).map { "\(b.baseURL)/ok?i=\($0)" }
            let stats = FileManager.default.temporaryDirectory.appendingPathComponent("bf-hosts-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: stats) }
            let output = try await Executable("batchfetch").runOffPool(
                [
                    "fetch", "-q", "--body", "none", "--order", "completion", "--stats", stats.path,
                    "--host-rate", "127.0.0.1:\(port)=40/s,*=1000/s",
                ] + urls)
            #expect(output.status == 0, "\(output.summary)")
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
            let hosts = summary?["hosts"] as? [String: [String: Any]]
            #expect(hosts?["127.0.0.1:\(port)"]?["requests"] as? Int == 20, "\(String(describing: hosts))")
            #expect((hosts?["127.0.0.1:\(port)"]?["peakPerSecond"] as? Int ?? 99) <= 35)
            #expect(hosts?["127.0.0.1:\(port)"]?["statuses"] as? [String: Int] == ["200": 20])
            let times = (a.snapshot.arrivals["/ok"] ?? []).sorted()
            #expect(times.count == 20)
            // A burst of 10 (a quarter second), then one every 25 ms: the 20th no sooner than 225 ms.
            if let first = times.first, let last = times.last {
                #expect(Double(last - first) / 1e6 >= 200, "\(Double(last - first) / 1e6) ms")
            }
            #expect(b.snapshot.arrivals["/ok"]?.count == 20)
        }
    }

    @Test func badRulesAreUsageErrors() throws {
        for rules in ["a.test", "a.test=0/s", "a.test=2/m"] {
            let output = try Executable("batchfetch").run(["fetch", "-q", "--host-rate", rules, "-i", "/dev/null"])
            #expect(output.status == 2, "\(rules): \(output.summary)")
            #expect(output.stderr.hasPrefix("Error: --host-rate rule"), "\(output.stderr)")
        }
        let zero = try Executable("batchfetch").run(["fetch", "-q", "--host-concurrency", "0", "-i", "/dev/null"])
        #expect(zero.status == 2)
    }
}
