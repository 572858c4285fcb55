import Foundation
import Testing

@testable import CocktailReplica

/// Each fault, observed by a real client (curl, or a raw socket where curl hides the detail).
struct FaultInjectionTests {
    private static let lookup = "lookup.php?i=16672"

    private func server(_ faults: ReplicaFaults) -> ReplicaConfiguration {
        ReplicaConfiguration(faults: faults)
    }

    @Test(.enabled(if: Curl.isAvailable)) func failRateAnswersWithAConfiguredStatus() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(failRate: 1, failStatuses: [500, 503]))) {
            server in
            var statuses: [Int] = []
            for id in server.catalogue.drinks.prefix(12).map(\.id) {
                let result = try await Curl.fetch(server.url("lookup.php?i=\(id)"))
                #expect(result.headers["content-type"]?.hasPrefix("text/html") == true)
                statuses.append(result.status)
            }
            #expect(Set(statuses) == [500, 503])
            let stats = server.stats()
            #expect(stats.faults(.fail) == 12)
            #expect(stats.responses(withStatus: 500) + stats.responses(withStatus: 503) == 12)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func throttleAnswers429WithRetryAfterSeconds() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(throttle: 2))) { server in
            let urls = (0..<5).map { server.url("list.php?c=list&n=\($0)") }
            let result = try await Curl.fetch(urls)
            #expect(result.status == 429)
            #expect(result.headers["retry-after"] == "1")
            let stats = server.stats()
            #expect(stats.responses(withStatus: 200) == 2)
            #expect(stats.responses(withStatus: 429) == 3)
            #expect(stats.faults(.throttle) == 3)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func throttleCanStateRetryAfterAsAnHTTPDate() async throws {
        let faults = ReplicaFaults(throttle: 1, retryAfterFormat: .httpDate)
        try await ReplicaServer.withServer(self.server(faults)) { server in
            let result = try await Curl.fetch([server.url("random.php"), server.url("random.php")])
            #expect(result.status == 429)
            let value = try #require(result.headers["retry-after"])
            #expect(value.wholeMatch(of: /[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT/) != nil)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func resetClosesTheConnectionWithoutAResponse() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(resetRate: 1))) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.exitCode == 52)  // CURLE_GOT_NOTHING
            #expect(result.status == 0)
            let raw = try await RawHTTPClient.exchange(
                port: server.port,
                request: "GET /api/json/v1/1/\(Self.lookup) HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(raw.closedByServer)
            #expect(raw.bytes.isEmpty)
            let stats = server.stats()
            #expect(stats.faults(.reset) == 2)
            #expect(stats.responsesByStatus.isEmpty)
            #expect(stats.requestsInFlight == 0)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func truncateSendsTheFullLengthThenClosesMidBody() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(truncateRate: 1))) { server in
            let full = try Fixtures.bytes("Golden/lookup-drink-16672.json")
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.exitCode == 18)  // CURLE_PARTIAL_FILE
            #expect(result.status == 200)
            let raw = try await RawHTTPClient.exchange(
                port: server.port,
                request: "GET /api/json/v1/1/\(Self.lookup) HTTP/1.1\r\nHost: x\r\n\r\n"
            )
            #expect(raw.closedByServer)
            #expect(raw.text.contains("Content-Length: \(full.count)\r\n"))
            let body = raw.text.components(separatedBy: "\r\n\r\n").dropFirst().joined(separator: "\r\n\r\n")
            #expect(body.utf8.count == full.count / 2)
            expectBytes(Array(body.utf8), Array(full.prefix(full.count / 2)), "truncated body")
            #expect(server.stats().faults(.truncate) == 2)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func malformedSendsA200WithBrokenJSON() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(malformedRate: 1))) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.status == 200)
            #expect(result.headers["content-type"] == "application/json")
            #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: Data(result.body)) }
            let full = try Fixtures.bytes("Golden/lookup-drink-16672.json")
            expectBytes(result.body, Array(full.prefix(full.count / 2)) + Array(",\"".utf8), "malformed body")
            #expect(server.stats().faults(.malformed) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func wrongTypeSendsA200HTMLPage() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(wrongTypeRate: 1))) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.status == 200)
            #expect(result.headers["content-type"] == "text/html; charset=UTF-8")
            #expect(result.bodyText.hasPrefix("<!DOCTYPE html>"))
            #expect(server.stats().faults(.wrongType) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func emptyBodySendsAnEmpty200() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(emptyBodyRate: 1))) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.status == 200)
            #expect(result.headers["content-length"] == "0")
            #expect(result.body.isEmpty)
            #expect(server.stats().faults(.emptyBody) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func slowDripsTheWholeBodyOverSlowMilliseconds() async throws {
        let faults = ReplicaFaults(slowRate: 1, slowMilliseconds: 400)
        try await ReplicaServer.withServer(self.server(faults)) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.exitCode == 0)
            #expect(result.seconds >= 0.35)
            expectBytes(result.body, try Fixtures.bytes("Golden/lookup-drink-16672.json"), "body")
            #expect(server.stats().faults(.slow) == 1)
            #expect(server.stats().requestsInFlight == 0)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func latencyDelaysEveryResponse() async throws {
        let faults = ReplicaFaults(latency: ReplicaLatency(milliseconds: 250, jitter: 20))
        try await ReplicaServer.withServer(self.server(faults)) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            #expect(result.status == 200)
            #expect(result.seconds >= 0.22)
            expectBytes(result.body, try Fixtures.bytes("Golden/lookup-drink-16672.json"), "body")
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func failFirstFailsTheFirstAttemptsOfEveryDistinctURL() async throws {
        try await ReplicaServer.withServer(self.server(ReplicaFaults(failFirst: 2))) { server in
            var statuses: [Int] = []
            for _ in 0..<3 {
                statuses.append(try await Curl.fetch(server.url(Self.lookup)).status)
            }
            #expect(statuses == [503, 503, 200])
            #expect(try await Curl.fetch(server.url("lookup.php?iid=1")).status == 503)
            let stats = server.stats()
            #expect(stats.requests(for: "/api/json/v1/1/\(Self.lookup)") == 3)
            #expect(stats.faults(.failFirst) == 3)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func theStatsEndpointIsNeverFaulted() async throws {
        let faults = ReplicaFaults(failRate: 0.5, resetRate: 0.5, failFirst: 3)
        try await ReplicaServer.withServer(self.server(faults)) { server in
            for _ in 0..<3 {
                let result = try await Curl.fetch(server.statsURL)
                #expect(result.status == 200)
                #expect(try JSONDecoder().decode(ReplicaStats.self, from: Data(result.body)).requests == 0)
            }
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func legacyRateServesEmptyStringsInUnusedSlots() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(legacyRate: 1)) { server in
            let result = try await Curl.fetch(server.url(Self.lookup))
            let record = try #require(
                try JSONDecoder().decode(DrinksEnvelope<StrictDrink>.self, from: Data(result.body)).drinks?.first
            )
            let drink = try #require(server.catalogue.drink(id: "16672"))
            #expect(drink.usesLegacyEmptyStrings)
            #expect(record.value("strIngredient15") == "")
            #expect(record.value("strMeasure15") == "")
            #expect(record.matches(drink))
        }
    }
}
