import Foundation
import TestSupport
import Testing

/// `fetch --warc FILE --save-dir DIR`: the archive keeps each body as received, the folder the
/// files a `--save-dir` run alone writes, and the records are that run's plus their `warc` field.
@Suite(.serialized)
struct FetchWARCSaveDirTests {
    private static func fetch(_ arguments: [String]) async throws -> Executable.Output {
        try await Executable("batchfetch").runOffPool(["fetch", "-q"] + arguments, deadline: 60)
    }

    @Test func theFolderHoldsWhatSaveDirAloneWritesAndTheArchiveTheBytesAsReceived() async throws {
        let folder = try ScratchDirectory("warc-save-dir")
        try await TestHTTPServer.with { server in
            let urls = ["/gzip", "/binary?n=3000&seed=4", "/bytes?n=70000&mode=chunked", "/status/404"].map {
                server.baseURL + $0
            }
            let alone = try await Self.fetch(["--save-dir", folder.path("alone")] + urls)
            let warc = folder.path("run.warc.gz")
            let both = try await Self.fetch(
                ["--save-dir", folder.path("both"), "--warc", warc, "--fields", "warc"] + urls)
            #expect(alone.status == 1 && both.status == 1, "the 404 fails its record: \(both.summary)")
            let aloneRecords = try alone.records()
            let bothRecords = try both.records()
            #expect(aloneRecords.count == 4 && bothRecords.count == 4)
            let names = try FileManager.default.contentsOfDirectory(atPath: folder.path("alone")).sorted()
            #expect(names.count == 3)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path("both")).sorted() == names)
            for name in names {
                let saved = try Data(contentsOf: URL(fileURLWithPath: folder.path("both/" + name)))
                #expect(saved == (try Data(contentsOf: URL(fileURLWithPath: folder.path("alone/" + name)))), "\(name)")
            }
            for (one, other) in zip(aloneRecords, bothRecords) {
                #expect(one["sha256"] as? String == other["sha256"] as? String)
                #expect(one["bytes"] as? Int == other["bytes"] as? Int)
                #expect(one["ok"] as? Bool == other["ok"] as? Bool)
            }
            guard let report = try OutsideReader.report(warc) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            let responses = report.records.filter { $0.type == "response" }
            #expect(responses.count == 4)
            // The gzip answer is archived as gzip; its file holds it decoded.
            let gzip = [UInt8](base64: responses[0].raw_payload)
            #expect(gzip.prefix(2) == [0x1f, 0x8b])
            let file = try #require(bothRecords[0]["file"] as? String)
            #expect(
                [UInt8](base64: responses[0].payload ?? "") == [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
            )
            #expect([UInt8](base64: responses[2].raw_payload).count == 70000)
            let byOffset = Dictionary(report.records.map { ($0.offset, $0) }, uniquingKeysWith: { a, _ in a })
            for record in bothRecords {
                let field = record["warc"] as? [String: Any]
                let archived = byOffset[Int64(field?["offset"] as? Int ?? -1)]
                #expect(archived?.type == "response" && archived?.id == field?["record_id"] as? String)
            }
        }
    }
}
