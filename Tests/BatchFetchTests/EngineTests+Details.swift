import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// What the engine gathers about each transfer when asked (`Configuration.details`), against a
/// real server: libcurl's view of redirects, connections and failed attempts.
extension EngineTests {
    private static func configuration(_ details: TransferDetails.Kinds, retries: Int = 3) -> Engine.Configuration {
        var configuration = Engine.Configuration.testing(maxInFlight: 1, retries: retries)
        configuration.details = details
        configuration.redirects = .follow(max: 5)
        return configuration
    }

    @Test func nothingIsGatheredUnlessAsked() async throws {
        try await TestHTTPServer.with { server in
            let results = try await withEngine(configuration: .testing()) { engine in
                await collect(engine, [Request("\(server.baseURL)/ok"), Request("http://127.0.0.1:1/refused")])
            }
            #expect(results.count == 2 && results.allSatisfy { $0.details == nil })
        }
    }

    @Test func eachRedirectHopIsKeptWithItsStatusAndTheURLLibcurlResolved() async throws {
        try await TestHTTPServer.with { server in
            // A relative Location, then an absolute one.
            let last = "\(server.baseURL)/ok?hop=3"
            let second = "/redirect?to=" + last.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let first =
                "\(server.baseURL)/redirect?to=" + second.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            let result = try await withEngine(configuration: Self.configuration(.redirects)) { engine in
                await engine.fetch(Request(first))
            }
            let details = try #require(result.details)
            #expect(result.response?.status == 200)
            #expect(
                details.redirects == [
                    TransferDetails.Redirect(url: first, status: 302),
                    TransferDetails.Redirect(url: server.baseURL + second, status: 302),
                ])
            #expect(details.finalURL == last)
            #expect(details.remote == nil && details.tls == nil && details.attempts.isEmpty, "only what was asked")
        }
    }

    /// `exchangeBodyHash`: every hop's exchange carries the hash of the body it holds (a redirect's
    /// body too), and none is made unless asked.
    @Test(arguments: [Exchange.BodyHash.Algorithm.sha1, .sha256, nil])
    func eachExchangeCarriesItsBodysHashWhenAsked(algorithm: Exchange.BodyHash.Algorithm?) async throws {
        try await TestHTTPServer.with { server in
            let last = "\(server.baseURL)/ok?hop=2"
            let first =
                "\(server.baseURL)/redirect?to=" + last.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            var configuration = Self.configuration(.exchanges)
            configuration.exchangeBodyHash = algorithm
            let result = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request(first))
            }
            let exchanges = try #require(result.details?.exchanges)
            #expect(exchanges.count == 2 && !exchanges[1].body.isEmpty)
            for exchange in exchanges {
                let expected = algorithm.map { algorithm in
                    switch algorithm {
                    case .sha1: Digest.sha1Bytes(exchange.body)
                    case .sha256: Digest.sha256Bytes(exchange.body)
                    }
                }
                #expect(exchange.bodyHash?.algorithm == algorithm && exchange.bodyHash?.bytes == expected)
            }
            // The well-known SHA-256 of nothing, so the hash is libcrypto's and not any 32 bytes.
            #expect(
                Digest.hex(Digest.sha256Bytes(Data()))
                    == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
            #expect(Digest.hex(Digest.sha1Bytes(Data("abc".utf8))) == "a9993e364706816aba3e25717850c26c9cd0d89d")
        }
    }

    @Test func theRemoteEndSaysWhereTheAttemptConnectedAndWhetherItReusedTheConnection() async throws {
        try await TestHTTPServer.with { server in
            let results = try await withEngine(configuration: Self.configuration(.remote)) { engine in
                [
                    await engine.fetch(Request("\(server.baseURL)/ok?i=1")),
                    await engine.fetch(Request("\(server.baseURL)/ok?i=2")),
                ]
            }
            let remotes = results.map { $0.details?.remote }
            #expect(
                remotes[0]
                    == TransferDetails.Remote(
                        address: "127.0.0.1", port: server.port, httpVersion: .http1_1, reusedConnection: false))
            #expect(remotes[1]?.reusedConnection == true && remotes[1]?.port == server.port)
            let refused = try await withEngine(configuration: Self.configuration(.remote, retries: 0)) { engine in
                await engine.fetch(Request("http://127.0.0.1:1/refused"))
            }
            // libcurl 7.88 names no address for a refused connection; should a version name the
            // one it tried, it must be that one, with no HTTP version.
            #expect(refused.error?.kind == .connectFailed)
            if let remote = refused.details?.remote {
                #expect(remote.address == "127.0.0.1" && remote.port == 1 && remote.httpVersion == nil)
            }
        }
    }

    @Test func everyAttemptIsLoggedWithItsStatusErrorAndRetryAfter() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/flaky?key=log&fail=2&status=503&retryAfter=0"
            let result = try await withEngine(configuration: Self.configuration([.attempts])) { engine in
                await engine.fetch(Request(url))
            }
            let attempts = try #require(result.details?.attempts)
            #expect(attempts.map(\.status) == [503, 503, 200])
            #expect(attempts.map(\.retryAfter) == [.zero, .zero, nil])
            #expect(attempts.allSatisfy { $0.error == nil && ($0.time ?? .zero) > .zero })
            #expect(attempts.count == result.attempts)

            let refused = try await withEngine(configuration: Self.configuration([.attempts], retries: 1)) { engine in
                await engine.fetch(Request("http://127.0.0.1:1/refused"))
            }
            let failures = try #require(refused.details?.attempts)
            #expect(failures.map(\.error?.kind) == [.connectFailed, .connectFailed])
            #expect(failures.allSatisfy { $0.status == nil && $0.time != nil })
        }
    }

    @Test func aFailedFinalAttemptKeepsItsTimings() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Self.configuration(.timings, retries: 0)
            configuration.timeout = .milliseconds(300)
            let result = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/hang"))
            }
            #expect(result.error?.kind == .timeout)
            let timings = try #require(result.details?.timings)
            // libcurl starts its timeout's clock a moment before its total's: a loaded machine saw 29x ms.
            #expect(timings.total >= .milliseconds(250) && timings.total < .seconds(5))
            #expect(timings.phases.firstByte >= .milliseconds(290), "the wait for a byte that never came")
        }
    }

    @Test func resultsThatShareATransferShareItsDetails() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/delay?ms=50"
            var configuration = Self.configuration(.all)
            configuration.maxInFlight = 4
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, [Request(url), Request(url)])
            }
            let owner = try #require(results.first { $0.sharedWith == nil })
            let copy = try #require(results.first { $0.sharedWith != nil })
            #expect(owner.details != nil && copy.details === owner.details)
            #expect(owner.details?.attempts.count == 1 && copy.attempts == 0)
        }
    }
}
