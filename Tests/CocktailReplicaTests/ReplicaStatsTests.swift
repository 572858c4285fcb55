import Foundation
import Testing

@testable import CocktailReplica

/// The stats endpoint counts what tests need to assert from the server's side.
struct ReplicaStatsTests {
    @Test(.enabled(if: Curl.isAvailable)) func countsRequestsByPathStatusAndURLOverOneKeepAliveConnection() async throws
    {
        try await ReplicaServer.withServer { server in
            let urls = [
                server.url("list.php?c=list"), server.url("lookup.php?i=16672"), server.url("lookup.php?i=16672"),
                server.url("nothing.php"),
            ]
            let result = try await Curl.fetch(urls)
            #expect(result.exitCode == 0)
            let stats = server.stats()
            #expect(stats.requests == 4)
            #expect(
                stats.requestsByPath == [
                    "/api/json/v1/1/list.php": 1, "/api/json/v1/1/lookup.php": 2, "/api/json/v1/1/nothing.php": 1,
                ])
            #expect(stats.responsesByStatus == ["200": 3, "404": 1])
            #expect(stats.statusesByPath["/api/json/v1/1/lookup.php"] == ["200": 2])
            #expect(stats.requestsByURL["/api/json/v1/1/lookup.php?i=16672"] == 2)
            #expect(stats.requests(for: "/api/json/v1/1/list.php?c=list") == 1)
            #expect(stats.connectionsAccepted == 1)
            #expect(stats.faults.isEmpty)
            #expect(stats.requestsInFlight == 0)
            #expect(stats.maxRequestsInFlight == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func theEndpointServesTheSameCountersAsTheInProcessSnapshot() async throws {
        try await ReplicaServer.withServer { server in
            _ = try await Curl.fetch([server.url("random.php"), server.url("filter.php?c=Beer")])
            let result = try await Curl.fetch(server.statsURL)
            #expect(result.headers["content-type"] == "application/json")
            var served = try JSONDecoder().decode(ReplicaStats.self, from: Data(result.body))
            var local = server.stats()
            #expect(served.connectionsAccepted == 2)
            // The stats request's own connection may or may not be closed yet when read locally.
            served.connectionsOpen = 0
            local.connectionsOpen = 0
            local.connectionsAccepted = served.connectionsAccepted
            #expect(served == local)
            #expect(served.requests == 2)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func maxRequestsInFlightSeesConcurrentClients() async throws {
        let configuration = ReplicaConfiguration(faults: ReplicaFaults(latency: ReplicaLatency(milliseconds: 1200)))
        try await ReplicaServer.withServer(configuration) { server in
            try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<4 {
                    group.addTask { try await Curl.fetch(server.url("lookup.php?iid=\(index + 1)")).status }
                }
                for try await status in group {
                    #expect(status == 200)
                }
            }
            let stats = server.stats()
            #expect(stats.maxRequestsInFlight == 4)
            #expect(stats.requestsInFlight == 0)
            #expect(stats.connectionsAccepted == 4)
        }
    }

    @Test func statsEncodeAsAJSONObjectWithStringKeys() throws {
        var stats = ReplicaStats()
        stats.requests = 3
        stats.responsesByStatus = ["200": 2, "503": 1]
        stats.faults = [FaultKind.failFirst.rawValue: 1]
        let text = String(decoding: try stats.jsonData(), as: UTF8.self)
        #expect(text.contains(#""503" : 1"#))
        #expect(text.contains(#""failFirst" : 1"#))
        #expect(try JSONDecoder().decode(ReplicaStats.self, from: stats.jsonData()) == stats)
        #expect(stats.faults(.failFirst) == 1)
        #expect(stats.responses(withStatus: 503) == 1)
    }
}
