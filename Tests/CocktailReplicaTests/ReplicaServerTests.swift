import Foundation
import Testing

@testable import CocktailReplica

/// Lifecycle and HTTP/1.1 behaviour of the server.
struct ReplicaServerTests {
    @Test func startsOnAnEphemeralLoopbackPortAndShutsDownIdempotently() async throws {
        let server = try await ReplicaServer.start()
        #expect(server.port > 0)
        #expect(server.baseURL == "http://127.0.0.1:\(server.port)/api/json/v1/1/")
        #expect(server.statsURL == "http://127.0.0.1:\(server.port)/__replica/stats")
        #expect(server.configuration.port == server.port)
        try await server.shutdown()
        try await server.shutdown()
        if Curl.isAvailable {
            #expect(try await Curl.fetch(server.url("list.php?c=list")).exitCode == 7)  // CURLE_COULDNT_CONNECT
        }
    }

    @Test func refusesANonLoopbackHostUnlessAllowed() async throws {
        let error = await #expect(throws: ReplicaError.self) {
            _ = try await ReplicaServer.start(ReplicaConfiguration(host: "0.0.0.0"))
        }
        #expect(error?.kind == .nonLoopbackHost)
        #expect(ReplicaConfiguration.isLoopback("127.0.0.1"))
        #expect(ReplicaConfiguration.isLoopback("127.1.2.3"))
        #expect(ReplicaConfiguration.isLoopback("::1"))
        #expect(ReplicaConfiguration.isLoopback("localhost"))
        #expect(!ReplicaConfiguration.isLoopback("10.0.0.1"))
        #expect(!ReplicaConfiguration.isLoopback("127.0.0.256"))
    }

    @Test func reportsABusyPortAsBindFailed() async throws {
        try await ReplicaServer.withServer { server in
            let error = await #expect(throws: ReplicaError.self) {
                _ = try await ReplicaServer.start(ReplicaConfiguration(port: server.port))
            }
            #expect(error?.kind == .bindFailed)
        }
    }

    @Test func rejectsInvalidConfigurations() async throws {
        let tooMuch = ReplicaConfiguration(faults: ReplicaFaults(failRate: 0.6, resetRate: 0.6))
        let error = await #expect(throws: ReplicaError.self) { _ = try await ReplicaServer.start(tooMuch) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(throws: ReplicaError.self) { try ReplicaConfiguration(resultCap: -1).validate() }
        #expect(throws: ReplicaError.self) { try ReplicaFaults(failStatuses: [700]).validate() }
        #expect(throws: ReplicaError.self) { try ReplicaFaults(throttle: 0).validate() }
        #expect(throws: ReplicaError.self) { try Catalogue(scale: 0) }
    }

    @Test func answersPipelinedRequestsInOrder() async throws {
        try await ReplicaServer.withServer { server in
            let request =
                "GET /api/json/v1/1/list.php?c=list HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /api/json/v1/1/list.php?a=list HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /api/json/v1/1/lookup.php?iid=26 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let outcome = try await RawHTTPClient.exchange(port: server.port, request: request)
            #expect(outcome.closedByServer)
            let expected = try ["list-categories.json", "list-alcoholic.json", "lookup-ingredient-26.json"].map {
                String(decoding: try Fixtures.bytes("Golden/\($0)"), as: UTF8.self)
            }
            let positions = expected.compactMap { outcome.text.range(of: $0)?.lowerBound }
            #expect(positions.count == 3)
            #expect(positions == positions.sorted())
            #expect(outcome.text.components(separatedBy: "HTTP/1.1 200 OK").count == 4)
            #expect(server.stats().connectionsAccepted == 1)
        }
    }

    @Test func answersHeadWithTheLengthButNoBody() async throws {
        try await ReplicaServer.withServer { server in
            let outcome = try await RawHTTPClient.exchange(
                port: server.port,
                request: "HEAD /api/json/v1/1/lookup.php?i=16672 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            )
            let length = try Fixtures.bytes("Golden/lookup-drink-16672.json").count
            #expect(outcome.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(outcome.text.contains("Content-Length: \(length)\r\n"))
            #expect(outcome.text.hasSuffix("\r\n\r\n"))
        }
    }

    @Test func closesAfterAnHTTP10Response() async throws {
        try await ReplicaServer.withServer { server in
            let outcome = try await RawHTTPClient.exchange(
                port: server.port,
                request: "GET /api/json/v1/1/list.php?a=list HTTP/1.0\r\n\r\n"
            )
            #expect(outcome.closedByServer)
            #expect(outcome.text.hasPrefix("HTTP/1.0 200 OK\r\n"))
            #expect(
                outcome.text.hasSuffix(
                    String(decoding: try Fixtures.bytes("Golden/list-alcoholic.json"), as: UTF8.self)))
        }
    }

    @Test func answersMalformedRequestsWith400() async throws {
        try await ReplicaServer.withServer { server in
            let outcome = try await RawHTTPClient.exchange(port: server.port, request: "NOT HTTP AT ALL\r\n\r\n")
            #expect(outcome.text.hasPrefix("HTTP/1.1 400 Bad Request"))
            #expect(outcome.closedByServer)
        }
    }
}
