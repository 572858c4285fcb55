import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// Which responses the engine retries, how often, and how long it waits (Retry-After).
extension EngineTests {
    @Test func a503IsRetriedUntilItSucceeds() async throws {
        try await TestHTTPServer.with { server in
            let result = try await withEngine(configuration: .testing()) { engine in
                await engine.fetch(Request("\(server.baseURL)/flaky?key=a&fail=2"))
            }
            #expect(result.response?.status == 200)
            #expect(result.attempts == 3)
            #expect(result.response?.attempts == 3)
            #expect(server.snapshot.flakyHits["a"] == 3)
        }
    }

    @Test func retriesStopAtTheLimitAndKeepTheLastResponse() async throws {
        try await TestHTTPServer.with { server in
            let result = try await withEngine(configuration: .testing(retries: 2)) { engine in
                await engine.fetch(Request("\(server.baseURL)/flaky?key=b&fail=10&status=502"))
            }
            #expect(result.response?.status == 502)
            #expect(result.attempts == 3)
            #expect(server.snapshot.flakyHits["b"] == 3)
        }
    }

    @Test func a404IsNotRetried() async throws {
        try await TestHTTPServer.with { server in
            let result = try await withEngine(configuration: .testing()) { engine in
                await engine.fetch(Request("\(server.baseURL)/status/404"))
            }
            #expect(result.response?.status == 404)
            #expect(result.attempts == 1)
        }
    }

    @Test func retryAfterIsHonoured() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/flaky?key=c&fail=1&status=429&retryAfter=1"
            let other = "\(server.baseURL)/ok?after=throttle"
            let results = try await withEngine(configuration: .testing(maxInFlight: 1)) { engine in
                await collect(engine, [Request(url), Request(other)])
            }
            #expect(results.first { $0.index == 0 }?.response?.status == 200)
            #expect(results.first { $0.index == 0 }?.attempts == 2)
            let arrivals = try #require(server.snapshot.arrivals["/flaky?key=c"])
            #expect(arrivals.count == 2)
            let gap = Double(arrivals[1] - arrivals[0]) / 1e9
            #expect(gap >= 0.95 && gap < 3, "retry came \(gap) s after the 429 with Retry-After: 1")
            // The pause covers the host, not only the throttled URL.
            let otherArrival = try #require(server.snapshot.arrivals["/ok"]?.first)
            #expect(Double(otherArrival - arrivals[0]) / 1e9 >= 0.95)
        }
    }

    @Test func aRetryAfterLongerThanTheMaximumEndsTheRetries() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.retry.maxRetryAfter = .seconds(5)
            let result = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/flaky?key=d&fail=1&status=503&retryAfter=3600"))
            }
            #expect(result.response?.status == 503)
            #expect(result.attempts == 1)
        }
    }

    @Test func aDelayedRetryThatIsTheLastOutstandingTransferStillFires() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.retry = RetryPolicy(
                maxRetries: 2, baseDelay: .milliseconds(300), maxDelay: .milliseconds(300))
            let url = "\(server.baseURL)/flaky?key=e&fail=1&retryAfter=1"
            let fixed = configuration
            let result = try await withTimeout(10) {
                try await withEngine(configuration: fixed) { engine in
                    await engine.fetch(Request(url))
                }
            }
            #expect(result.response?.status == 200)
            #expect(result.attempts == 2)
        }
    }
}
