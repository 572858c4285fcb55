import BatchFetchRobots
import Testing

/// docs/ROBOTS.md's worked example, verdict by verdict.
struct RobotsWorkedExampleTests {
    static let robots = """
        User-agent: *                  # line 1
        Disallow: /private/            # line 2
        Crawl-delay: 5                 # line 3

        User-agent: BatchFetch/2.0     # line 5
        User-agent: otherbot           # line 6
        Disallow: /tmp/                # line 7
        Allow: /tmp/public/            # line 8
        Disallow: /*.pdf$              # line 9
        Sitemap: https://example.com/sitemap.xml
        Allow: /%7Eme/                 # line 11
        """

    @Test(
        arguments: [
            ("/private/x", true, nil), ("/tmp/a", false, 7), ("/tmp/public/a", true, 8), ("/docs/a.pdf", false, 9),
            ("/docs/a.pdf?x=1", true, nil), ("/~me/a", true, 11), ("/robots.txt", true, nil),
        ] as [(String, Bool, Int?)])
    func theDocumentedVerdictsHold(path: String, allowed: Bool, line: Int?) {
        let matcher = RobotsTxt(Self.robots).matcher(for: RobotsAgent("batchfetch")!)
        let verdict = matcher.verdict(forPath: path)
        #expect(verdict.allowed == allowed)
        #expect(verdict.rule?.line == line)
        #expect(matcher.crawlDelay == nil)
        #expect(matcher.appliedGroup == .agent)
    }

    @Test func theRuleIsReportedAsWritten() {
        let verdict = RobotsTxt(Self.robots).matcher(for: RobotsAgent("otherbot")!).verdict(forPath: "/tmp/a")
        #expect(verdict.rule == RobotsRule(kind: .disallow, text: "Disallow: /tmp/", line: 7))
    }

    @Test func anyOtherAgentGetsTheStarGroup() {
        let matcher = RobotsTxt(Self.robots).matcher(for: RobotsAgent("somebot")!)
        #expect(matcher.appliedGroup == .global)
        #expect(matcher.verdict(forPath: "/private/x").rule?.line == 2)
        #expect(matcher.crawlDelay == 5)
        #expect(RobotsTxt(Self.robots).sitemaps == ["https://example.com/sitemap.xml"])
    }
}
