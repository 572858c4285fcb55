import BatchFetch
import BatchFetchRobots
import Synchronization

/// One origin's robots.txt, read: the rules that decide its requests, and what they decided.
///
/// Threading: immutable but for its counts (atomics); ``refusal(of:)`` on the engine thread,
/// ``verdict(forURL:)`` and ``report`` from any.
final class OriginRobots: OriginRules {
    let origin: String
    let robotsURL: String
    let reading: RobotsReading
    let obeys: Bool
    /// Why every request of the origin is refused (`obey`) or would be (`report`): unreachable, or
    /// a crawl delay over the cap.
    let closed: FetchError?
    let startInterval: Duration?
    /// Where a kept copy (`--cache`) came in, for the report; `nil` when fetched in this run.
    let cacheNote: String?
    private let crawlDelay: Double?
    private let allowed = Atomic<Int>(0)
    private let disallowed = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)

    init(origin: String, reading: RobotsReading, policy: RobotsPolicy, cacheNote: String? = nil) {
        self.origin = origin
        self.cacheNote = cacheNote
        self.robotsURL = origin + "/robots.txt"
        self.reading = reading
        self.obeys = policy.mode == .obey
        var closed: FetchError? = nil
        var delay: Double? = nil
        switch reading {
        case .rules(let matcher, _, _):
            delay = matcher.crawlDelay
            if let seconds = delay, seconds > policy.maxCrawlDelay {
                closed = FetchError(
                    kind: .robotsCrawlDelay,
                    message:
                        "\(self.robotsURL) asks for Crawl-delay: \(Self.seconds(seconds)) s, over "
                        + "--max-crawl-delay \(Self.seconds(policy.maxCrawlDelay)) s: none of its URLs is fetched")
            }
        case .allowAll:
            break
        case .unreachable(_, let reason):
            closed = FetchError(
                kind: .robotsUnreachable,
                message:
                    "\(self.robotsURL) could not be read (\(reason)): none of its URLs is fetched "
                    + "(RFC 9309 §2.3.1.4); a later run may read it")
        }
        self.crawlDelay = delay
        self.closed = closed
        if self.obeys, closed == nil, let delay, delay > 0 {
            self.startInterval = .milliseconds(Int64((delay * 1000).rounded()))
        } else {
            self.startInterval = nil
        }
    }

    func refusal(of request: Request) -> FetchError? {
        if let closed = self.closed {
            self.refused.add(1, ordering: .relaxed)
            return self.obeys ? closed : nil
        }
        guard case .rules(let matcher, _, _) = self.reading else {
            self.allowed.add(1, ordering: .relaxed)
            return nil
        }
        let verdict = Self.verdict(of: matcher, forURL: request.url)
        if verdict.allowed {
            self.allowed.add(1, ordering: .relaxed)
            return nil
        }
        self.disallowed.add(1, ordering: .relaxed)
        guard self.obeys else {
            return nil
        }
        let rule = verdict.rule.map { "\"\($0.text)\" (line \($0.line))" } ?? "a rule"
        return FetchError(kind: .robotsDisallowed, message: "\(self.robotsURL) disallows it: \(rule)")
    }

    func verdict(forURL url: String) -> RobotsRecordVerdict {
        if self.closed != nil {
            return RobotsRecordVerdict(allowed: false, rule: nil, line: nil, robotsURL: self.robotsURL)
        }
        guard case .rules(let matcher, _, _) = self.reading else {
            return RobotsRecordVerdict(allowed: true, rule: nil, line: nil, robotsURL: self.robotsURL)
        }
        let verdict = Self.verdict(of: matcher, forURL: url)
        return RobotsRecordVerdict(
            allowed: verdict.allowed, rule: verdict.rule?.text, line: verdict.rule?.line, robotsURL: self.robotsURL)
    }

    var report: RobotsOriginReport {
        var report = RobotsOriginReport(origin: self.origin, robotsURL: self.robotsURL)
        switch self.reading {
        case .rules(let matcher, let status, let bytes):
            report.status = status
            report.bytes = bytes
            switch matcher.appliedGroup {
            case .agent: report.group = "agent"
            case .global: report.group = "*"
            case .none: report.group = "none"
            }
            report.outcome = self.closed == nil ? "rules" : "crawl delay over the cap"
        case .allowAll(let status, let reason):
            report.status = status
            report.outcome = "allow all (\(reason))"
        case .unreachable(let status, let reason):
            report.status = status
            report.outcome = "unreachable (\(reason))"
        }
        report.crawlDelay = self.crawlDelay
        report.cache = self.cacheNote
        report.allowed = self.allowed.load(ordering: .relaxed)
        report.disallowed = self.disallowed.load(ordering: .relaxed)
        report.refused = self.refused.load(ordering: .relaxed)
        return report
    }

    /// `matcher`'s verdict for `url`, read in place: the path and query of an absolute http(s) URL
    /// (from the first `/` or `?` after its authority to a `#`) go to the matcher as a slice of the
    /// URL's bytes, where ``RobotsTxt/pathAndQuery(ofURL:)`` builds two copies. Anything else goes
    /// that way.
    static func verdict(of matcher: RobotsMatcher, forURL url: String) -> RobotsVerdict {
        let bytes = url.utf8
        var index = bytes.startIndex
        var slashes = 0
        while index != bytes.endIndex && slashes < 2 {
            let byte = bytes[index]
            if byte == UInt8(ascii: "/") {
                slashes += 1
            } else if slashes > 0 || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") {
                return matcher.verdict(forURL: url)
            }
            index = bytes.index(after: index)
        }
        guard slashes == 2, let start = bytes[index...].firstIndex(where: { $0 == 0x2F || $0 == 0x3F || $0 == 0x3B }),
            bytes[start] == UInt8(ascii: "/")
        else {
            return matcher.verdict(forURL: url)
        }
        let end = bytes[start...].firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        return matcher.verdict(forPath: bytes[start..<end])
    }

    /// `value` seconds as a short decimal: `2`, `0.5`.
    static func seconds(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
    }
}

/// What one record says of robots.txt (`"robots"` in records; a `robotsDisallowed` error's details).
public struct RobotsRecordVerdict: Sendable, Hashable {
    public let allowed: Bool
    /// The deciding rule as written (`Disallow: /tmp/`), `nil` when none matched.
    public let rule: String?
    /// The rule's line in robots.txt.
    public let line: Int?
    public let robotsURL: String
}

/// What one origin's robots.txt said and did in a run (`--stats`, the summary).
public struct RobotsOriginReport: Sendable, Hashable, Encodable {
    public let origin: String
    public let robotsURL: String
    /// robots.txt's HTTP status, when it was answered.
    public var status: Int?
    /// Its body's size.
    public var bytes = 0
    /// The group that applied: `agent` (the product token's), `*`, or `none`.
    public var group: String?
    /// Its `Crawl-delay`, in seconds.
    public var crawlDelay: Double?
    /// `rules`, `allow all (…)`, `unreachable (…)` or `crawl delay over the cap`.
    public var outcome = ""
    /// With `--cache`: that a kept copy was used, how old, and why (`kept copy 2.5 hours old`).
    public var cache: String?
    /// Requests its rules allowed, disallowed, and refused whole (unreachable, or a delay over the cap).
    public var allowed = 0
    public var disallowed = 0
    public var refused = 0

    init(origin: String, robotsURL: String) {
        self.origin = origin
        self.robotsURL = robotsURL
    }

    enum CodingKeys: String, CodingKey {
        case origin, status, bytes, group, outcome, allowed, disallowed, refused, cache
        case robotsURL = "robots_url"
        case crawlDelay = "crawl_delay"
    }
}
