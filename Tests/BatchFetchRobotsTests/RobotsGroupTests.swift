import BatchFetchRobots
import Testing

struct RobotsGroupTests {
    @Test func groupsNamingTheAgentAreMergedAndTheStarGroupIsThenIgnored() {
        let robots = """
            User-agent: *
            Disallow: /star
            User-agent: foo
            Disallow: /one
            User-agent: bar
            Disallow: /bar
            User-agent: FOO
            Disallow: /two
            """
        #expect(!isAllowed(robots, "foo", "/one"))
        #expect(!isAllowed(robots, "foo", "/two"))
        #expect(isAllowed(robots, "foo", "/star"))
        #expect(isAllowed(robots, "foo", "/bar"))
        #expect(!isAllowed(robots, "other", "/star"))
        #expect(isAllowed(robots, "other", "/one"))
        let matcher = RobotsTxt(robots).matcher(for: RobotsAgent("foo")!)
        #expect(matcher.appliedGroup == .agent)
        #expect(matcher.groupLines == [3, 7])
    }

    @Test func aNamedGroupWithoutMatchingRulesAllowsRatherThanFallingBackToStar() {
        let robots = "User-agent: *\nDisallow: /\nUser-agent: foo\nDisallow: /private\n"
        #expect(isAllowed(robots, "foo", "/public"))
        #expect(isAllowed("User-agent: *\nDisallow: /\nUser-agent: foo\n", "foo", "/x"))
    }

    @Test func consecutiveUserAgentLinesShareTheirRulesEvenAcrossBlankLines() {
        let robots = "User-agent: a\n\nUser-agent: b\nDisallow: /x\n"
        #expect(!isAllowed(robots, "a", "/x"))
        #expect(!isAllowed(robots, "b", "/x"))
    }

    @Test func sitemapAndUnknownLinesNeitherStartNorEndAGroup() {
        for line in ["Sitemap: https://foo.bar/sitemap", "Invalid-Unknown-Line: unknown", "Crawl-delay: 3"] {
            let robots = "User-agent: BarBot\n\(line)\nUser-agent: *\nDisallow: /\n"
            #expect(!isAllowed(robots, "FooBot", "/"))
            #expect(!isAllowed(robots, "BarBot", "/"))
        }
        let middle = "User-agent: foo\nDisallow: /a\nSitemap: http://x/s.xml\nDisallow: /b\n"
        #expect(!isAllowed(middle, "foo", "/b"))
    }

    @Test func rulesBeforeAnyUserAgentAreIgnored() {
        #expect(isAllowed("Disallow: /\nUser-agent: foo\nAllow: /x\n", "bar", "/y"))
        #expect(isAllowed("Disallow: /\nUser-agent: foo\nAllow: /x\n", "foo", "/y"))
    }

    @Test func theProductTokenOfAUserAgentValueIsItsLeadingLettersUnderscoresAndHyphens() {
        let robots = "User-agent: Foo-Bot_x/2.1 (compatible)\nDisallow: /\n"
        #expect(!isAllowed(robots, "foo-bot_X", "/a"))
        #expect(isAllowed(robots, "foo", "/a"))
        #expect(isAllowed(robots, "Foo-Bot_x-y", "/a"))
        // Google's reading: a value that starts with `*` and a space is the global group.
        #expect(!isAllowed("User-agent: * everyone\nDisallow: /\n", "foo", "/a"))
        #expect(isAllowed("User-agent: *bot\nDisallow: /\n", "foo", "/a"))
    }

    @Test func noGroupAtAllAllowsEverything() {
        let matcher = RobotsTxt("User-agent: bar\nDisallow: /\n").matcher(for: RobotsAgent("foo")!)
        #expect(matcher.appliedGroup == .none)
        #expect(matcher.verdict(forPath: "/a") == RobotsVerdict(allowed: true, rule: nil))
        #expect(RobotsTxt.allowingAll.matcher(for: RobotsAgent("foo")!).isAllowed(path: "/"))
    }
}

struct RobotsAgentTests {
    @Test func onlyLettersUnderscoresAndHyphensMakeAValidToken() {
        for valid in ["Foobot", "Foobot-Bar", "Foo_Bar", "batchfetch", "a"] {
            #expect(RobotsAgent(valid)?.token == valid)
        }
        for invalid in ["", "ツ", "Foobot*", " Foobot ", "Foobot/2.1", "Foobot Bar", "bot1", "é"] {
            #expect(RobotsAgent(invalid) == nil, "\(invalid)")
            #expect(!RobotsAgent.isValidToken(invalid))
        }
    }
}
