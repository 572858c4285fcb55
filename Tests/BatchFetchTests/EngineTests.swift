import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// The engine against a real HTTP server on loopback. Serialized: several tests assert timing or
/// server-side concurrency, which other tests' load on two cores would blur.
@Suite(.serialized)
struct EngineTests {
    @Test func everyRequestCompletesExactlyOnce() async throws {
        try await TestHTTPServer.with { server in
            let requests = (0..<2000).map { Request("\(server.baseURL)/ok?size=\(100 + $0 % 50)&i=\($0)") }
            let results = try await withEngine(configuration: .testing(maxInFlight: 32)) { engine in
                await collect(engine, requests)
            }
            #expect(results.count == 2000)
            #expect(results.map(\.index).sorted() == Array(0..<2000))
            for result in results {
                let response = try #require(result.response, "\(result.index): \(String(describing: result.error))")
                #expect(response.status == 200)
                #expect(response.body.count == 100 + result.index % 50)
                #expect(result.request == requests[result.index])
            }
            #expect(server.snapshot.requests == 2000)
        }
    }

    @Test func orderedResultsComeInInputOrderWithBoundedReadAhead() async throws {
        try await TestHTTPServer.with { server in
            // Early requests are slow, later ones fast: completion order differs from input order;
            // invalid ones (answered without the network) must wait their turn too.
            let requests = (0..<300).map {
                $0 % 7 == 3
                    ? Request("file:///\($0)") : Request("\(server.baseURL)/delay?ms=\($0 % 10 == 0 ? 30 : 1)&i=\($0)")
            }
            let results = try await withEngine(configuration: .testing(maxInFlight: 16)) { engine in
                var results: [FetchResult] = []
                for await result in engine.orderedResults(for: requests, window: 32) {
                    results.append(result)
                }
                return results
            }
            #expect(results.map(\.index) == Array(0..<300))
            #expect(
                results.allSatisfy {
                    $0.index % 7 == 3 ? $0.error?.kind == .unsupportedScheme : $0.response?.status == 200
                })
            #expect(zip(results, requests).allSatisfy { $0.request == $1 })
        }
    }

    @Test func readAheadGrowsWhileBodiesAreSmallUnlessItIsSet() async throws {
        try await TestHTTPServer.with { server in
            let small = (0..<400).map { Request("\(server.baseURL)/ok?size=32&i=\($0)") }
            // 4 MiB: 16 of them fill the 64 MiB the read-ahead may grow to hold.
            let large = (0..<400).map { Request("\(server.baseURL)/bytes?n=\(4 << 20)&i=\($0)") }
            // Takes 4 results, then stops reading: the engine runs ahead as far as the read-ahead
            // lets it, and no further. Results received but not yet taken no longer count, and one
            // hand-over can bring up to a whole read-ahead of them when the consumer is scheduled
            // late (a busy machine), so each bound allows that many beside the 4 taken.
            func requestsSent(
                _ configuration: Engine.Configuration, _ requests: [Request] = small
            ) async throws -> Int {
                let before = server.snapshot.requests
                return try await withEngine(configuration: configuration) { engine in
                    var iterator = engine.results(for: requests).makeAsyncIterator()
                    for _ in 0..<4 {
                        _ = await iterator.next()
                    }
                    try? await Task.sleep(for: .milliseconds(300))
                    return server.snapshot.requests - before
                }
            }
            // 4 × 2 in flight at first; 32-byte bodies let it grow to 4 × that.
            let grown = try await requestsSent(.testing(maxInFlight: 2))
            #expect(grown > 4 + 8 + 8 && grown <= 4 + 32 + 32, "sent \(grown)")
            var fixed = Engine.Configuration.testing(maxInFlight: 2)
            fixed.readAhead = 8
            let held = try await requestsSent(fixed)
            #expect(held <= 4 + 8 + 8, "sent \(held)")
            let bounded = try await requestsSent(.testing(maxInFlight: 2), large)
            #expect(bounded > 4 + 8 && bounded <= 4 + 16 + 16, "sent \(bounded)")
        }
    }

    @Test func inFlightNeverExceedsTheCap() async throws {
        try await TestHTTPServer.with { server in
            let requests = (0..<2000).map { Request("\(server.baseURL)/delay?ms=1&i=\($0)") }
            let results = try await withEngine(configuration: .testing(maxInFlight: 8)) { engine in
                await collect(engine, requests)
            }
            #expect(results.count == 2000)
            #expect(results.allSatisfy { $0.response?.status == 200 })
            let counters = server.snapshot
            #expect(counters.maxInFlight <= 8)
            #expect(counters.maxInFlight >= 6, "the cap should be reached, saw \(counters.maxInFlight)")
        }
    }

    @Test func keepAliveReusesConnections() async throws {
        try await TestHTTPServer.with { server in
            let requests = (0..<500).map { Request("\(server.baseURL)/ok?i=\($0)") }
            let results = try await withEngine(configuration: .testing(maxInFlight: 4)) { engine in
                await collect(engine, requests)
            }
            #expect(results.count == 500)
            let opened = server.snapshot.connectionsAccepted
            #expect(opened <= 8, "500 requests opened \(opened) connections")
            let reported = results.compactMap(\.response).map(\.newConnections).reduce(0, +)
            #expect(reported == opened)
        }
    }

    @Test func aBodyOverTheCapFailsWithTooLarge() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.maxBodyBytes = 10_000
            let requests = [
                Request("\(server.baseURL)/bytes?n=50000"),
                Request("\(server.baseURL)/bytes?n=50000&mode=chunked"),
                Request("\(server.baseURL)/bytes?n=10000&mode=chunked"),
            ]
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, requests).sorted { $0.index < $1.index }
            }
            #expect(results[0].error?.kind == .tooLarge)
            #expect(results[1].error?.kind == .tooLarge)
            #expect(results[1].attempts == 1, "a body over the cap is not retried")
            // Received in several pieces of unannounced length, then handed over whole.
            #expect(results[2].response?.body == Data(repeating: UInt8(ascii: "a"), count: 10_000))
        }
    }

    @Test func fileAndFtpURLsAreRejectedBeforeSending() async throws {
        let results = try await withEngine(configuration: .testing()) { engine in
            await collect(
                engine, [Request("file:///etc/passwd"), Request("ftp://127.0.0.1/x"), Request("gopher://x/")])
        }
        #expect(results.count == 3)
        for result in results {
            #expect(result.error?.kind == .unsupportedScheme)
            #expect(result.attempts == 0)
        }
    }

    @Test func redirectsAreNotFollowedByDefault() async throws {
        try await TestHTTPServer.with { server in
            let result = try await withEngine(configuration: .testing()) { engine in
                await engine.fetch(Request("\(server.baseURL)/redirect?to=/ok"))
            }
            #expect(result.response?.status == 302)
            #expect(result.response?.headers["location"] == "/ok")
        }
    }

    @Test func redirectsAreFollowedWhenAskedAndReportTheEffectiveURL() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.redirects = .follow(max: 5)
            let result = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/redirect?to=/ok%3Fsize=80"))
            }
            #expect(result.response?.status == 200)
            #expect(result.response?.body.count == 80)
            #expect(result.response?.effectiveURL == "\(server.baseURL)/ok?size=80")
            // Only the final response's fields: the redirect's `Location` is dropped at the status line.
            #expect(result.response?.headers["location"] == nil)
            #expect(result.response?.headers["content-length"] == "80")
        }
    }

    @Test func aRedirectToFileIsRefused() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.redirects = .follow(max: 5)
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(
                    engine,
                    [
                        Request("\(server.baseURL)/redirect?to=file:///etc/passwd"),
                        Request("\(server.baseURL)/redirect?to=ftp://127.0.0.1/x"),
                    ])
            }
            #expect(results.count == 2)
            for result in results {
                #expect(result.error?.kind == .unsupportedScheme, "\(String(describing: result.error))")
            }
        }
    }

    @Test func aRedirectLoopFailsWithTooManyRedirects() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.redirects = .follow(max: 3)
            let result = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/redirect?to=/redirect"))
            }
            #expect(result.error?.kind == .tooManyRedirects)
        }
    }

    @Test func cancellingTheConsumerStopsEveryTransfer() async throws {
        try await TestHTTPServer.with { server in
            try await withEngine(configuration: .testing(maxInFlight: 16)) { engine in
                let requests = (0..<200).map { Request("\(server.baseURL)/hang?i=\($0)") }
                let consumer = Task {
                    var count = 0
                    for await _ in engine.results(for: requests) {
                        count += 1
                    }
                    return count
                }
                #expect(await eventually { server.snapshot.requests >= 16 })
                consumer.cancel()
                let delivered = try await withTimeout(5) { await consumer.value }
                #expect(delivered == 0)
                // Every hung request's connection is closed: nothing is left running.
                #expect(await eventually { server.snapshot.connectionsClosed == server.snapshot.connectionsAccepted })
                #expect(server.snapshot.requests == 16)
                // The engine goes on serving other batches.
                let after = await engine.fetch(Request("\(server.baseURL)/ok"))
                #expect(after.response?.status == 200)
            }
        }
    }

    @Test func breakingOutOfTheLoopCancelsTheRest() async throws {
        try await TestHTTPServer.with { server in
            try await withEngine(configuration: .testing(maxInFlight: 4)) { engine in
                let requests = (0..<100).map { Request("\(server.baseURL)/delay?ms=20&i=\($0)") }
                var seen = 0
                for await _ in engine.results(for: requests) {
                    seen += 1
                    if seen == 3 {
                        break
                    }
                }
                #expect(seen == 3)
                try await Task.sleep(for: .milliseconds(200))
                #expect(server.snapshot.requests < 20, "requests kept going after the loop ended")
            }
        }
    }

    @Test func aRefusedConnectionFailsQuickly() async throws {
        // Bind and close a port to get one nothing listens on.
        let server = try await TestHTTPServer.start()
        let url = "\(server.baseURL)/ok"
        try await server.shutdown()
        var configuration = Engine.Configuration.testing(retries: 0)
        configuration.connectTimeout = .seconds(60)  // quickly: a timeout would end as one
        let result = try await withEngine(configuration: configuration) { engine in
            await engine.fetch(Request(url))
        }
        #expect(result.error?.kind == .connectFailed)
        #expect(result.attempts == 1)
    }

    @Test func aServerThatNeverAnswersTimesOut() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing(retries: 0)
            configuration.timeout = .milliseconds(300)
            configuration.details = [.timings]
            let result = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/hang"))
            }
            #expect(result.error?.kind == .timeout)
            let total = try #require(result.details?.timings?.total)  // libcurl's clock: ~300 ms, not 10 s
            #expect(total >= .milliseconds(250) && total < .seconds(10))
        }
    }

    @Test func identicalRequestsAreTransferredOnce() async throws {
        try await TestHTTPServer.with { server in
            let requests = Array(repeating: Request("\(server.baseURL)/delay?ms=50"), count: 10)
            let results = try await withEngine(configuration: .testing()) { engine in
                let first = await collect(engine, requests)
                // Completed results are replayed to later identical requests as well.
                let later = await engine.fetch(Request("\(server.baseURL)/delay?ms=50"))
                return first + [later]
            }
            #expect(results.count == 11)
            #expect(results.allSatisfy { $0.response?.status == 200 })
            #expect(Set(results.prefix(10).map(\.index)) == Set(0..<10))
            #expect(server.snapshot.requests == 1)
        }
    }

    @Test func headerInjectionIsRejected() async throws {
        try await TestHTTPServer.with { server in
            let bad = Request("\(server.baseURL)/ok", headers: [HeaderField(name: "X-Test", value: "a\r\nX-Evil: 1")])
            let result = try await withEngine(configuration: .testing()) { engine in
                await engine.fetch(bad)
            }
            #expect(result.error?.kind == .invalidHeader)
            #expect(server.snapshot.requests == 0)
        }
    }

    @Test func configuredAndRequestHeadersAreSent() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.headers = [
                HeaderField(name: "X-Team", value: "data"), HeaderField(name: "Accept", value: "text/plain"),
            ]
            let request = Request(
                "\(server.baseURL)/headers", headers: [HeaderField(name: "Accept", value: "application/json")])
            let (withHeaders, plain) = try await withEngine(configuration: configuration) { engine in
                (await engine.fetch(request), await engine.fetch(Request("\(server.baseURL)/headers?plain")))
            }
            let body = String(decoding: try #require(withHeaders.response?.body), as: UTF8.self)
            #expect(body.contains("x-team: data"))
            #expect(body.contains("accept: application/json"))
            #expect(!body.contains("accept: text/plain"))
            #expect(body.contains("user-agent: batchfetch/\(BatchFetch.version)"))
            let plainBody = String(decoding: try #require(plain.response?.body), as: UTF8.self)
            #expect(plainBody.contains("accept: text/plain"))
        }
    }

    @Test func userAgentAndAcceptEncodingAreSentOnceAndGiveWayToFieldsOfTheirName() async throws {
        try await TestHTTPServer.with { server in
            func fields(_ result: FetchResult, _ name: String) throws -> [String] {
                let body = String(decoding: try #require(result.response?.body), as: UTF8.self)
                return body.split(separator: "\n").map(String.init).filter { $0.hasPrefix("\(name): ") }
            }
            var configuration = Engine.Configuration.testing()
            configuration.headers = [HeaderField(name: "user-agent", value: "team/2")]
            let own = Request(
                "\(server.baseURL)/headers?own", headers: [HeaderField(name: "Accept-Encoding", value: "gzip")])
            let gzip = Request("\(server.baseURL)/gzip", headers: [HeaderField(name: "X-Any", value: "1")])
            let (plain, overridden, decoded) = try await withEngine(configuration: configuration) { engine in
                (
                    await engine.fetch(Request("\(server.baseURL)/headers")), await engine.fetch(own),
                    await engine.fetch(gzip)
                )
            }
            #expect(try fields(plain, "user-agent") == ["user-agent: team/2"])
            #expect(try fields(plain, "accept-encoding") == ["accept-encoding: deflate, gzip, br, zstd"])
            #expect(try fields(overridden, "accept-encoding") == ["accept-encoding: gzip"])
            #expect(try fields(overridden, "user-agent") == ["user-agent: team/2"])
            // A request with fields of its own gets a list of its own: gzip is asked for and decoded.
            #expect(decoded.response?.body == Data("{\"compressed\":true}".utf8))

            configuration.headers = []
            configuration.userAgent = ""
            configuration.acceptEncoding = nil
            let bare = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/headers"))
            }
            #expect(try fields(bare, "user-agent").isEmpty && fields(bare, "accept-encoding").isEmpty)
        }
    }

    @Test func theRateLimitSpacesRequestStarts() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.rateLimit = Engine.RateLimit(requestsPerSecond: 50, burst: 1)
            let requests = (0..<21).map { Request("\(server.baseURL)/ok?i=\($0)") }
            let started = Date()
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, requests)
            }
            let elapsed = Date().timeIntervalSince(started)
            #expect(results.count == 21)
            // No faster than the rate; no slower is shown on the state machine's fake clock.
            #expect(elapsed >= 0.38, "21 requests at 50/s took \(elapsed) s")
        }
    }

    @Test func shutdownCancelsOutstandingWorkAndIsIdempotent() async throws {
        try await TestHTTPServer.with { server in
            let engine = try Engine(configuration: .testing(maxInFlight: 2))
            let requests = (0..<10).map { Request("\(server.baseURL)/hang?i=\($0)") }
            let consumer = Task { await collect(engine, requests) }
            #expect(await eventually { server.snapshot.requests >= 2 })
            await engine.shutdown()
            await engine.shutdown()
            let results = try await withTimeout(5) { await consumer.value }
            #expect(results.count == 10)
            #expect(results.allSatisfy { $0.error?.kind == .cancelled })
            let after = await engine.fetch(Request("\(server.baseURL)/ok"))
            #expect(after.error?.kind == .cancelled)
        }
    }

    @Test func invalidConfigurationIsRejected() {
        var configuration = Engine.Configuration()
        configuration.maxInFlight = 0
        #expect(throws: FetchError.self) { try Engine(configuration: configuration) }
        // Both go out as header fields: a line break in either would inject a header.
        for (agent, encoding) in [("a\r\nX-Injected: 1", ""), ("batchfetch", "gzip\r\nX-Injected: 1")] {
            configuration = Engine.Configuration()
            configuration.userAgent = agent
            configuration.acceptEncoding = encoding
            #expect(throws: FetchError.self) { try Engine(configuration: configuration) }
        }
    }
}
