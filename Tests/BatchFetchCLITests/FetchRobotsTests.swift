import Foundation
import TestSupport
import Testing

/// `fetch --robots obey|report` against local servers serving robots.txt (issue 52): which URLs
/// go, what records say, each status of robots.txt, and the origin's queue held only for its own.
@Suite(.serialized)
struct FetchRobotsTests {
    private static let rules = """
        User-agent: *
        Disallow: /

        # batchfetch's own group: it does not inherit *'s rules.
        User-agent: batchfetch
        Sitemap: http://example.test/sitemap.xml
        Disallow: /ok?secret
        Allow: /ok?secret=public

        """

    private static func fetch(_ arguments: [String], deadline: Double = 60) async throws -> Executable.Output {
        try await Executable("batchfetch").runOffPool(["fetch", "-q"] + arguments, deadline: deadline)
    }

    private static func error(_ record: [String: Any]) -> [String: Any]? {
        record["error"] as? [String: Any]
    }

    @Test func obeyRefusesWhatTheAgentsGroupDisallowsAndReadsRobotsTxtOnce() async throws {
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: Self.rules) }
            let urls = ["/ok?i=1", "/ok?secret=1", "/status/200", "/ok?secret=public", "/ok?i=2"].map {
                server.baseURL + $0
            }
            let output = try await Self.fetch(["--robots", "obey", "--body", "none"] + urls)
            #expect(output.status == 0, "disallowed URLs alone are not a failure: \(output.summary)")
            let records = try output.records()
            #expect(records.map { $0["ok"] as? Bool } == [true, false, true, true, true])
            let refused = records[1]
            #expect(refused["status"] is NSNull && refused["attempts"] as? Int == 0)
            let error = Self.error(refused)
            #expect(error?["kind"] as? String == "robotsDisallowed")
            #expect(error?["robots_url"] as? String == server.baseURL + "/robots.txt")
            #expect(error?["rule"] as? String == "Disallow: /ok?secret")
            #expect(error?["line"] as? Int == 7)
            let seen = server.snapshot.arrivals
            #expect(seen["/robots.txt"]?.count == 1)
            #expect(seen["/ok"]?.count == 3 && seen["/status/200"]?.count == 1)
            // robots.txt came before every other request of its origin.
            let first = (seen["/ok"] ?? []).min() ?? 0
            #expect((seen["/robots.txt"]?.first ?? .max) < first)
        }
    }

    @Test func anotherAgentGetsTheStarGroup() async throws {
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: Self.rules) }
            let output = try await Self.fetch(
                ["--robots", "obey", "--robots-agent", "OtherBot", "--body", "none", server.baseURL + "/ok?i=1"])
            #expect(output.status == 0, "\(output.summary)")
            #expect(try output.records().first.flatMap(Self.error)?["rule"] as? String == "Disallow: /")
            #expect(server.snapshot.arrivals["/ok"] == nil)
            // The default User-Agent carries the token.
            let head = server.arrivals.first { $0.target == "/robots.txt" }?.head ?? ""
            #expect(head.contains("User-Agent: OtherBot"), "\(head)")
        }
    }

    @Test func reportFetchesEverythingAndEveryRecordCarriesTheVerdict() async throws {
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: Self.rules) }
            let urls = ["/ok?i=1", "/ok?secret=1"].map { server.baseURL + $0 }
            let output = try await Self.fetch(["--robots", "report", "--body", "none"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            #expect(records.map { $0["ok"] as? Bool } == [true, true])
            let verdicts = records.map { $0["robots"] as? [String: Any] }
            #expect(verdicts[0]?["allowed"] as? Bool == true && verdicts[0]?["rule"] is NSNull)
            #expect(verdicts[1]?["allowed"] as? Bool == false)
            #expect(verdicts[1]?["rule"] as? String == "Disallow: /ok?secret")
            #expect(server.snapshot.arrivals["/ok"]?.count == 2)
        }
    }

    /// Each status of robots.txt: what is fetched, what the records say, the exit status.
    @Test(arguments: [
        (404, 0, "fetched"), (403, 0, "fetched"), (500, 1, "robotsUnreachable"), (503, 1, "robotsUnreachable"),
        (0, 1, "robotsUnreachable"),
    ])
    func aStatusOfRobotsTxt(status: Int, exit: Int32, outcome: String) async throws {
        try await TestHTTPServer.with { server in
            var reply = RobotsReply(status: status, text: "User-agent: *\nDisallow: /\n")
            if status == 0 {
                // A connection reset, every time.
                reply.failures = 100
                reply.failStatus = 0
            }
            server.robots.withLock { $0 = reply }
            let output = try await Self.fetch(
                ["--robots", "obey", "--retries", "1", "--body", "none", server.baseURL + "/ok?i=1"])
            #expect(output.status == exit, "\(status): \(output.summary)")
            let record = try output.records().first
            if outcome == "fetched" {
                #expect(record?["ok"] as? Bool == true, "\(status): 4xx allows everything")
            } else {
                #expect(record.flatMap(Self.error)?["kind"] as? String == outcome)
                #expect(server.snapshot.arrivals["/ok"] == nil, "\(status): nothing of the origin is requested")
            }
        }
    }

    @Test func aRobotsTxtThatTimesOutMakesItsOriginUnreachable() async throws {
        try await TestHTTPServer.with { server in
            var reply = RobotsReply(text: "User-agent: *\nAllow: /\n")
            reply.delayMilliseconds = 5000
            server.robots.withLock { $0 = reply }
            let output = try await Self.fetch(
                ["--robots", "obey", "--max-time", "1", "--retries", "0", "--body", "none", server.baseURL + "/ok?i=1"])
            #expect(output.status == 1, "\(output.summary)")
            let error = try output.records().first.flatMap(Self.error)
            #expect(error?["kind"] as? String == "robotsUnreachable")
            #expect((error?["message"] as? String)?.contains("timeout") == true, "\(String(describing: error))")
            #expect(server.snapshot.arrivals["/ok"] == nil)
        }
    }

    @Test func aThrottledRobotsTxtIsAskedAgainAfterRetryAfter() async throws {
        try await TestHTTPServer.with { server in
            var reply = RobotsReply(text: "User-agent: *\nDisallow: /status/\n")
            reply.failures = 1
            reply.failStatus = 429
            reply.retryAfter = "1"
            server.robots.withLock { $0 = reply }
            let urls = [server.baseURL + "/ok?i=1", server.baseURL + "/status/200"]
            let output = try await Self.fetch(["--robots", "obey", "--body", "none"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            #expect(try output.records().map { $0["ok"] as? Bool } == [true, false])
            let robots = server.snapshot.arrivals["/robots.txt"] ?? []
            #expect(robots.count == 2)
            if robots.count == 2 {
                #expect(Double(robots[1] - robots[0]) / 1e9 >= 0.95, "Retry-After: 1 was kept")
            }
        }
    }

    /// Five redirects are followed and the rules apply to the first origin; after a sixth
    /// robots.txt counts as unavailable: everything is allowed.
    @Test(arguments: [(5, false), (6, true)])
    func redirectsOfRobotsTxt(redirects: Int, fetched: Bool) async throws {
        try await TestHTTPServer.with { server in
            var reply = RobotsReply(text: "User-agent: *\nDisallow: /ok\n")
            reply.redirects = redirects
            server.robots.withLock { $0 = reply }
            let output = try await Self.fetch(["--robots", "obey", "--body", "none", server.baseURL + "/ok?i=1"])
            #expect(output.status == 0, "\(output.summary)")
            #expect(try output.records().first?["ok"] as? Bool == fetched, "\(redirects) redirects")
            #expect(server.snapshot.arrivals["/robots.txt"]?.count == min(redirects, 5) + 1)
        }
    }

    /// robots.txt moved to another host: its rules apply to the first origin, and the user's
    /// credentials do not go to the other host.
    @Test func aRobotsTxtMovedToAnotherHostGetsNoCredentials() async throws {
        try await TestHTTPServer.with { first in
            try await TestHTTPServer.with(host: "127.0.0.2") { other in
                var moved = RobotsReply()
                moved.movedTo = other.baseURL + "/robots.txt"
                first.robots.withLock { $0 = moved }
                other.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nDisallow: /ok\n") }
                let output = try await Self.fetch(
                    [
                        "--robots", "obey", "--body", "none", "-H", "Authorization: Bearer s3cret",
                        first.baseURL + "/ok?i=1",
                    ])
                #expect(try output.records().first.flatMap(Self.error)?["kind"] as? String == "robotsDisallowed")
                let head = other.arrivals.first { $0.target == "/robots.txt" }?.head ?? ""
                #expect(!head.isEmpty && !head.lowercased().contains("authorization"), "\(head)")
                let own = first.arrivals.first { $0.target == "/robots.txt" }?.head ?? ""
                #expect(own.contains("Bearer s3cret"), "its own origin gets them: \(own)")
            }
        }
    }

    /// Only the first 500 KiB count: a rule at 410 KiB applies, one at 550 KiB does not.
    @Test func aLargeRobotsTxtIsReadUpTo500KiB() async throws {
        try await TestHTTPServer.with { server in
            var text = "User-agent: *\n"
            let filler = "# " + String(repeating: "x", count: 1021) + "\n"
            while text.utf8.count < 410 * 1024 { text += filler }
            text += "Disallow: /ok?deep\n"
            while text.utf8.count < 550 * 1024 { text += filler }
            text += "Disallow: /ok?past\n"
            while text.utf8.count < 600 * 1024 { text += filler }
            server.robots.withLock { $0 = RobotsReply(text: text) }
            let urls = ["/ok?deep=1", "/ok?past=1"].map { server.baseURL + $0 }
            let output = try await Self.fetch(["--robots", "obey", "--body", "none"] + urls)
            #expect(try output.records().map { $0["ok"] as? Bool } == [false, true], "\(output.summary)")
        }
    }

    @Test func twoPortsOfOneHostAreTwoOrigins() async throws {
        try await TestHTTPServer.with { a in
            try await TestHTTPServer.with { b in
                a.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nDisallow: /ok\n") }
                b.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nAllow: /\n") }
                let output = try await Self.fetch(
                    ["--robots", "obey", "--body", "none", a.baseURL + "/ok?i=1", b.baseURL + "/ok?i=1"])
                #expect(try output.records().map { $0["ok"] as? Bool } == [false, true], "\(output.summary)")
                #expect(
                    a.snapshot.arrivals["/robots.txt"]?.count == 1 && b.snapshot.arrivals["/robots.txt"]?.count == 1)
            }
        }
    }

    /// One origin's robots.txt answers after 3 s: the other origin's URLs are done long before.
    @Test func aStalledRobotsTxtHoldsOnlyItsOrigin() async throws {
        try await TestHTTPServer.with { slow in
            try await TestHTTPServer.with { quick in
                var reply = RobotsReply(text: "User-agent: *\nAllow: /\n")
                reply.delayMilliseconds = 3000
                slow.robots.withLock { $0 = reply }
                let urls = (0..<10).flatMap { ["\(slow.baseURL)/ok?i=\($0)", "\(quick.baseURL)/ok?i=\($0)"] }
                let started = DispatchTime.now().uptimeNanoseconds
                let output = try await Self.fetch(
                    ["--robots", "obey", "--body", "none", "--order", "completion"] + urls)
                #expect(output.status == 0, "\(output.summary)")
                let quickDone = (quick.snapshot.arrivals["/ok"] ?? []).max() ?? .max
                #expect(quick.snapshot.arrivals["/ok"]?.count == 10)
                #expect(Double(quickDone &- started) / 1e9 < 2.5, "the quick origin waited for the slow one")
                let records = try output.records()
                #expect(records.prefix(10).allSatisfy { ($0["url"] as? String)?.hasPrefix(quick.baseURL) == true })
                #expect(slow.snapshot.arrivals["/robots.txt"]?.count == 1)
            }
        }
    }

    /// `Crawl-delay` spaces the starts on the host, at the server's clock; one over the cap stops it.
    @Test func crawlDelayIsKeptAndOneOverTheCapIsNotFetched() async throws {
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nCrawl-delay: 0.3\n") }
            let urls = (0..<5).map { "\(server.baseURL)/ok?i=\($0)" }
            let output = try await Self.fetch(["--robots", "obey", "--body", "none", "-c", "8"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            let times =
                ([server.snapshot.arrivals["/robots.txt"]?.first ?? 0] + (server.snapshot.arrivals["/ok"] ?? []))
                .sorted()
            #expect(times.count == 6)
            for (earlier, later) in zip(times, times.dropFirst()) {
                #expect(Double(later - earlier) / 1e9 >= 0.28, "starts \(Double(later - earlier) / 1e6) ms apart")
            }
        }
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nCrawl-delay: 5\n") }
            let output = try await Self.fetch(
                ["--robots", "obey", "--max-crawl-delay", "1", "--body", "none", server.baseURL + "/ok?i=1"])
            #expect(output.status == 1, "\(output.summary)")
            let error = try output.records().first.flatMap(Self.error)
            #expect(error?["kind"] as? String == "robotsCrawlDelay")
            #expect(server.snapshot.arrivals["/ok"] == nil)
        }
    }

    @Test func theSummaryAndStatsSayWhatEachRobotsTxtDid() async throws {
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: Self.rules) }
            let stats = FileManager.default.temporaryDirectory.appendingPathComponent("bf-robots-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: stats) }
            let urls = ["/ok?i=1", "/ok?secret=1"].map { server.baseURL + $0 }
            let output = try await Executable("batchfetch").runOffPool(
                ["fetch", "--robots", "obey", "--body", "none", "--stats", stats.path] + urls)
            #expect(output.status == 0, "\(output.summary)")
            #expect(output.stderr.contains("robots: \(server.baseURL)/robots.txt: 200"), "\(output.stderr)")
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
            let origin = (summary?["robots"] as? [[String: Any]])?.first
            #expect(origin?["origin"] as? String == server.baseURL)
            #expect(origin?["status"] as? Int == 200 && origin?["group"] as? String == "agent")
            #expect(origin?["allowed"] as? Int == 1 && origin?["disallowed"] as? Int == 1)
        }
    }

    @Test func badRobotsFlagsAreUsageErrors() throws {
        for arguments in [["--robots", "ignore"], ["--robots", "obey", "--robots-agent", "bad bot/1.0"]] {
            let output = try Executable("batchfetch").run(["fetch", "-q", "-i", "/dev/null"] + arguments)
            #expect(output.status == 2, "\(arguments): \(output.summary)")
        }
        // Without --robots they would do nothing: said, not ignored.
        for arguments in [["--robots-agent", "OtherBot"], ["--max-crawl-delay", "5"]] {
            let output = try Executable("batchfetch").run(["fetch", "-q", "-i", "/dev/null"] + arguments)
            #expect(output.status == 2 && output.stderr.contains("need --robots"), "\(arguments): \(output.summary)")
        }
    }
}
