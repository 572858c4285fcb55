// robots-check: answers (robots.txt, agent, URL) queries with BatchFetchRobots, many per process,
// for scripts/robots-diff. Not a user command: batchfetch's own flags will reach the matcher.
//
// Input, one JSON object per line on stdin:
//   {"robots": TEXT | "robots_base64": B64, "queries": [{"agent": A, "url": U}, ...]}
// Output, one JSON object per input line on stdout, in order:
//   {"results": [{"allowed": B, "line": N|null, "rule": TEXT|null, "crawl_delay": S|null,
//                 "group": "agent"|"global"|"none"}, ...]}
// A URL is given whole (its path and query are found as Google's matcher finds them) unless it
// starts with "/", when it is the path and query itself.
import BatchFetchRobots
import Foundation

enum CheckError: Error, CustomStringConvertible {
    case badLine(Int, String)

    var description: String {
        switch self {
        case .badLine(let number, let reason): "robots-check: input line \(number): \(reason)"
        }
    }
}

func answer(_ object: [String: Any], line: Int) throws -> [String: Any] {
    let body: [UInt8]
    if let text = object["robots"] as? String {
        body = Array(text.utf8)
    } else if let encoded = object["robots_base64"] as? String, let data = Data(base64Encoded: encoded) {
        body = Array(data)
    } else {
        throw CheckError.badLine(line, "no robots or robots_base64")
    }
    guard let queries = object["queries"] as? [[String: Any]] else {
        throw CheckError.badLine(line, "no queries")
    }
    let robots = RobotsTxt(body)
    var matchers: [String: RobotsMatcher] = [:]
    var results: [[String: Any]] = []
    results.reserveCapacity(queries.count)
    for query in queries {
        guard let agentToken = query["agent"] as? String, let url = query["url"] as? String else {
            throw CheckError.badLine(line, "a query without agent or url")
        }
        // An invalid token (google/robotstxt-spec-test has `AB42bot`) can never equal the product
        // token of a User-agent line, which holds only letters, `_` and `-`: for Google's matcher it
        // names no group, and so does this token. batchfetch itself refuses invalid tokens.
        let agent = RobotsAgent(agentToken) ?? unnamedAgent
        let matcher = matchers[agentToken] ?? robots.matcher(for: agent)
        matchers[agentToken] = matcher
        let verdict = url.hasPrefix("/") ? matcher.verdict(forPath: url) : matcher.verdict(forURL: url)
        let group =
            switch matcher.appliedGroup {
            case .agent: "agent"
            case .global: "global"
            case .none: "none"
            }
        results.append([
            "allowed": verdict.allowed,
            "line": verdict.rule.map { $0.line as Any } ?? NSNull(),
            "rule": verdict.rule.map { $0.text as Any } ?? NSNull(),
            "crawl_delay": matcher.crawlDelay.map { $0 as Any } ?? NSNull(),
            "group": group,
        ])
    }
    return ["results": results]
}

let unnamedAgent = RobotsAgent("robots-check-agent-no-group-names")!
var number = 0
var failed = false
while let text = readLine(strippingNewline: true) {
    number += 1
    do {
        guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw CheckError.badLine(number, "not a JSON object")
        }
        let output = try JSONSerialization.data(withJSONObject: try answer(object, line: number))
        FileHandle.standardOutput.write(output + Data("\n".utf8))
    } catch {
        FileHandle.standardError.write(Data("\(error)\n".utf8))
        failed = true
        break
    }
}
exit(failed ? 2 : 0)
