import Foundation
import Testing

@testable import CocktailReplica

/// ETag / Last-Modified on documents and `304 Not Modified` for conditional requests.
struct ValidatorsTests {
    @Test func entityTagsAreQuotedStableHashesOfTheBody() {
        let tag = Validators.entityTag(for: Array(#"{"drinks":null}"#.utf8))
        #expect(tag.count == 18)
        #expect(tag.hasPrefix("\"") && tag.hasSuffix("\""))
        #expect(tag == Validators.entityTag(for: Array(#"{"drinks":null}"#.utf8)))
        #expect(tag != Validators.entityTag(for: Array(#"{"drinks":[]}"#.utf8)))
        #expect(Validators.lastModified == "Mon, 01 Jan 2024 00:00:00 GMT")
    }

    @Test func ifNoneMatchComparesWeaklyAndWinsOverIfModifiedSince() {
        let tag = "\"00aa\""
        let last = Validators.lastModified
        func check(_ inm: String?, _ ims: String?) -> Bool {
            Validators.notModified(ifNoneMatch: inm, ifModifiedSince: ims, entityTag: tag, lastModified: last)
        }
        #expect(check("\"00aa\"", nil))
        #expect(check("W/\"00aa\"", nil))
        #expect(check("\"x\", \"00aa\"", nil))
        #expect(check("*", nil))
        #expect(!check("\"00ab\"", last))
        #expect(check(nil, last))
        #expect(!check(nil, "Tue, 02 Jan 2024 00:00:00 GMT"))
        #expect(!check(nil, nil))
    }

    @Test(.enabled(if: Curl.isAvailable)) func conditionalRequestsGet304WithTheValidatorsAndNoBody() async throws {
        try await ReplicaServer.withServer { server in
            let url = server.url("lookup.php?i=\(server.catalogue.drinks[0].id)")
            let first = try await Curl.fetch(url)
            let tag = try #require(first.headers["etag"])
            #expect(first.headers["last-modified"] == Validators.lastModified)
            #expect(tag == Validators.entityTag(for: first.body))
            let byTag = try await Curl.fetch(url, arguments: ["-H", "If-None-Match: \(tag)"])
            #expect(byTag.exitCode == 0)
            #expect(byTag.status == 304)
            #expect(byTag.body.isEmpty)
            #expect(byTag.headers["etag"] == tag)
            let byDate = try await Curl.fetch(url, arguments: ["-H", "If-Modified-Since: \(Validators.lastModified)"])
            #expect(byDate.status == 304)
            let changed = try await Curl.fetch(url, arguments: ["-H", "If-None-Match: \"other\""])
            #expect(changed.status == 200)
            #expect(changed.body == first.body)
            let stats = server.stats()
            #expect(stats.conditionalRequests == 3)
            #expect(stats.responses(withStatus: 304) == 2)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func withoutValidatorsConditionalRequestsGetTheFullDocument() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(validators: false)) { server in
            let url = server.url("list.php?c=list")
            let result = try await Curl.fetch(url, arguments: ["-H", "If-None-Match: *"])
            #expect(result.status == 200)
            #expect(result.headers["etag"] == nil)
            #expect(result.headers["last-modified"] == nil)
            #expect(!result.body.isEmpty)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func a304KeepsTheConnectionUsableForTheNextRequest() async throws {
        try await ReplicaServer.withServer { server in
            let url = server.url("list.php?g=list")
            let tag = try #require(try await Curl.fetch(url).headers["etag"])
            // Two URLs in one curl run share one connection: a 304 framed wrongly would break the second.
            let both = try await Curl.fetch([url, url], arguments: ["-H", "If-None-Match: \(tag)"])
            #expect(both.exitCode == 0)
            #expect(both.status == 304)
            #expect(server.stats().connectionsAccepted == 2)
        }
    }
}
