import BatchFetch
import BatchFetchRobots
import Foundation
import Synchronization

extension FetchError.Kind {
    /// The origin's robots.txt disallows the URL (`--robots obey`): not requested. A policy, not a
    /// failure: such records alone leave the exit status 0.
    public static let robotsDisallowed = FetchError.Kind(rawValue: "robotsDisallowed")
    /// The origin's robots.txt could not be read (5xx, 429, a timeout, a refused or reset
    /// connection, after the usual retries): nothing of the origin is requested (RFC 9309 §2.3.1.4).
    public static let robotsUnreachable = FetchError.Kind(rawValue: "robotsUnreachable")
    /// The origin's robots.txt asks for a `Crawl-delay` over `--max-crawl-delay`: not requested.
    public static let robotsCrawlDelay = FetchError.Kind(rawValue: "robotsCrawlDelay")
}

/// robots.txt (RFC 9309) as an ``OriginPolicy``: each origin's `/robots.txt` is read before any
/// other of its requests, and its rules for one product token then decide each request (`obey`)
/// or only what each record says (`report`). Where the RFC leaves a choice, as Google's crawler
/// does: up to five redirects followed, 4xx allows everything, 5xx and network failures (after
/// the usual retries) make the origin unreachable, and nothing of it is requested.
///
/// Threading: the engine calls it on its thread; ``verdict(forURL:)`` and ``report`` from any.
public final class RobotsPolicy: OriginPolicy {
    /// What the rules do.
    public enum Mode: String, Sendable, CaseIterable {
        /// A URL its robots.txt disallows is not requested; its record says why.
        case obey
        /// Every URL is requested; every record carries the verdict.
        case report
    }

    public let mode: Mode
    public let agent: RobotsAgent
    /// The longest `Crawl-delay` kept, in seconds; an origin asking more is not fetched (`obey`).
    public let maxCrawlDelay: Double
    /// Redirects of a robots.txt followed at most (RFC 9309 §2.3.1.2: at least five).
    public static let maxRedirects = 5

    private let origins = Mutex<[String: OriginRobots]>([:])
    /// robots.txt's exchanges not yet taken by an archive (`--warc`), and how many: read at every
    /// record, so the count spares the lock while there are none.
    private let exchanges = Mutex<[Exchange]>([])
    private let exchangeCount = Atomic<Int>(0)
    private let cache: RobotsCache?

    /// How a `--cache` directory keeps robots.txt files (`--cache-mode`).
    public typealias CacheMode = RobotsCacheMode

    /// - Parameter cache: a `--cache` directory to keep robots.txt files in (`DIR/robots/`), and how.
    public init(
        mode: Mode, agent: RobotsAgent, maxCrawlDelay: Double = 30, cache: (directory: String, mode: CacheMode)? = nil
    ) {
        self.mode = mode
        self.agent = agent
        self.maxCrawlDelay = maxCrawlDelay
        self.cache = cache.map { RobotsCache(directory: $0.directory, mode: $0.mode) }
    }

    public func preflight(for origin: String) -> OriginStep? {
        if let cache = self.cache {
            if let entry = cache.answer(for: origin) {
                return .rules(self.rules(origin, RobotsReading(kept: entry, agent: self.agent), kept: entry))
            }
            if cache.mode == .only {
                let reading = RobotsReading.unreachable(status: nil, reason: "not in the cache (--cache-mode only)")
                return .rules(self.rules(origin, reading, kept: nil))
            }
        }
        return .send(Request(origin + "/robots.txt"))
    }

    public func keep(_ exchanges: [Exchange]) {
        self.exchanges.withLock { $0 += exchanges }
        self.exchangeCount.add(exchanges.count, ordering: .releasing)
    }

    /// The robots.txt exchanges kept since the last call, for an archive.
    public func takeExchanges() -> [Exchange] {
        guard self.exchangeCount.load(ordering: .acquiring) > 0 else {
            return []
        }
        return self.exchanges.withLock { kept in
            let taken = kept
            kept = []
            self.exchangeCount.subtract(taken.count, ordering: .releasing)
            return taken
        }
    }

    public func answered(_ origin: String, hop: Int, request: Request, outcome: Result<Response, FetchError>)
        -> OriginStep
    {
        if case .success(let response) = outcome, let next = Self.redirect(response, of: request.url) {
            if hop < Self.maxRedirects {
                return .send(Request(next))
            }
        }
        let reading = RobotsReading(outcome, hops: hop, agent: self.agent)
        guard let cache = self.cache else {
            return .rules(self.rules(origin, reading, kept: nil))
        }
        switch (reading, outcome) {
        case (.unreachable(_, let reason), _):
            if let entry = cache.fallback(for: origin) {
                let kept = RobotsReading(kept: entry, agent: self.agent)
                return .rules(self.rules(origin, kept, kept: entry, unreachable: reason))
            }
        case (_, .success(let response)) where response.status < 300 || (400..<500).contains(response.status):
            cache.store(origin, status: response.status, body: response.status < 300 ? response.body : Data())
        default:
            break
        }
        return .rules(self.rules(origin, reading, kept: nil))
    }

    /// `origin`'s rules from `reading`, registered for records and the report.
    private func rules(_ origin: String, _ reading: RobotsReading, kept: RobotsCache.Entry?, unreachable: String? = nil)
        -> OriginRobots
    {
        var note: String? = nil
        if let kept {
            let hours = max(0, Date().timeIntervalSince1970 - kept.fetchedAt) / 3600
            let age = hours < 48 ? String(format: "%.1f hours", hours) : String(format: "%.1f days", hours / 24)
            note = unreachable.map { "kept copy \(age) old used: unreachable (\($0))" } ?? "kept copy \(age) old"
        }
        let robots = OriginRobots(origin: origin, reading: reading, policy: self, cacheNote: note)
        self.origins.withLock { $0[origin] = robots }
        return robots
    }

    /// What `url`'s record says of robots.txt; `nil` when its origin's was never read (the URL never
    /// came up for sending: refused before, or the run stopped first).
    public func verdict(forURL url: String) -> RobotsRecordVerdict? {
        let origin = Origin.of(url)
        return self.origins.withLock { $0[origin] }?.verdict(forURL: url)
    }

    /// What each origin's robots.txt said and did, by origin.
    public var report: [RobotsOriginReport] {
        self.origins.withLock { Array($0.values) }.map(\.report).sorted { $0.origin < $1.origin }
    }

    /// The next hop's absolute URL when `response` is a redirect to follow (to http or https).
    static func redirect(_ response: Response, of url: String) -> String? {
        guard (300..<400).contains(response.status), response.status != 304,
            let location = response.headers["location"], !location.isEmpty,
            let next = URL(string: location, relativeTo: URL(string: url))?.absoluteString
        else {
            return nil
        }
        let scheme = next.prefix { $0 != ":" }.lowercased()
        return scheme == "http" || scheme == "https" ? next : nil
    }
}

/// What a robots.txt fetch brought, as RFC 9309 §2.3.1 reads it.
enum RobotsReading: Sendable {
    /// 2xx: the rules for the agent.
    case rules(RobotsMatcher, status: Int, bytes: Int)
    /// 4xx (but 429), a redirect not followed, or too many: everything allowed.
    case allowAll(status: Int?, reason: String)
    /// 5xx, 429, or no answer: nothing allowed.
    case unreachable(status: Int?, reason: String)

    /// A file kept from an earlier run (``RobotsCache``): its rules, or everything allowed.
    init(kept entry: RobotsCache.Entry, agent: RobotsAgent) {
        if entry.status < 300 {
            let robots = RobotsTxt(entry.body)
            self = .rules(robots.matcher(for: agent), status: entry.status, bytes: entry.body.count)
        } else {
            self = .allowAll(status: entry.status, reason: "HTTP status \(entry.status)")
        }
    }

    init(_ outcome: Result<Response, FetchError>, hops: Int, agent: RobotsAgent) {
        switch outcome {
        case .failure(let error):
            self = .unreachable(status: error.status, reason: "\(error.kind): \(error.message)")
        case .success(let response):
            let status = response.status
            switch status {
            case 200..<300:
                let robots = RobotsTxt(response.body)
                self = .rules(robots.matcher(for: agent), status: status, bytes: response.body.count)
            case 300..<400:
                let reason =
                    hops >= RobotsPolicy.maxRedirects
                    ? "more than \(RobotsPolicy.maxRedirects) redirects" : "a redirect that cannot be followed"
                self = .allowAll(status: status, reason: reason)
            case 429, 500...:
                self = .unreachable(status: status, reason: "HTTP status \(status)")
            case 400..<500:
                self = .allowAll(status: status, reason: "HTTP status \(status)")
            default:
                self = .unreachable(status: status, reason: "HTTP status \(status)")
            }
        }
    }
}
