import BatchFetch
import Foundation
import TestSupport
import Testing

/// What the engine does with bodies it is told not to keep.
extension EngineTests {
    @Test func bodiesNotKeptAreCountedAndStillHeldToTheCap() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.maxBodyBytes = 60_000
            configuration.keepsBodies = false
            let requests = [
                Request("\(server.baseURL)/bytes?n=50000"),
                Request("\(server.baseURL)/bytes?n=50000&mode=chunked"),
                Request("\(server.baseURL)/bytes?n=70000&mode=chunked"),
            ]
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, requests).sorted { $0.index < $1.index }
            }
            #expect(results[0].response?.body.isEmpty == true)
            #expect(results[0].response?.bodyByteCount == 50_000)
            #expect(results[1].response?.bodyByteCount == 50_000)
            #expect(results[2].error?.kind == .tooLarge)
            #expect(results[2].error?.status == 200, "the status line had arrived")
        }
    }

    @Test func aTransferThatTimesOutAfterItsStatusLineKeepsTheStatus() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing(retries: 0)
            configuration.timeout = .milliseconds(300)
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, [Request("\(server.baseURL)/drip"), Request("\(server.baseURL)/hang")])
                    .sorted { $0.index < $1.index }
            }
            #expect(results.map(\.error?.kind) == [.timeout, .timeout])
            #expect(results.map(\.error?.status) == [200, nil])
            #expect(results.map(\.newConnections) == [1, 1], "failed attempts open connections too")
        }
    }
}
