import BatchFetchRobots
import Testing

struct RobotsMatchingTests {
    @Test func theLongestMatchingPatternWinsAndAllowWinsATie() {
        let robots = "User-agent: *\nDisallow: /x/\nAllow: /x/page\nDisallow: /x/page.html\nAllow: /y\nDisallow: /y\n"
        #expect(verdict(robots, "a", "/x/other").rule?.line == 2)
        #expect(
            verdict(robots, "a", "/x/page2")
                == RobotsVerdict(
                    allowed: true, rule: RobotsRule(kind: .allow, text: "Allow: /x/page", line: 3)))
        #expect(!isAllowed(robots, "a", "/x/page.html"))
        #expect(verdict(robots, "a", "/y").rule == RobotsRule(kind: .allow, text: "Allow: /y", line: 5))
    }

    @Test func lengthCountsThePatternsOctetsWildcardsIncluded() {
        // `/*.html` (7) beats `/page` (5) on /page.html.
        #expect(!isAllowed("User-agent: *\nAllow: /page\nDisallow: /*.html\n", "a", "/page.html"))
        #expect(isAllowed("User-agent: *\nAllow: /x/page.\nDisallow: /*.html\n", "a", "/x/page.html"))
    }

    @Test func amongEquallyLongMatchesTheFirstLineIsReported() {
        let robots = "User-agent: *\nDisallow: /a*\nDisallow: /ab\nDisallow: /a*\n"
        #expect(verdict(robots, "a", "/abc").rule?.line == 2)
    }

    @Test func starMatchesAnyRunAndDollarAnchorsTheEnd() {
        let robots = "User-agent: *\nDisallow: /\nAllow: /*.php$\nAllow: /fish*.txt\nAllow: /a$b\n"
        #expect(isAllowed(robots, "a", "/x/file.php"))
        #expect(!isAllowed(robots, "a", "/x/file.php?x"))
        #expect(!isAllowed(robots, "a", "/x/file.php5"))
        #expect(isAllowed(robots, "a", "/fishheads/cat.txt?p"))
        #expect(!isAllowed(robots, "a", "/Fish.txt"))
        // A `$` before the end is a literal one.
        #expect(isAllowed(robots, "a", "/a$b"))
        #expect(isAllowed(robots, "a", "/a%24b"))
        #expect(!isAllowed(robots, "a", "/ab"))
        #expect(!isAllowed("User-agent: *\nDisallow: /*\n", "a", "/"))
        #expect(!isAllowed("User-agent: *\nDisallow: /**a**b*$\n", "a", "/xaxb"))
        #expect(isAllowed("User-agent: *\nDisallow: /*a*b$\n", "a", "/xbxa"))
    }

    @Test func percentEncodingIsNormalisedOnBothSides() {
        let robots = "User-agent: *\nDisallow: /%7Euser/\nDisallow: /a%2fb\nDisallow: /ツ\nDisallow: /%62%61%7A\n"
        #expect(!isAllowed(robots, "a", "/~user/x"))
        #expect(!isAllowed(robots, "a", "/%7euser/x"))
        #expect(!isAllowed(robots, "a", "/a%2Fb"))
        // A reserved character's escape is not the character.
        #expect(isAllowed(robots, "a", "/a/b"))
        #expect(!isAllowed(robots, "a", "/%E3%83%84"))
        #expect(!isAllowed(robots, "a", "/ツ"))
        #expect(!isAllowed(robots, "a", "/baz"))
    }

    @Test func whatAURICannotHoldIsMatchedByItsEscape() {
        let robots = "User-agent: *\nDisallow: /a b\nDisallow: /x|y\nDisallow: /100%\n"
        #expect(!isAllowed(robots, "a", "/a%20b"))
        #expect(!isAllowed(robots, "a", "/a b"))
        #expect(!isAllowed(robots, "a", "/x%7cy"))
        #expect(!isAllowed(robots, "a", "/100%25"))
        #expect(isAllowed(robots, "a", "/100"))
    }

    @Test func literalStarAndDollarInAURLAreMatchedByTheirEscapes() {
        let robots = "User-agent: *\nDisallow: /file-with-a-%2A.html\nDisallow: /foo-%24\n"
        #expect(!isAllowed(robots, "a", "/file-with-a-*.html"))
        #expect(!isAllowed(robots, "a", "/foo-$"))
        #expect(isAllowed(robots, "a", "/file-with-a-x.html"))
    }

    @Test func matchingIsCaseSensitive() {
        let robots = "User-agent: *\nDisallow: /X/\n"
        #expect(isAllowed(robots, "a", "/x/y"))
        #expect(!isAllowed(robots, "a", "/X/y"))
    }

    @Test func theQueryIsPartOfWhatIsMatched() {
        let robots = "User-agent: *\nDisallow: /*?sort=\nDisallow: /search?q\n"
        #expect(!isAllowed(robots, "a", "/list?sort=asc"))
        #expect(!isAllowed(robots, "a", "http://h/search?q=1#frag"))
        #expect(isAllowed(robots, "a", "/search"))
    }

    @Test func robotsTxtItselfIsAlwaysAllowed() {
        let robots = "User-agent: *\nDisallow: /\n"
        #expect(verdict(robots, "a", "/robots.txt") == RobotsVerdict(allowed: true, rule: nil))
        #expect(verdict(robots, "a", "http://h/robots.txt").allowed)
        #expect(!isAllowed(robots, "a", "/robots.txt?x"))
    }

    @Test func emptyValuesMatchNothing() {
        let matcher = RobotsTxt("User-agent: *\nDisallow:\nAllow:\n").matcher(for: RobotsAgent("a")!)
        #expect(matcher.verdict(forPath: "/x") == RobotsVerdict(allowed: true, rule: nil))
    }

    @Test func anAllowOfIndexHtmlAlsoAllowsItsDirectory() {
        let robots = "User-Agent: *\nAllow: /allowed-slash/index.html\nDisallow: /\n"
        #expect(verdict(robots, "a", "/allowed-slash/").rule?.line == 2)
        #expect(!isAllowed(robots, "a", "/allowed-slash/index.htm"))
        #expect(isAllowed(robots, "a", "/allowed-slash/index.html"))
        #expect(!isAllowed(robots, "a", "/anyother-url"))
    }

    @Test func manyRulesAreMatchedLikeFew() {
        // The same verdicts from 1,000 rules as from each rule checked alone with a plain matcher.
        var generator = SplitMix64(seed: 52)
        let words = ["a", "b", "ab", "ba", "x", ".php", "%41", "~", "*", "/", "?q=", "é"]
        func word() -> String { words[Int(generator.next() % UInt64(words.count))] }
        var lines = ["User-agent: *"]
        for index in 0..<1000 {
            let pattern = "/" + (0..<(1 + Int(generator.next() % 4))).map { _ in word() }.joined()
            lines.append("\(index % 3 == 0 ? "Allow" : "Disallow"): \(pattern)\(index % 7 == 0 ? "$" : "")")
        }
        let many = RobotsTxt(lines.joined(separator: "\n")).matcher(for: RobotsAgent("a")!)
        let singles = lines.dropFirst().map { RobotsTxt("User-agent: *\n" + $0).matcher(for: RobotsAgent("a")!) }
        for _ in 0..<500 {
            let path = "/" + (0..<Int(generator.next() % 5)).map { _ in word() }.joined()
            var expected = RobotsVerdict(allowed: true, rule: nil)
            var best = (priority: 0, allow: false, line: 0)
            for (offset, line) in lines.enumerated().dropFirst() {
                guard let rule = singles[offset - 1].verdict(forPath: path).rule else {
                    continue
                }
                let normal = NaiveMatcher.normalised(line.split(separator: " ", maxSplits: 1)[1])
                let candidate = (priority: normal, allow: rule.kind == .allow, line: offset + 1)
                let better =
                    candidate.priority > best.priority
                    || (candidate.priority == best.priority && candidate.allow && !best.allow)
                    || (candidate.priority == best.priority && candidate.allow == best.allow
                        && candidate.line < best.line)
                if better {
                    best = candidate
                    expected = RobotsVerdict(
                        allowed: candidate.allow, rule: RobotsRule(kind: rule.kind, text: rule.text, line: offset + 1))
                }
            }
            #expect(many.verdict(forPath: path) == expected, "\(path)")
        }
    }
}

/// The length of a pattern in normal form, counted the slow way.
enum NaiveMatcher {
    static func normalised(_ pattern: Substring) -> Int {
        var count = 0
        var octets = Array(pattern.utf8)[...]
        while let octet = octets.first {
            if octet == UInt8(ascii: "%"), octets.count >= 3 {
                let hex = String(decoding: octets.dropFirst().prefix(2), as: UTF8.self)
                if let value = UInt8(hex, radix: 16) {
                    let unreserved =
                        Character(Unicode.Scalar(value)).isLetter || Character(Unicode.Scalar(value)).isNumber
                        || "-._~".utf8.contains(value)
                    count += unreserved && value < 0x80 ? 1 : 3
                    octets = octets.dropFirst(3)
                    continue
                }
            }
            count += octet >= 0x80 || (octet == UInt8(ascii: "$") && octets.count > 1) ? 3 : 1
            octets = octets.dropFirst()
        }
        return count
    }
}

/// A seeded generator (SplitMix64), so that a failure repeats.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) {
        self.state = seed
    }

    mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        var z = self.state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
