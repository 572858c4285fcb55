import CocktailReplica
import Dispatch
import Foundation
import TestSupport
import Testing

/// 429 with `Retry-After`: the engine waits as long as it is told, and not only for the throttled
/// request — the whole host pauses — checked from the server's clock.
@Suite(.serialized)
struct ThrottleTests {
    @Test func noRequestReachesAThrottledHostBeforeItsRetryAfter() async throws {
        try await TestHTTPServer.with { server in
            let base = server.baseURL
            // The throttled request first; the rest keep 4 connections busy behind it.
            let urls = ["\(base)/throttle?key=a&after=1"] + (0..<40).map { "\(base)/ok?i=\($0)" }
            let output = try Executable.batchfetch().run(
                ["fetch", "-q", "-c", "4", "--retries", "3", "--body", "none"] + urls, deadline: 30)
            #expect(output.status == 0, "\(output.stderr)")
            let records = try output.records()
            #expect(records.count == urls.count)
            #expect(records.first?["attempts"] as? Int == 2)
            let throttledAt = try #require(server.throttleTimes["a"])
            let arrivals = server.arrivals
            let retry = try #require(arrivals.last { $0.target.hasPrefix("/throttle") })
            #expect(retry.nanoseconds >= throttledAt + 1_000_000_000, "the retry came early")
            // Requests already on the wire when the 429 left may still land; after that, silence
            // until the second is over.
            let early = arrivals.filter {
                $0.nanoseconds > throttledAt + 100_000_000 && $0.nanoseconds < throttledAt + 1_000_000_000
            }
            #expect(early.isEmpty, "\(early.count) requests reached the paused host: \(early.map(\.target))")
            #expect(arrivals.count == urls.count + 1)
        }
    }

    /// The replica's throttle (a fixed number of requests per second, 429 beyond it): every record
    /// ends ok, and the 429s stay bounded by the cap per window instead of growing into a storm.
    @Test(arguments: [ReplicaFaults.RetryAfterFormat.seconds, .httpDate])
    func aThrottlingReplicaIsObeyedWithoutARetryStorm(format: ReplicaFaults.RetryAfterFormat) async throws {
        var faults = ReplicaFaults(throttle: 150)
        faults.retryAfterFormat = format
        try await ReplicaServer.withServer(ReplicaConfiguration(faults: faults)) { replica in
            let count = 300
            let cap = 8
            let lines = (0..<count).map { replica.url("lookup.php?i=1&n=\($0)") }
            let started = Date()
            let output = try Executable.batchfetch().run(
                ["fetch", "-q", "-c", "\(cap)", "--retries", "10", "--body", "none"],
                stdin: Data(lines.joined(separator: "\n").utf8), deadline: 60)
            let seconds = Date().timeIntervalSince(started)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(try output.records().count == count)
            let stats = replica.stats()
            let throttled = stats.responsesByStatus["429"] ?? 0
            #expect(throttled > 0, "the throttle never engaged")
            #expect(stats.requests == count + throttled)
            let windows = Int(seconds.rounded(.up)) + 1
            #expect(throttled <= cap * windows * 2, "\(throttled) 429s in \(seconds) s: a retry storm")
        }
    }
}
