import Testing

@testable import CocktailReplica

/// Faults on image routes: the transport and status faults apply, the JSON-specific ones do not.
struct ImageFaultTests {
    private func withImage(
        _ faults: ReplicaFaults,
        _ body: (ReplicaServer, String, [UInt8]) async throws -> Void
    ) async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(faults: faults)) { server in
            let drink = server.catalogue.drinks[5]
            try await body(
                server, server.imageURL(for: drink, size: .large), server.imageBytes(for: drink, size: .large))
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func truncateSendsTheFullLengthThenHalfTheImage() async throws {
        try await self.withImage(ReplicaFaults(truncateRate: 1)) { server, url, image in
            let result = try await Curl.fetch(url)
            #expect(result.exitCode == 18)  // CURLE_PARTIAL_FILE
            #expect(result.headers["content-type"] == "image/jpeg")
            #expect(result.headers["content-length"] == String(image.count))
            expectBytes(result.body, Array(image.prefix(image.count / 2)), "truncated image")
            #expect(server.stats().faults(.truncate) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func resetAndErrorStatusesApplyToImages() async throws {
        try await self.withImage(ReplicaFaults(resetRate: 1)) { server, url, _ in
            let result = try await Curl.fetch(url)
            #expect(result.exitCode == 52)  // CURLE_GOT_NOTHING
            #expect(server.stats().faults(.reset) == 1)
        }
        try await self.withImage(ReplicaFaults(failRate: 1, failStatuses: [502])) { server, url, _ in
            let result = try await Curl.fetch(url)
            #expect(result.status == 502)
            #expect(result.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(server.stats().faults(.fail) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func failFirstAndThrottleApplyToImages() async throws {
        try await self.withImage(ReplicaFaults(failFirst: 1)) { _, url, image in
            let result = try await Curl.fetch([url, url])
            #expect(result.statuses == [503, 200])
            expectBytes(result.bodies[1], image, "second attempt")
        }
        try await self.withImage(ReplicaFaults(throttle: 1)) { server, url, _ in
            let result = try await Curl.fetch([url, url + "?again"])
            #expect(result.statuses == [200, 429])
            #expect(result.headers["retry-after"] != nil)
            #expect(server.stats().faults(.throttle) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func slowDripsTheWholeImage() async throws {
        try await self.withImage(ReplicaFaults(slowRate: 1, slowMilliseconds: 80)) { server, url, image in
            let result = try await Curl.fetch(url)
            #expect(result.exitCode == 0)
            expectBytes(result.body, image, "slow image")
            #expect(result.seconds >= 0.06)
            #expect(server.stats().faults(.slow) == 1)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func jsonSpecificFaultsLeaveImagesWhole() async throws {
        let rates: [ReplicaFaults] = [
            ReplicaFaults(malformedRate: 1), ReplicaFaults(wrongTypeRate: 1), ReplicaFaults(emptyBodyRate: 1),
        ]
        for faults in rates {
            try await self.withImage(faults) { server, url, image in
                let result = try await Curl.fetch(url)
                #expect(result.status == 200)
                #expect(result.headers["content-type"] == "image/jpeg")
                expectBytes(result.body, image, "\(faults)")
                // The same fault still hits the API's documents.
                let document = try await Curl.fetch(server.url("list.php?c=list"))
                #expect(document.status == 200)
                #expect(document.body != (try Fixtures.bytes("Golden/list-categories.json")))
                #expect(server.stats().faults.values.reduce(0, +) == 1)
            }
        }
    }
}
