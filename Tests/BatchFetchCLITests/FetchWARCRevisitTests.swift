import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `fetch --warc` revisit records (issue 53): a `304` to `--cache`'s revalidation is a
/// server-not-modified revisit; with `--warc-dedup`, a payload archived before is an
/// identical-payload-digest revisit that points at it, in the run or in `--warc-dedup-index`.
@Suite(.serialized)
struct FetchWARCRevisitTests {
    private static func fetch(_ arguments: [String]) async throws -> Executable.Output {
        try await Executable("batchfetch").runOffPool(["fetch", "-q"] + arguments, deadline: 60)
    }

    private static func field(_ name: String, of pairs: [[String]]?) -> String? {
        pairs?.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    @Test func aRevalidatedResponseIsAServerNotModifiedRevisit() async throws {
        let folder = try ScratchDirectory("warc-revisit")
        try await ReplicaServer.withServer { server in
            let urls = server.catalogue.drinks.prefix(3).map { server.url("lookup.php?i=\($0.id)") }
            let cache = folder.path("cache")
            let first = try await Self.fetch(["--cache", cache] + urls)
            #expect(first.status == 0, "\(first.summary)")
            let warc = folder.path("again.warc.gz")
            let again = try await Self.fetch(
                ["--cache", cache, "--warc", warc, "--warc-cdx", "--fields", "warc"] + urls)
            #expect(again.status == 0, "\(again.summary)")
            let records = try again.records()
            #expect(records.allSatisfy { $0["cache"] as? String == "revalidated" && $0["body"] is [String: Any] })
            guard let report = try OutsideReader.report(warc) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            let revisits = report.records.filter { $0.type == "revisit" }
            #expect(revisits.count == 3 && !report.records.contains { $0.type == "response" })
            #expect(
                revisits.allSatisfy {
                    Self.field("WARC-Profile", of: $0.headers)
                        == "http://netpreserve.org/warc/1.1/revisit/server-not-modified" && $0.http_status == "304"
                })
            #expect(
                Set(records.compactMap { ($0["warc"] as? [String: Any])?["record_id"] as? String })
                    == Set(revisits.map(\.id)))
            let index = try String(contentsOfFile: folder.path("again.cdxj"), encoding: .utf8)
            #expect(index.split(separator: "\n").map(String.init) == report.cdxj.filter { !$0.isEmpty }.sorted())
        }
    }

    @Test func aPayloadArchivedBeforeInTheRunIsARevisitThatPointsAtIt() async throws {
        let folder = try ScratchDirectory("warc-dedup")
        try await TestHTTPServer.with { server in
            // /ok's body depends on its size only: three URLs, two payloads.
            let urls = ["/ok?size=300&i=1", "/ok?size=300&i=2", "/ok?size=301&i=3"].map { server.baseURL + $0 }
            let warc = folder.path("dedup.warc.gz")
            let output = try await Self.fetch(["--warc", warc, "--warc-dedup", "--warc-cdx", "-c", "1"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            #expect(try output.records().count == 3)
            guard let report = try OutsideReader.report(warc) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            // fastwarc digests a revisit's empty payload (see OutsideReader): `passed` allows for it.
            #expect(report.fastwarc.skipped != nil || report.fastwarc.passed == true, "\(report.fastwarc.output)")
            let kept = report.records.filter { $0.type == "response" || $0.type == "revisit" }
            #expect(kept.map(\.type) == ["response", "revisit", "response"])
            let revisit = kept[1]
            #expect(
                Self.field("WARC-Profile", of: revisit.headers)
                    == "http://netpreserve.org/warc/1.1/revisit/identical-payload-digest")
            #expect(Self.field("WARC-Refers-To", of: revisit.headers) == kept[0].id)
            #expect(Self.field("WARC-Refers-To-Target-URI", of: revisit.headers) == urls[0])
            #expect(
                Self.field("WARC-Refers-To-Date", of: revisit.headers) == Self.field("WARC-Date", of: kept[0].headers))
            #expect(
                Self.field("WARC-Payload-Digest", of: revisit.headers)
                    == Self.field("WARC-Payload-Digest", of: kept[0].headers))
            #expect(revisit.raw_payload.isEmpty)
            let index = try String(contentsOfFile: folder.path("dedup.cdxj"), encoding: .utf8)
            #expect(index.split(separator: "\n").map(String.init) == report.cdxj.filter { !$0.isEmpty }.sorted())

            // A later run deduplicates against the first run's index.
            let later = folder.path("later.warc.gz")
            let second = try await Self.fetch(
                ["--warc", later, "--warc-dedup-index", folder.path("dedup.cdxj"), server.baseURL + "/ok?size=301&i=9"])
            #expect(second.status == 0, "\(second.summary)")
            let laterReport = try #require(try OutsideReader.report(later))
            #expect(laterReport.check.status == 0, "warcio check: \(laterReport.check.output)")
            let pointer = try #require(laterReport.records.first { $0.type == "revisit" })
            #expect(Self.field("WARC-Refers-To-Target-URI", of: pointer.headers) == urls[2])
            #expect(Self.field("WARC-Refers-To", of: pointer.headers) == nil, "an index does not hold record IDs")
            let seconds = String(Self.field("WARC-Date", of: kept[2].headers)?.prefix(19) ?? "")
            #expect(Self.field("WARC-Refers-To-Date", of: pointer.headers)?.hasPrefix(seconds) == true)
        }
    }
}
