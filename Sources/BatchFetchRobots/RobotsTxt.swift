/// A robots.txt file, parsed once (RFC 9309), from which a ``RobotsMatcher`` per product token
/// answers whether a URL may be fetched.
///
/// Parsing follows Google's open-source matcher where the RFC leaves a choice: a UTF-8 byte order
/// mark is skipped, lines end at CR, LF or CRLF, `#` starts a comment, a line longer than 16,663
/// octets is cut there, a line without a colon is read when a space separates exactly two words,
/// common misspellings of the keys count (`useragent`, `disalow`, `site-map`…), and any line that
/// cannot be read is skipped. Only the first ``maximumSize`` octets are read (RFC 9309 §2.5); the
/// rest is ignored.
///
/// Consecutive `User-agent:` lines open one group; a group ends at the next `User-agent:` line
/// that follows one of its rules. `Sitemap:`, `Crawl-delay:` and unknown lines neither open nor end
/// a group.
///
/// No I/O: bytes in, rules out. A value type: immutable and safe to share between threads.
public struct RobotsTxt: Sendable {
    /// How much of a robots.txt is read: 500 KiB (RFC 9309 §2.5 asks for at least 500 kibibytes).
    public static let maximumSize = 500 * 1024

    /// The robots.txt that allows everything (what a missing robots.txt means, RFC 9309 §2.3.1.3).
    public static let allowingAll = RobotsTxt([UInt8]())

    /// The groups in file order.
    let groups: [Group]

    /// The values of the `Sitemap:` lines, in file order.
    public let sitemaps: [String]

    /// The number of lines read.
    public let lineCount: Int

    /// Parses a robots.txt body; only its first ``maximumSize`` octets are read.
    public init(_ body: some Collection<UInt8>) {
        var parser = RobotsTxtParser()
        Array(body.prefix(Self.maximumSize)).withUnsafeBufferPointer { parser.parse($0) }
        self.groups = parser.groups
        self.sitemaps = parser.sitemaps
        self.lineCount = parser.lineCount
    }

    /// Parses a robots.txt held as text (its UTF-8 octets).
    public init(_ text: String) {
        self.init(Array(text.utf8))
    }

    /// The matcher for one product token: the rules of the groups that name it, merged, or those of
    /// the `*` groups when none names it (a named group never inherits the `*` group's rules).
    public func matcher(for agent: RobotsAgent) -> RobotsMatcher {
        let named = self.groups.filter { group in
            group.agents.contains { value in value.map { agent.isNamed(by: $0[...]) } ?? false }
        }
        if !named.isEmpty {
            return RobotsMatcher(groups: named, applied: .agent)
        }
        let global = self.groups.filter { $0.agents.contains(nil) }
        return RobotsMatcher(groups: global, applied: global.isEmpty ? .none : .global)
    }
}

extension RobotsTxt {
    /// One group: the `User-agent:` lines that open it and the rules that follow them.
    struct Group: Sendable {
        /// Each `User-agent:` value, `nil` for `*`.
        var agents: [[UInt8]?] = []
        /// The line number of the group's first `User-agent:` line.
        var firstLine: Int
        var rules: [Rule] = []
        /// The first valid `Crawl-delay:` of the group, in seconds.
        var crawlDelay: Double?
    }

    /// An `Allow:` or `Disallow:` line, with its value in normal form (see RobotsPercentEncoding).
    struct Rule: Sendable {
        let rule: RobotsRule
        let pattern: [UInt8]
    }
}
