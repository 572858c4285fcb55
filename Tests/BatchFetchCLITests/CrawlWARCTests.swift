import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `crawl --warc FILE` against the replica (issue 53): every request of the crawl archived, the
/// crawl's own output unchanged.
@Suite(.serialized)
struct CrawlWARCTests {
    @Test func everyRequestOfTheCrawlIsArchivedAndTheOutputIsUnchanged() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration()) { server in
            let directory = try ScratchDirectory("crawl-warc")
            let warc = directory.path("crawl.warc.gz")
            let stats = directory.path("stats.json")
            let plain = try Executable("batchfetch").run(["crawl", "--base-url", server.baseURL, "-q", "--by", "glass"])
            let archiving = try Executable("batchfetch").run([
                "crawl", "--base-url", server.baseURL, "-q", "--by", "glass", "--warc", warc, "--warc-cdx", "--stats",
                stats,
            ])
            #expect(archiving.status == 0, "\(archiving.stderr)")
            #expect(archiving.stdout == plain.stdout && !plain.stdout.isEmpty)
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats)))
            let counts = (summary as? [String: Any])?["summary"] as? [String: Any]
            let requests = counts?["requests"] as? Int ?? -1
            let index = try String(contentsOfFile: directory.path("crawl.cdxj"), encoding: .utf8)
            #expect(index.split(separator: "\n").count == requests && requests > server.catalogue.glasses.count)
            guard let report = try OutsideReader.report(warc) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            let responses = report.records.filter { $0.type == "response" }
            #expect(responses.count == requests)
            #expect(report.records.filter { $0.type == "request" }.count == requests)
            #expect(responses.allSatisfy { $0.http_status == "200" })
        }
    }

    /// `crawl --resume --warc`: the earlier run's file is left as it was, the resumed run writes
    /// the series' next file, and both pass `warcio check`.
    @Test func aResumedCrawlWritesOnInTheSeriesNextFile() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration()) { server in
            let directory = try ScratchDirectory("crawl-warc-resume")
            let warc = directory.path("crawl.warc.gz")
            let arguments = [
                "crawl", "--base-url", server.baseURL, "-q", "--by", "glass", "-o", directory.path("out.ndjson"),
                "--warc", warc,
            ]
            let first = try Executable("batchfetch").run(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            let before = try Data(contentsOf: URL(fileURLWithPath: warc))
            let resumed = try Executable("batchfetch").run(arguments + ["--resume"])
            #expect(resumed.status == 0, "\(resumed.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: warc)) == before)
            let next = directory.path("crawl-00001.warc.gz")
            guard let report = try OutsideReader.report(next) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            #expect(report.records.first?.type == "warcinfo")
        }
    }
}
