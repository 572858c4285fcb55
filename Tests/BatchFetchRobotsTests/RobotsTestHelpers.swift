import BatchFetchRobots

/// The verdict for one agent and one URL (whole, or a path starting with `/`), as the tests ask it.
func verdict(_ robots: String, _ agent: String, _ url: String) -> RobotsVerdict {
    verdict(Array(robots.utf8), agent, url)
}

func verdict(_ robots: [UInt8], _ agent: String, _ url: String) -> RobotsVerdict {
    guard let agent = RobotsAgent(agent) else {
        preconditionFailure("invalid agent in a test: \(agent)")
    }
    let matcher = RobotsTxt(robots).matcher(for: agent)
    return url.hasPrefix("/") ? matcher.verdict(forPath: url) : matcher.verdict(forURL: url)
}

func isAllowed(_ robots: String, _ agent: String, _ url: String) -> Bool {
    verdict(robots, agent, url).allowed
}
