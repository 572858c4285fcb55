import BatchFetchRobots
import Testing

struct RobotsTxtParsingTests {
    @Test func aByteOrderMarkOrTheStartOfOneIsSkipped() {
        let rules = Array("User-agent: foo\nDisallow: /x\n".utf8)
        for bom in [[0xEF, 0xBB, 0xBF], [0xEF, 0xBB], [0xEF]] as [[UInt8]] {
            #expect(!verdict(bom + rules, "foo", "/x").allowed)
        }
        // A broken mark spoils the first line only; a mark later in the file spoils its line.
        #expect(verdict([0xEF, 0x11, 0xBF] + rules, "foo", "/x").allowed)
        #expect(
            verdict(Array("User-agent: foo\n".utf8) + [0xEF, 0xBB, 0xBF] + Array("Disallow: /x\n".utf8), "foo", "/x")
                .allowed)
    }

    @Test func linesEndAtLineFeedCarriageReturnOrBoth() {
        for end in ["\n", "\r", "\r\n"] {
            let robots = ["User-Agent: foo", "Allow: /some/path", "User-Agent: bar", "", "", "Disallow: /"]
                .joined(separator: end)
            let rule = verdict(robots, "bar", "/x").rule
            #expect(rule == RobotsRule(kind: .disallow, text: "Disallow: /", line: 6))
            #expect(RobotsTxt(robots).lineCount == 6)
        }
        let mixed = "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /"
        #expect(verdict(mixed, "bar", "/x").rule?.line == 6)
        // CR CR LF is two line ends: the LF belongs to the second CR.
        #expect(verdict("User-agent: *\r\r\nDisallow: /", "foo", "/x").rule?.line == 3)
    }

    @Test func commentsAndSurroundingWhiteSpaceAreDropped() {
        let robots = "User-agent: FooBot # me\n# Disallow: /\n  Disallow:  /foo/quz#qux  \nAllow: /\n"
        #expect(isAllowed(robots, "FooBot", "/foo/bar"))
        let blocked = verdict(robots, "FooBot", "/foo/quz")
        #expect(!blocked.allowed)
        #expect(blocked.rule == RobotsRule(kind: .disallow, text: "Disallow:  /foo/quz", line: 3))
    }

    @Test func keysAreCaseInsensitiveAndCommonMisspellingsCount() {
        for robots in [
            "USER-AGENT: FooBot\nDISALLOW: /\n", "uSeR-aGeNt: FooBot\ndIsAlLoW: /\n",
            "useragent: FooBot\ndisalow: /\n", "user agent: FooBot\ndissallow: /\n",
            "User-agent: FooBot\ndissalow: /\n", "User-agent: FooBot\ndiasllow: /\n",
            "User-agent: FooBot\ndisallaw: /\n",
        ] {
            #expect(!isAllowed(robots, "FooBot", "/x"), "\(robots)")
        }
    }

    @Test func aLineWithoutColonIsReadWhenASpaceSeparatesTwoWords() {
        #expect(!isAllowed("user-agent FooBot\ndisallow /\n", "FooBot", "/x/y"))
        // Three words: not a rule.
        #expect(isAllowed("user-agent: FooBot\ndisallow / x\n", "FooBot", "/x/y"))
    }

    @Test func linesThatCannotBeReadAreSkipped() {
        #expect(isAllowed("foo: FooBot\nbar: /\n", "FooBot", "/x/y"))
        #expect(!isAllowed("User-agent: FooBot\n: /\njunk\n???\nDisallow: /\n", "FooBot", "/x/y"))
    }

    @Test func aLineIsCutAfter16663Octets() {
        let maximum = 2083 * 8
        var long = "/x/"
        while long.utf8.count < maximum - "/x/".utf8.count - "disallow: ".utf8.count + 1 {
            long += "a"
        }
        let robots = "user-agent: FooBot\ndisallow: \(long)/qux\n"
        #expect(isAllowed(robots, "FooBot", "/fux"))
        #expect(!isAllowed(robots, "FooBot", "\(long)/fux"))
    }

    @Test func onlyTheFirst500KiBAreRead() {
        var robots = "User-agent: *\nDisallow: /early\n"
        robots += String(repeating: "# filler filler filler filler filler filler filler filler filler\n", count: 7_000)
        #expect(robots.utf8.count > 400 * 1024 && robots.utf8.count < RobotsTxt.maximumSize)
        robots += "Disallow: /before-the-cut\n"
        robots += String(repeating: "#", count: RobotsTxt.maximumSize - robots.utf8.count + 10) + "\n"
        robots += "Disallow: /after-the-cut\n"
        #expect(!isAllowed(robots, "foo", "/early"))
        #expect(!isAllowed(robots, "foo", "/before-the-cut"))
        #expect(isAllowed(robots, "foo", "/after-the-cut"))
    }

    @Test func sitemapsAreCollectedWhereverTheyStand() {
        let robots = "Sitemap: http://foo.bar/a.xml\nUser-Agent: foo\nAllow: /x\nsite-map: http://foo.bar/b.xml\n"
        #expect(RobotsTxt(robots).sitemaps == ["http://foo.bar/a.xml", "http://foo.bar/b.xml"])
    }

    @Test func crawlDelayIsTheAppliedGroupsFirstValidValue() {
        let robots = """
            User-agent: foo
            Crawl-delay: soon
            Crawl-delay: 2.5
            Crawl-delay: 9
            Disallow: /foo-only
            User-agent: *
            Crawl-delay: 7
            Disallow: /private
            User-agent: bar
            Disallow: /x
            """
        #expect(self.delay(robots, "foo") == 2.5)
        #expect(self.delay(robots, "other") == 7)
        // A named group without a delay does not take the `*` group's.
        #expect(self.delay(robots, "bar") == nil)
        #expect(self.delay("User-agent: *\ncrawl-delay: -1\nCrawldelay: 1e3\n", "foo") == nil)
        #expect(self.delay("User-agent: *\nCRAWL DELAY: .5\n", "foo") == 0.5)
        #expect(self.delay("Crawl-delay: 4\nUser-agent: *\n", "foo") == nil)
    }

    private func delay(_ robots: String, _ agent: String) -> Double? {
        RobotsTxt(robots).matcher(for: RobotsAgent(agent)!).crawlDelay
    }
}
