import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// Input order behind a straggler: request 0 is held until the server has seen every later
/// request (or a deadline), the rest answered at once. The later results must keep flowing into
/// the reorder buffer meanwhile (a narrow window emptied the engine until the straggler arrived),
/// and the buffer must stop reading once its bodies pass the byte budget.
extension EngineTests {
    static func stragglerBatch(
        _ server: TestHTTPServer, count: Int, bodyBytes: Int, deadlineMilliseconds: Int
    ) -> [Request] {
        (0..<count).map {
            $0 == 0
                ? Request("\(server.baseURL)/hold?until=\(count - 1)&ms=\(deadlineMilliseconds)")
                : Request("\(server.baseURL)/ok?size=\(bodyBytes)&i=\($0)")
        }
    }

    /// How many later requests the server had seen when it answered the straggler.
    static func servedBeforeStraggler(_ results: [FetchResult]) throws -> Int {
        let body = try #require(results.first?.response?.body)
        let held = try JSONSerialization.jsonObject(with: body) as? [String: Int]
        return try #require(held?["held"])
    }

    /// The batch's results in input order, from an array or streamed; all must be 200s in order.
    static func inputOrder(
        _ requests: [Request], _ configuration: Engine.Configuration, streaming: Bool
    ) async throws -> [FetchResult] {
        let results = try await withEngine(configuration: configuration) { engine in
            var results: [FetchResult] = []
            if streaming {
                let stream = AsyncStream { continuation in
                    requests.forEach { continuation.yield($0) }
                    continuation.finish()
                }
                for await result in engine.orderedResults(streaming: stream) {
                    results.append(result)
                }
            } else {
                for await result in engine.orderedResults(for: requests) {
                    results.append(result)
                }
            }
            return results
        }
        #expect(results.map(\.index) == Array(0..<requests.count))
        #expect(results.allSatisfy { $0.response?.status == 200 })
        return results
    }

    @Test(arguments: [false, true])
    func aStragglerDoesNotStopTheTransfersBehindIt(streaming: Bool) async throws {
        try await TestHTTPServer.with { server in
            // Held until all 299 later requests arrive: at once when they flow (0.4 s on a quiet
            // machine, 30 s and more under the whole suite on two cores), after 150 s if they do not.
            // The test counts requests; the deadline only ends a run that stopped.
            let requests = Self.stragglerBatch(server, count: 300, bodyBytes: 200, deadlineMilliseconds: 150_000)
            // Cap 8: the default window (64 × 8) covers the batch; the old 4 × 8 stopped at 32.
            var configuration = Engine.Configuration.testing(maxInFlight: 8)
            configuration.timeout = .seconds(200)
            let results = try await Self.inputOrder(requests, configuration, streaming: streaming)
            let served = try Self.servedBeforeStraggler(results)
            #expect(served == 299, "only \(served) of 299 later requests were served while request 0 was slow")
        }
    }

    @Test(arguments: [false, true])
    func theReorderBufferStopsReadingAtItsByteBudget(streaming: Bool) async throws {
        try await TestHTTPServer.with { server in
            let requests = Self.stragglerBatch(server, count: 300, bodyBytes: 4000, deadlineMilliseconds: 1500)
            var configuration = Engine.Configuration.testing(maxInFlight: 8)
            configuration.reorderBufferBytes = 20_000
            let results = try await Self.inputOrder(requests, configuration, streaming: streaming)
            // Reading stops once 6 bodies of ~4 KB wait (> 20,000 bytes); what was already read
            // ahead (4 × 8) still completes. Without the budget all 299 would be served.
            let served = try Self.servedBeforeStraggler(results)
            #expect(served <= 6 + 32, "\(served) later requests were served past a 20,000-byte budget")
            #expect(served >= 6, "the budget should let some results wait, saw \(served)")
        }
    }
}
