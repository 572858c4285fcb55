import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `crawl --robots obey` against a replica serving a robots.txt (issue 52): the API's paths are
/// checked like any URL's.
@Suite(.serialized)
struct CrawlRobotsTests {
    @Test func anAllowingRobotsTxtChangesNothingInTheOutput() async throws {
        var replica = ReplicaConfiguration()
        replica.robotsTxt = "User-agent: *\nAllow: /\n"
        try await ReplicaServer.withServer(replica) { server in
            let directory = try ScratchDirectory("crawl-robots")
            let stats = directory.path("stats.json")
            let plain = try Executable("batchfetch").run(["crawl", "--base-url", server.baseURL, "-q"])
            let obeying = try Executable("batchfetch").run(
                ["crawl", "--base-url", server.baseURL, "-q", "--robots", "obey", "--stats", stats])
            #expect(obeying.status == 0, "\(obeying.stderr)")
            #expect(obeying.stdout == plain.stdout && !plain.stdout.isEmpty)
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats)))
            let origin = ((summary as? [String: Any])?["robots"] as? [[String: Any]])?.first
            #expect(
                origin?["status"] as? Int == 200 && origin?["disallowed"] as? Int == 0, "\(String(describing: origin))")
        }
    }

    @Test func aDisallowedEndpointFailsItsFacetsWithTheRule() async throws {
        var replica = ReplicaConfiguration()
        replica.robotsTxt = "User-agent: *\nDisallow: /api/json/v1/1/filter.php\n"
        try await ReplicaServer.withServer(replica) { server in
            let output = try Executable("batchfetch").run(
                ["crawl", "--base-url", server.baseURL, "-q", "--robots", "obey", "--by", "glass"])
            #expect(output.status == 1, "\(output.stderr)")
            let lines = output.stdout.split(separator: "\n")
            #expect(lines.count == server.catalogue.glasses.count)
            #expect(lines.allSatisfy { $0.contains("robotsDisallowed") }, "\(lines.first ?? "")")
        }
    }
}
