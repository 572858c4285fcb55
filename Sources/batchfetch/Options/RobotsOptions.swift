import ArgumentParser
import BatchFetch
import BatchFetchRobots
import BatchFetchRobotsPolicy

/// `--robots`, `--robots-agent`, `--max-crawl-delay`: robots.txt, which `fetch` and `crawl` share
/// (docs/ROBOTS.md).
struct RobotsOptions: ParsableArguments {
    @Option(
        help: """
            Read each origin's robots.txt first (RFC 9309): obey (disallowed URLs are not requested, their \
            records say why) or report (everything fetched, each record carries the verdict). Default: not read.
            """)
    var robots: RobotsPolicy.Mode?

    @Option(help: "With --robots: the product token matched against User-agent lines (letters, '_' and '-').")
    var robotsAgent = "batchfetch"

    @Option(
        help: ArgumentHelp(
            "With --robots obey: an origin asking for a longer Crawl-delay is not fetched.", valueName: "SECONDS"))
    var maxCrawlDelay: Double = 30

    func validate() throws {
        if self.robots == nil && (self.robotsAgent != "batchfetch" || self.maxCrawlDelay != 30) {
            throw ValidationError("--robots-agent and --max-crawl-delay need --robots obey|report")
        }
        if !RobotsAgent.isValidToken(self.robotsAgent) {
            throw ValidationError(
                "--robots-agent '\(self.robotsAgent)' is not a product token: use letters, '_' and '-' only")
        }
        if !(self.maxCrawlDelay >= 0) || !self.maxCrawlDelay.isFinite {
            throw ValidationError("--max-crawl-delay \(self.maxCrawlDelay) is out of range: give 0 or more seconds")
        }
    }

    /// The policy these flags ask for, keeping robots.txt in `cache`'s directory when given;
    /// `nil` without `--robots`.
    func policy(cache: CacheOptions) -> RobotsPolicy? {
        guard let mode = self.robots, let agent = RobotsAgent(self.robotsAgent) else {
            return nil
        }
        let keeping: RobotsPolicy.CacheMode =
            switch cache.cacheMode {
            case .use: .use
            case .refresh: .refresh
            case .only: .only
            }
        let kept = cache.cache.map { (directory: $0, mode: keeping) }
        return RobotsPolicy(mode: mode, agent: agent, maxCrawlDelay: self.maxCrawlDelay, cache: kept)
    }

    /// Puts `policy` into `configuration`, and the product token into its default User-Agent when
    /// the token is not batchfetch's own (a user's own User-Agent is left as it is).
    func apply(_ policy: RobotsPolicy?, to configuration: inout Engine.Configuration, userAgentGiven: Bool) {
        guard let policy else {
            return
        }
        configuration.originPolicy = policy
        if !userAgentGiven && policy.agent.token.lowercased() != "batchfetch" {
            configuration.userAgent = "\(policy.agent.token) (batchfetch/\(BatchFetch.version))"
        }
    }

    /// The summary lines for standard error: one per origin.
    static func summary(_ origins: [RobotsOriginReport]) -> String {
        var text = ""
        for origin in origins {
            text += "robots: \(origin.robotsURL): "
            text += origin.status.map { "\($0), \(origin.bytes) bytes" } ?? "no answer"
            text += ", \(origin.outcome)"
            if let group = origin.group {
                text += ", group \(group)"
            }
            if let delay = origin.crawlDelay {
                text += ", crawl-delay \(delay) s"
            }
            if let cache = origin.cache {
                text += ", \(cache)"
            }
            text += "; \(origin.allowed) allowed, \(origin.disallowed) disallowed"
            if origin.refused > 0 {
                text += ", \(origin.refused) not fetched"
            }
            text += "\n"
        }
        return text
    }
}

extension RobotsPolicy.Mode: ExpressibleByArgument {}
