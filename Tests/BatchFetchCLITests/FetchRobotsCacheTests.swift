import Foundation
import TestSupport
import Testing

/// robots.txt under `--cache DIR` (issue 52, RFC 9309 §2.4): kept for 24 hours, and up to 30 days
/// old when the origin cannot be reached.
@Suite(.serialized)
struct FetchRobotsCacheTests {
    private static func fetch(_ arguments: [String]) async throws -> Executable.Output {
        try await Executable("batchfetch").runOffPool(["fetch", "--robots", "obey", "--body", "none"] + arguments)
    }

    /// Moves every kept robots.txt `hours` into the past.
    private static func age(_ directory: String, hours: Double) throws {
        let folder = URL(fileURLWithPath: directory).appendingPathComponent("robots")
        for file in try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil) {
            var entry = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: file)) as? [String: Any])
            let fetched = try #require(entry["fetchedAt"] as? Double)
            entry["fetchedAt"] = fetched - hours * 3600
            try JSONSerialization.data(withJSONObject: entry).write(to: file)
        }
    }

    @Test func aKeptRobotsTxtIsUsedForADayThenFetchedAgain() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("robots-cache")
            let cache = directory.path("cache")
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nDisallow: /ok?secret\n") }
            let urls = [server.baseURL + "/ok?i=1", server.baseURL + "/ok?secret=1"]
            let first = try await Self.fetch(["--cache", cache] + urls)
            #expect(try first.records().map { $0["ok"] as? Bool } == [true, false], "\(first.summary)")
            let second = try await Self.fetch(["--cache", cache] + urls)
            #expect(try second.records().map { $0["ok"] as? Bool } == [true, false])
            #expect(second.stderr.contains("kept copy 0.0 hours old"), "\(second.stderr)")
            #expect(server.snapshot.arrivals["/robots.txt"]?.count == 1, "the second run used the kept copy")
            try Self.age(cache, hours: 25)
            _ = try await Self.fetch(["--cache", cache] + urls)
            #expect(server.snapshot.arrivals["/robots.txt"]?.count == 2, "a day-old copy is fetched again")
        }
    }

    @Test func anUnreachableOriginUsesACopyUpTo30DaysOld() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("robots-stale")
            let cache = directory.path("cache")
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nDisallow: /ok?secret\n") }
            let urls = [server.baseURL + "/ok?i=1", server.baseURL + "/ok?secret=1"]
            _ = try await Self.fetch(["--cache", cache] + urls)
            server.robots.withLock { $0 = RobotsReply(status: 500, text: "down") }
            try Self.age(cache, hours: 29 * 24)
            let stale = try await Self.fetch(["--cache", cache, "--retries", "0"] + urls)
            #expect(stale.status == 0, "\(stale.summary)")
            #expect(try stale.records().map { $0["ok"] as? Bool } == [true, false])
            #expect(stale.stderr.contains("used: unreachable (HTTP status 500)"), "\(stale.stderr)")
            try Self.age(cache, hours: 2 * 24)
            let tooOld = try await Self.fetch(["--cache", cache, "--retries", "0"] + urls)
            #expect(tooOld.status == 1, "\(tooOld.summary)")
            let kinds = try tooOld.records().map { ($0["error"] as? [String: Any])?["kind"] as? String }
            #expect(kinds == ["robotsUnreachable", "robotsUnreachable"])
        }
    }

    /// Offline, a stale response kept for the URL is answered from the cache, as without `--robots`,
    /// and robots.txt is not asked for; a URL missing from the cache is `notCached`.
    @Test func offlineRunsSendNothingNotEvenRobotsTxt() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("robots-offline")
            let cache = directory.path("cache")
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nAllow: /\n") }
            let url = server.baseURL + "/cached?cc=max-age=0"
            _ = try await Self.fetch(["--cache", cache, url])
            let before = server.snapshot.requests
            let output = try await Self.fetch([
                "--cache", cache, "--cache-mode", "only", url, server.baseURL + "/ok?i=9",
            ])
            #expect(server.snapshot.requests == before, "nothing is sent offline")
            let records = try output.records()
            #expect(records.first?["ok"] as? Bool == true, "\(output.stdout)")
            #expect((records.last?["error"] as? [String: Any])?["kind"] as? String == "notCached")
        }
    }
}
