/// Answers, for one product token, whether URLs of one robots.txt's origin may be fetched, and
/// which rule decided.
///
/// Built once per (robots.txt, agent) by ``RobotsTxt/matcher(for:)``; each verdict then costs no
/// allocation for paths of ordinary length. The longest matching pattern (in octets, after
/// percent-encoding normalisation) wins, `Allow` wins a tie, and a URL no rule matches is allowed
/// (RFC 9309 §2.2.2). `/robots.txt` is always allowed (§2.2.2).
///
/// A value type: immutable and safe to share between threads.
public struct RobotsMatcher: Sendable {
    /// Which groups of the robots.txt apply to the agent.
    public enum AppliedGroup: Sendable, Hashable {
        /// Groups that name the agent.
        case agent
        /// The `*` groups, as none names the agent.
        case global
        /// No group: everything is allowed.
        case none
    }

    /// Which groups apply.
    public let appliedGroup: AppliedGroup
    /// The line numbers of the first `User-agent:` line of each group that applies.
    public let groupLines: [Int]
    /// The `Crawl-delay:` of the groups that apply, in seconds: the first valid one (a non-negative
    /// decimal number), or `nil` if they have none.
    public let crawlDelay: Double?

    let index: RobotsRuleIndex

    init(groups: [RobotsTxt.Group], applied: AppliedGroup) {
        self.appliedGroup = applied
        self.groupLines = groups.map(\.firstLine)
        self.crawlDelay = groups.lazy.compactMap(\.crawlDelay).first
        self.index = RobotsRuleIndex(rules: groups.flatMap(\.rules))
    }

    /// The verdict for a URL's path and query as sent in the request line (`/a/b?c=d`, no
    /// fragment); an empty one stands for `/`.
    public func verdict(forPath pathAndQuery: String) -> RobotsVerdict {
        var pathAndQuery = pathAndQuery
        return pathAndQuery.withUTF8 { self.verdict(forPathOctets: $0) }
    }

    /// The verdict for a URL's path and query given as octets.
    public func verdict(forPath pathAndQuery: some Collection<UInt8>) -> RobotsVerdict {
        if let verdict = pathAndQuery.withContiguousStorageIfAvailable({ self.verdict(forPathOctets: $0) }) {
            return verdict
        }
        return Array(pathAndQuery).withUnsafeBufferPointer { self.verdict(forPathOctets: $0) }
    }

    /// The verdict for a whole URL, whose path and query are found as Google's matcher finds them
    /// (see ``RobotsTxt/pathAndQuery(ofURL:)``).
    public func verdict(forURL url: String) -> RobotsVerdict {
        self.verdict(forPath: RobotsTxt.pathAndQuery(ofURL: url))
    }

    /// Whether a URL's path and query may be fetched.
    public func isAllowed(path pathAndQuery: String) -> Bool {
        self.verdict(forPath: pathAndQuery).allowed
    }

    private func verdict(forPathOctets octets: UnsafeBufferPointer<UInt8>) -> RobotsVerdict {
        if octets.isEmpty {
            return Self.slash.withUnsafeBufferPointer { self.verdict(forPathOctets: $0) }
        }
        if RobotsPercentEncoding.isNormalPath(octets) {
            return self.verdict(forNormalPath: octets)
        }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: octets.count * 3) { buffer in
            let count = RobotsPercentEncoding.normalizePath(octets, into: buffer)
            return self.verdict(forNormalPath: UnsafeBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    private func verdict(forNormalPath path: UnsafeBufferPointer<UInt8>) -> RobotsVerdict {
        if path.count == 11 && path.elementsEqual(Self.robotsTxtPath) {
            return RobotsVerdict(allowed: true, rule: nil)
        }
        let best = self.index.bestMatches(path)
        if best.disallowPriority > best.allowPriority {
            return RobotsVerdict(allowed: false, rule: self.index.rules[Int(best.disallow)])
        }
        if best.allowPriority > 0 {
            return RobotsVerdict(allowed: true, rule: self.index.rules[Int(best.allow)])
        }
        return RobotsVerdict(allowed: true, rule: nil)
    }

    private static let slash: [UInt8] = [UInt8(ascii: "/")]
    private static let robotsTxtPath: [UInt8] = Array("/robots.txt".utf8)
}
