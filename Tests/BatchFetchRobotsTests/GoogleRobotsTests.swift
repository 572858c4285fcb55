import BatchFetchRobots
import Testing

/// The cases of google/robotstxt's own tests (robots_test.cc), rewritten here. Where RFC 9309 and
/// Google's matcher disagree, the RFC's answer is asserted and the difference named (docs/ROBOTS.md).
struct GoogleRobotsTests {
    @Test func systemTest() {
        let robots = "user-agent: FooBot\ndisallow: /\n"
        #expect(isAllowed("", "FooBot", ""))
        #expect(!isAllowed(robots, "FooBot", ""))
    }

    @Test func lineSyntaxLine() {
        let url = "http://foo.bar/x/y"
        #expect(!isAllowed("user-agent: FooBot\ndisallow: /\n", "FooBot", url))
        #expect(isAllowed("foo: FooBot\nbar: /\n", "FooBot", url))
        #expect(!isAllowed("user-agent FooBot\ndisallow /\n", "FooBot", url))
    }

    @Test func lineSyntaxGroups() {
        let robots = """
            allow: /foo/bar/

            user-agent: FooBot
            disallow: /
            allow: /x/
            user-agent: BarBot
            disallow: /
            allow: /y/


            allow: /w/
            user-agent: BazBot

            user-agent: FooBot
            allow: /z/
            disallow: /

            """
        let cases: [(String, String, Bool)] = [
            ("FooBot", "/x/b", true), ("FooBot", "/z/d", true), ("FooBot", "/y/c", false),
            ("BarBot", "/y/c", true), ("BarBot", "/w/a", true), ("BarBot", "/z/d", false),
            ("BazBot", "/z/d", true), ("FooBot", "/foo/bar/", false), ("BarBot", "/foo/bar/", false),
            ("BazBot", "/foo/bar/", false),
        ]
        for (agent, path, allowed) in cases {
            #expect(isAllowed(robots, agent, "http://foo.bar" + path) == allowed, "\(agent) \(path)")
        }
    }

    @Test func lineSyntaxGroupsOtherRules() {
        for robots in [
            "User-agent: BarBot\nSitemap: https://foo.bar/sitemap\nUser-agent: *\nDisallow: /\n",
            "User-agent: FooBot\nInvalid-Unknown-Line: unknown\nUser-agent: *\nDisallow: /\n",
        ] {
            #expect(!isAllowed(robots, "FooBot", "http://foo.bar/"))
            #expect(!isAllowed(robots, "BarBot", "http://foo.bar/"))
        }
    }

    @Test func lineNamesAreCaseInsensitive() {
        for robots in [
            "USER-AGENT: FooBot\nALLOW: /x/\nDISALLOW: /\n", "user-agent: FooBot\nallow: /x/\ndisallow: /\n",
            "uSeR-aGeNt: FooBot\nAlLoW: /x/\ndIsAlLoW: /\n",
        ] {
            #expect(isAllowed(robots, "FooBot", "http://foo.bar/x/y"))
            #expect(!isAllowed(robots, "FooBot", "http://foo.bar/a/b"))
        }
    }

    @Test func userAgentValuesAreCaseInsensitiveAndReadUpToTheFirstSpace() {
        for robots in [
            "User-Agent: FOO BAR\nAllow: /x/\nDisallow: /\n", "User-Agent: foo bar\nAllow: /x/\nDisallow: /\n",
            "User-Agent: FoO bAr\nAllow: /x/\nDisallow: /\n",
        ] {
            for agent in ["Foo", "foo"] {
                #expect(isAllowed(robots, agent, "http://foo.bar/x/y"))
                #expect(!isAllowed(robots, agent, "http://foo.bar/a/b"))
            }
        }
        let robots = "User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
        #expect(isAllowed(robots, "Foo", "http://foo.bar/x/y"))
        // "Foo Bar" is no valid token: RobotsAgent refuses it (see RobotsAgentTests).
        #expect(RobotsAgent("Foo Bar") == nil)
    }

    @Test func globalGroupsAreSecondary() {
        let url = "http://foo.bar/x/y"
        #expect(isAllowed("", "FooBot", url))
        let global = "user-agent: *\nallow: /\nuser-agent: FooBot\ndisallow: /\n"
        #expect(!isAllowed(global, "FooBot", url))
        #expect(isAllowed(global, "BarBot", url))
        let specific =
            "user-agent: FooBot\nallow: /\nuser-agent: BarBot\ndisallow: /\nuser-agent: BazBot\ndisallow: /\n"
        #expect(isAllowed(specific, "QuxBot", url))
    }

    @Test func allowDisallowValuesAreCaseSensitive() {
        #expect(!isAllowed("user-agent: FooBot\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/y"))
        #expect(isAllowed("user-agent: FooBot\ndisallow: /X/\n", "FooBot", "http://foo.bar/x/y"))
    }

    @Test func longestMatch() {
        let url = "http://foo.bar/x/page.html"
        let head = "user-agent: FooBot\n"
        #expect(!isAllowed(head + "disallow: /x/page.html\nallow: /x/\n", "FooBot", url))
        #expect(isAllowed(head + "allow: /x/page.html\ndisallow: /x/\n", "FooBot", url))
        #expect(!isAllowed(head + "allow: /x/page.html\ndisallow: /x/\n", "FooBot", "http://foo.bar/x/"))
        #expect(isAllowed(head + "disallow: \nallow: \n", "FooBot", url))
        #expect(isAllowed(head + "disallow: /\nallow: /\n", "FooBot", url))
        #expect(!isAllowed(head + "disallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x"))
        #expect(isAllowed(head + "disallow: /x\nallow: /x/\n", "FooBot", "http://foo.bar/x/"))
        #expect(isAllowed(head + "disallow: /x/page.html\nallow: /x/page.html\n", "FooBot", url))
        #expect(!isAllowed(head + "allow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page.html"))
        #expect(isAllowed(head + "allow: /page\ndisallow: /*.html\n", "FooBot", "http://foo.bar/page"))
        #expect(isAllowed(head + "allow: /x/page.\ndisallow: /*.html\n", "FooBot", url))
        #expect(!isAllowed(head + "allow: /x/page.\ndisallow: /*.html\n", "FooBot", "http://foo.bar/x/y.html"))
        let both = "User-agent: *\nDisallow: /x/\nUser-agent: FooBot\nDisallow: /y/\n"
        #expect(isAllowed(both, "FooBot", "http://foo.bar/x/page"))
        #expect(!isAllowed(both, "FooBot", "http://foo.bar/y/page"))
    }

    @Test func encoding() {
        let query = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar?qux=taz&baz=http://foo.bar?tar&par\n"
        #expect(isAllowed(query, "FooBot", "http://foo.bar/foo/bar?qux=taz&baz=http://foo.bar?tar&par"))
        for robots in [
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/ツ\n",
            "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%E3%83%84\n",
        ] {
            #expect(isAllowed(robots, "FooBot", "http://foo.bar/foo/bar/%E3%83%84"))
            // Google's matcher leaves the URL as given, so its raw ツ matches nothing (it expects
            // false); RFC 9309 §2.2.2 compares octets percent-encoded: allowed.
            #expect(isAllowed(robots, "FooBot", "http://foo.bar/foo/bar/ツ"))
        }
        let unreserved = "User-agent: FooBot\nDisallow: /\nAllow: /foo/bar/%62%61%7A\n"
        // Google's matcher compares the escapes as written (it expects false); RFC 9309 §2.2.2
        // decodes unreserved characters (its own example: /foo/bar/%62%61%7A matches /foo/bar/baz).
        #expect(isAllowed(unreserved, "FooBot", "http://foo.bar/foo/bar/baz"))
        #expect(isAllowed(unreserved, "FooBot", "http://foo.bar/foo/bar/%62%61%7A"))
    }

    @Test func specialCharacters() {
        let star = "User-agent: FooBot\nDisallow: /foo/bar/quz\nAllow: /foo/*/qux\n"
        #expect(!isAllowed(star, "FooBot", "http://foo.bar/foo/bar/quz"))
        #expect(isAllowed(star, "FooBot", "http://foo.bar/foo/quz"))
        #expect(isAllowed(star, "FooBot", "http://foo.bar/foo//quz"))
        #expect(isAllowed(star, "FooBot", "http://foo.bar/foo/bax/quz"))
        let dollar = "User-agent: FooBot\nDisallow: /foo/bar$\nAllow: /foo/bar/qux\n"
        #expect(!isAllowed(dollar, "FooBot", "http://foo.bar/foo/bar"))
        #expect(isAllowed(dollar, "FooBot", "http://foo.bar/foo/bar/qux"))
        #expect(isAllowed(dollar, "FooBot", "http://foo.bar/foo/bar/"))
        #expect(isAllowed(dollar, "FooBot", "http://foo.bar/foo/bar/baz"))
        let hash = "User-agent: FooBot\n# Disallow: /\nDisallow: /foo/quz#qux\nAllow: /\n"
        #expect(isAllowed(hash, "FooBot", "http://foo.bar/foo/bar"))
        #expect(!isAllowed(hash, "FooBot", "http://foo.bar/foo/quz"))
    }

    @Test func indexHtmlIsDirectory() {
        let robots = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"
        #expect(isAllowed(robots, "foobot", "http://foo.com/allowed-slash/"))
        #expect(!isAllowed(robots, "foobot", "http://foo.com/allowed-slash/index.htm"))
        #expect(isAllowed(robots, "foobot", "http://foo.com/allowed-slash/index.html"))
        #expect(!isAllowed(robots, "foobot", "http://foo.com/anyother-url"))
    }

    @Test func lineTooLong() {
        let maximum = 2083 * 8
        var longA = "/x/"
        var longB = "/x/"
        while longA.utf8.count < maximum - 3 - "allow: ".utf8.count + 1 {
            longA += "a"
            longB += "b"
        }
        let robots = "user-agent: FooBot\ndisallow: /\nallow: \(longA)/qux\nallow: \(longB)/qux\n"
        #expect(!isAllowed(robots, "FooBot", "http://foo.bar/"))
        #expect(isAllowed(robots, "FooBot", "http://foo.bar\(longA)/qux"))
        #expect(isAllowed(robots, "FooBot", "http://foo.bar\(longB)/fux"))
    }

    @Test(arguments: [
        (
            "allow: /fish\n",
            [
                "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html",
                "/fish.html?id=anything",
            ],
            ["/bar", "/Fish.asp", "/catfish", "/?id=fish"]
        ),
        (
            "allow: /fish*\n",
            [
                "/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fishheads/yummy.html",
                "/fish.html?id=anything",
            ],
            ["/bar", "/Fish.bar", "/catfish", "/?id=fish"]
        ),
        (
            "allow: /fish/\n",
            ["/fish/", "/fish/salmon", "/fish/?salmon", "/fish/salmon.html", "/fish/?id=anything"],
            ["/bar", "/fish", "/fish.html", "/Fish/Salmon.html"]
        ),
        (
            "allow: /*.php\n",
            [
                "/filename.php", "/folder/filename.php", "/folder/filename.php?parameters",
                "//folder/any.php.file.html",
                "/filename.php/", "/index?f=filename.php/",
            ],
            ["/bar", "/php/", "/index?php", "/windows.PHP"]
        ),
        (
            "allow: /*.php$\n",
            ["/filename.php", "/folder/filename.php"],
            [
                "/bar", "/filename.php?parameters", "/filename.php/", "/filename.php5", "/php/", "/filename?php",
                "/aaaphpaaa", "//windows.PHP",
            ]
        ),
        ("allow: /fish*.php\n", ["/fish.php", "/fishheads/catfish.php?parameters"], ["/bar", "/Fish.PHP"]),
    ])
    func documentationChecks(rule: String, allowed: [String], disallowed: [String]) {
        let robots = "user-agent: FooBot\ndisallow: /\n" + rule
        for path in allowed {
            #expect(isAllowed(robots, "FooBot", "http://foo.bar" + path), "\(rule) \(path)")
        }
        for path in disallowed {
            #expect(!isAllowed(robots, "FooBot", "http://foo.bar" + path), "\(rule) \(path)")
        }
    }

    @Test func documentationOrderOfPrecedence() {
        #expect(isAllowed("user-agent: FooBot\nallow: /p\ndisallow: /\n", "FooBot", "http://example.com/page"))
        #expect(
            isAllowed(
                "user-agent: FooBot\nallow: /folder\ndisallow: /folder\n", "FooBot", "http://example.com/folder/page"))
        #expect(
            !isAllowed("user-agent: FooBot\nallow: /page\ndisallow: /*.htm\n", "FooBot", "http://example.com/page.htm"))
        let root = "user-agent: FooBot\nallow: /$\ndisallow: /\n"
        #expect(isAllowed(root, "FooBot", "http://example.com/"))
        #expect(!isAllowed(root, "FooBot", "http://example.com/page.html"))
    }

    @Test func lineNumbersAreCountedCorrectly() {
        for robots in [
            "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /\n",
            "User-Agent: foo\r\nAllow: /some/path\r\nUser-Agent: bar\r\n\r\n\r\nDisallow: /\r\n",
            "User-Agent: foo\rAllow: /some/path\rUser-Agent: bar\r\r\rDisallow: /\r",
            "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\nDisallow: /",
            "User-Agent: foo\nAllow: /some/path\r\nUser-Agent: bar\n\r\n\nDisallow: /",
        ] {
            #expect(verdict(robots, "foo", "/some/path").rule?.line == 2)
            #expect(verdict(robots, "bar", "/x").rule?.line == 6)
        }
    }

    /// reporting_robots_test.cc's file, through what a verdict shows of each line: which lines are
    /// directives (line 3 without its colon, the misspelt 11 and 12, both sitemaps), which are not.
    @Test func reportingTestLinesAreReadAsGooglesReporterReadsThem() {
        let robots = """
            User-Agent: foo
            Allow: /some/path
            User-Agent bar # no
            absolutely random line
            #so comment, much wow

            unicorns: /extinct
            noarchive: /some
            Disallow: /
            Error #and comment
            useragent: baz
            disallaw: /some
            site-map: https://e/s.xml #comment
            sitemap: https://e/t.xml
            Noarchive: /someCapital

            """
        #expect(verdict(robots, "foo", "/some/path").rule?.line == 2)
        #expect(verdict(robots, "foo", "/x") == RobotsVerdict(allowed: true, rule: nil))
        #expect(verdict(robots, "bar", "/x").rule == RobotsRule(kind: .disallow, text: "Disallow: /", line: 9))
        #expect(verdict(robots, "baz", "/some").rule == RobotsRule(kind: .disallow, text: "disallaw: /some", line: 12))
        #expect(verdict(robots, "baz", "/x").allowed)
        #expect(RobotsTxt(robots).sitemaps == ["https://e/s.xml", "https://e/t.xml"])
        #expect(RobotsTxt(robots).lineCount == 16)
    }

    @Test func sitemapsAreReadBeforeOrAfterTheGroups() {
        let groups = "User-Agent: foo\nAllow: /some/path\nUser-Agent: bar\n\n\n"
        let sitemap = "Sitemap: http://foo.bar/sitemap.xml\n"
        #expect(RobotsTxt(groups + sitemap).sitemaps == ["http://foo.bar/sitemap.xml"])
        #expect(RobotsTxt(sitemap + groups).sitemaps == ["http://foo.bar/sitemap.xml"])
    }

    @Test(arguments: [
        ("", "/"), ("http://www.example.com", "/"), ("http://www.example.com/", "/"),
        ("http://www.example.com/a", "/a"),
        ("http://www.example.com/a/", "/a/"), ("http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"),
        ("http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"), ("example.com", "/"), ("example.com/", "/"),
        ("example.com/a", "/a"), ("example.com/a/", "/a/"), ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("a", "/"), ("a/", "/"), ("/a", "/a"), ("a/b", "/b"), ("example.com?a", "/?a"), ("example.com/a;b#c", "/a;b"),
        ("//a/b/c", "/b/c"),
    ])
    func pathParamsQuery(url: String, path: String) {
        #expect(RobotsTxt.pathAndQuery(ofURL: url) == path)
    }

    @Test func patternsAreEscapedAsGooglesMatcherEscapesThem() {
        // TestMaybeEscapePattern: á is %C3%A1, %aa is %AA; both forms then match alike.
        #expect(!isAllowed("User-agent: *\nDisallow: /á\n", "a", "/%C3%A1"))
        #expect(!isAllowed("User-agent: *\nDisallow: /%aa\n", "a", "/%AA"))
        #expect(!isAllowed("User-agent: *\nDisallow: /%AA\n", "a", "/%aa"))
    }
}
