import Foundation
import TestSupport
import Testing

/// `fetch --warc FILE` (issue 53): every exchange kept as sent and received, read back by warcio
/// and cdxj-indexer (scripts/warc-check), joined to the JSON records by `--fields warc`.
@Suite(.serialized)
struct FetchWARCTests {
    private static func fetch(_ arguments: [String], deadline: Double = 60) async throws -> Executable.Output {
        try await Executable("batchfetch").runOffPool(["fetch", "-q"] + arguments, deadline: deadline)
    }

    private static func field(_ name: String, of pairs: [[String]]?) -> String? {
        pairs?.first { $0.first?.lowercased() == name.lowercased() }?.last
    }

    @Test func everyExchangeIsArchivedAsSentAndReceived() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("run.warc.gz")
        try await TestHTTPServer.with { server in
            let urls = [
                "/gzip", "/bytes?n=70000&mode=chunked", "/binary?n=3000&seed=4", "/redirect?status=301&to=/ok?size=80",
                "/status/404",
            ].map { server.baseURL + $0 }
            let output = try await Self.fetch(
                [
                    "--warc", path, "--warc-cdx", "--fields", "warc", "--follow", "--status", "200-499", "--body",
                    "base64",
                ]
                    + urls)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            #expect(records.count == 5)
            #expect(!FileManager.default.fileExists(atPath: path + ".open"), "the file is renamed when the run ends")
            guard let report = try OutsideReader.report(path) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            #expect(report.iterator_error == nil)
            #expect(
                report.fastwarc.skipped != nil || report.fastwarc.status == 0, "fastwarc: \(report.fastwarc.output)")
            let types = report.records.map(\.type)
            // warcinfo, then a response and its request per exchange: 6 exchanges (the redirect has two).
            #expect(types == ["warcinfo"] + Array(repeating: ["response", "request"], count: 6).flatMap { $0 })
            let info = String(decoding: [UInt8](base64: report.records[0].raw_payload), as: UTF8.self)
            #expect(info.contains("software: batchfetch/") && info.contains("libcurl: "))
            #expect(info.contains("command: ") && info.contains("--warc"))
            // Each request names its response, and both have one date.
            for pair in stride(from: 1, to: report.records.count, by: 2) {
                let response = report.records[pair]
                let request = report.records[pair + 1]
                #expect(Self.field("WARC-Concurrent-To", of: request.headers) == response.id)
                #expect(Self.field("WARC-Date", of: request.headers) == Self.field("WARC-Date", of: response.headers))
                #expect(Self.field("WARC-IP-Address", of: response.headers) == "127.0.0.1")
                #expect(Self.field("WARC-Truncated", of: response.headers) == nil)
            }
            let responses = report.records.filter { $0.type == "response" }
            let uris = responses.map { Self.field("WARC-Target-URI", of: $0.headers) }
            #expect(uris == (urls.prefix(4) + [server.baseURL + "/ok?size=80", urls[4]]).map { Optional($0) })
            // The gzip answer is stored as gzip, and inflates to what the record shows.
            let gzip = [UInt8](base64: responses[0].raw_payload)
            #expect(gzip.prefix(2) == [0x1f, 0x8b])
            #expect(Self.field("Content-Encoding", of: responses[0].http_headers) == "gzip")
            let shown = Data(base64Encoded: records[0]["body"] as? String ?? "") ?? Data()
            #expect(!shown.isEmpty && [UInt8](base64: responses[0].payload ?? "") == [UInt8](shown))
            // Chunked: the framing removed, the field renamed so that readers do not de-chunk again.
            #expect(Self.field("X-Crawler-Transfer-Encoding", of: responses[1].http_headers) == "chunked")
            #expect(Self.field("Transfer-Encoding", of: responses[1].http_headers) == nil)
            #expect([UInt8](base64: responses[1].raw_payload).count == 70000)
            let binary = Data(base64Encoded: records[2]["body"] as? String ?? "") ?? Data()
            #expect(binary.count == 3000 && [UInt8](base64: responses[2].raw_payload) == [UInt8](binary))
            // The redirect hop and its target, each a pair of its own.
            #expect(responses[3].http_status == "301" && responses[4].http_status == "200")
            #expect(responses[5].http_status == "404")
            // The request as sent: its line and the fields batchfetch sent.
            let request = report.records[2]
            #expect(request.type == "request" && request.raw_payload.isEmpty)
            #expect(Self.field("Accept-Encoding", of: request.http_headers) == "gzip, deflate")
            #expect(Self.field("User-Agent", of: request.http_headers)?.hasPrefix("batchfetch/") == true)
            // --fields warc points at each record's final response.
            let byOffset = Dictionary(uniqueKeysWithValues: report.records.map { ($0.offset, $0) })
            for (index, record) in records.enumerated() {
                let warc = record["warc"] as? [String: Any]
                #expect(warc?["file"] as? String == "run.warc.gz")
                let offset = Int64(warc?["offset"] as? Int ?? -1)
                let archived = byOffset[offset]
                #expect(archived?.type == "response", "record \(index)")
                #expect(archived?.id == warc?["record_id"] as? String)
                #expect(archived?.length == Int64(warc?["length"] as? Int ?? -1))
            }
            // The index is the one cdxj-indexer makes of the file.
            let index = try String(contentsOfFile: folder.path("run.cdxj"), encoding: .utf8)
            let ours = index.split(separator: "\n").map(String.init)
            #expect(ours.count == 6)
            #expect(ours == report.cdxj.filter { !$0.isEmpty }.sorted())
        }
    }

    /// pywb takes the file as it is and answers each archived URL with the bytes the origin sent.
    @Test func pywbReplaysEachURLWithTheBytesTheOriginSent() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("replay.warc.gz")
        try await TestHTTPServer.with { server in
            let urls = ["/gzip", "/binary?n=5000&seed=2", "/bytes?n=30000&mode=chunked", "/ok?size=90"].map {
                server.baseURL + $0
            }
            let output = try await Self.fetch(["--warc", path, "--body", "base64"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            let shown = try output.records().map { [UInt8](base64: $0["body"] as? String ?? "") }
            guard let answers = try ReplayReader.replay([path], urls: urls) else {
                return
            }
            #expect(answers.map(\.status) == [200, 200, 200, 200], "\(answers.map { $0.error ?? "" })")
            // As sent: the gzip body as the server sent it, the others as the records show them.
            #expect(answers[0].bodyBytes == TestHTTPServer.gzippedJSON)
            #expect(answers[0].header("Content-Encoding") == "gzip")
            for index in 1..<4 {
                #expect(answers[index].bodyBytes == shown[index] && !shown[index].isEmpty, "\(urls[index])")
            }
        }
    }

    @Test func theRequestRecordHoldsTheRequestAsSentWithItsBody() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("post.warc")
        try await TestHTTPServer.with { server in
            let output = try await Self.fetch(
                ["--warc", path, "-X", "POST", "-d", "{\"a\":1}", "-H", "X-Test: yes", server.baseURL + "/request"])
            #expect(output.status == 0, "\(output.summary)")
            guard let report = try OutsideReader.report(path) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            #expect(report.members.isEmpty, "a .warc file is not compressed")
            let request = try #require(report.records.first { $0.type == "request" })
            let block = String(decoding: [UInt8](base64: request.raw_payload), as: UTF8.self)
            #expect(block == "{\"a\":1}")
            #expect(Self.field("X-Test", of: request.http_headers) == "yes")
            #expect(Self.field("Content-Length", of: request.http_headers) == "7")
        }
    }

    @Test func aResponseCutShortIsArchivedAsTruncated() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("cut.warc.gz")
        try await TestHTTPServer.with { server in
            let output = try await Self.fetch(
                ["--warc", path, "--retries", "0", "--fields", "warc", server.baseURL + "/cut?n=40000"])
            #expect(output.status == 1, "\(output.summary)")
            let record = try #require(try output.records().first)
            #expect((record["error"] as? [String: Any])?["kind"] as? String == "transport")
            #expect(record["warc"] is [String: Any], "a failed record still points at what was archived")
            guard let report = try OutsideReader.report(path) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            let response = try #require(report.records.first { $0.type == "response" })
            #expect(Self.field("WARC-Truncated", of: response.headers) == "disconnect")
            #expect([UInt8](base64: response.raw_payload).count == 20000)
            #expect(Self.field("Content-Length", of: response.http_headers) == "40000")
        }
    }

    /// A brotli body nobody asked for (kept in its coding, as sent), a 5 MB body and a HEAD
    /// request's empty answer: each verified by warcio and fastwarc, the bytes as the server sent them.
    @Test func brotliFiveMegabytesAndHeadAreArchivedAsSent() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("sizes.warc.gz")
        let headPath = folder.path("head.warc.gz")
        try await TestHTTPServer.with { server in
            let urls = [server.baseURL + "/brotli", server.baseURL + "/bytes?n=5000000"]
            let output = try await Self.fetch(["--warc", path, "--fields", "warc", "--body", "base64"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            let head = try await Self.fetch(["--warc", headPath, "-I", server.baseURL + "/ok?size=80"])
            #expect(head.status == 0, "\(head.summary)")
            guard let report = try OutsideReader.report(path), let headReport = try OutsideReader.report(headPath)
            else {
                return
            }
            for (file, checked) in [(path, report), (headPath, headReport)] {
                #expect(checked.check.status == 0, "warcio check \(file): \(checked.check.output)")
                let fastwarc = checked.fastwarc
                #expect(fastwarc.skipped != nil || fastwarc.status == 0, "fastwarc: \(fastwarc.output)")
            }
            let responses = report.records.filter { $0.type == "response" }
            #expect(responses.count == 2)
            #expect(Self.field("Content-Encoding", of: responses.first?.http_headers) == "br")
            #expect(responses.first.map { [UInt8](base64: $0.raw_payload) } == TestHTTPServer.brotliJSON)
            let shown = records.map { Data(base64Encoded: $0["body"] as? String ?? "") ?? Data() }
            #expect(shown.first.map([UInt8].init) == TestHTTPServer.brotliJSON, "the record shows what was received")
            let large = responses.last.map { [UInt8](base64: $0.raw_payload) } ?? []
            #expect(large.count == 5_000_000 && shown.last.map([UInt8].init) == large)
            // HEAD: the response's head alone, and the request line as sent.
            let headResponse = try #require(headReport.records.first { $0.type == "response" })
            #expect(headResponse.http_status == "200" && headResponse.raw_payload.isEmpty)
            let members = headReport.members.map { String(decoding: [UInt8](base64: $0.data), as: UTF8.self) }
            #expect(members.contains { $0.contains("WARC-Type: request") && $0.contains("HEAD /ok?size=80 HTTP/1.1") })
        }
    }

    /// A URL listed twice is fetched once: the copy's `warc` names the owner's response record.
    @Test func aCopyNamesTheResponseItsOwnerArchived() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("copies.warc.gz")
        try await TestHTTPServer.with { server in
            let urls = [server.baseURL + "/ok?size=10", server.baseURL + "/ok?size=20", server.baseURL + "/ok?size=10"]
            let output = try await Self.fetch(["--warc", path, "--fields", "warc"] + urls)
            #expect(output.status == 0, "\(output.summary)")
            let records = try output.records()
            #expect(records.count == 3)
            #expect(records[2]["shared_with"] as? Int == 0)
            let owner = records[0]["warc"] as? [String: Any]
            let copy = records[2]["warc"] as? [String: Any]
            #expect(owner != nil && copy?["record_id"] as? String == owner?["record_id"] as? String)
            #expect(copy?["offset"] as? Int == owner?["offset"] as? Int)
            #expect(copy?["record_id"] as? String != (records[1]["warc"] as? [String: Any])?["record_id"] as? String)
            guard let report = try OutsideReader.report(path) else {
                return
            }
            let responses = report.records.filter { $0.type == "response" }
            #expect(responses.count == 2, "the copy's bytes are not written twice")
        }
    }

    @Test func aRequestWithNoAnswerWritesNothingButItsRecord() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("none.warc.gz")
        let output = try await Self.fetch(
            ["--warc", path, "--retries", "0", "--fields", "warc", "http://127.0.0.1:1/nothing"])
        #expect(output.status == 1, "\(output.summary)")
        let record = try #require(try output.records().first)
        #expect(record["warc"] is NSNull)
        guard let report = try OutsideReader.report(path) else {
            return
        }
        #expect(report.records.map(\.type) == ["warcinfo"])
    }

    @Test func aFullFileRotatesToTheNextWithItsOwnWarcinfoAndIndex() async throws {
        let folder = try ScratchDirectory("warc")
        try await TestHTTPServer.with { server in
            let urls = (0..<30).map { "\(server.baseURL)/ok?size=2000&i=\($0)" }
            let output = try await Self.fetch(
                [
                    "--warc", folder.path("big.warc.gz"), "--warc-max-size", "10K", "--warc-cdx", "--fields", "warc",
                    "-c", "1",
                ]
                    + urls)
            #expect(output.status == 0, "\(output.summary)")
            let names = ["big.warc.gz"] + (1...9).map { "big-0000\($0).warc.gz" }
            let files = names.filter { FileManager.default.fileExists(atPath: folder.path($0)) }
            #expect(files.count >= 3 && files == Array(names.prefix(files.count)), "\(files)")
            var responses: [String: [Int64: String]] = [:]
            for file in files {
                guard let report = try OutsideReader.report(folder.path(file)) else {
                    return
                }
                #expect(report.check.status == 0, "\(file): \(report.check.output)")
                #expect(report.records.first?.type == "warcinfo")
                #expect(Self.field("WARC-Filename", of: report.records.first?.headers) == file)
                let own = report.records.filter { $0.type == "response" }
                responses[file] = Dictionary(uniqueKeysWithValues: own.map { ($0.offset, $0.id) })
                let index = try String(
                    contentsOfFile: folder.path(file).replacingOccurrences(of: ".warc.gz", with: ".cdxj"),
                    encoding: .utf8)
                #expect(index.split(separator: "\n").count == own.count)
                #expect(report.members.last.map { $0.offset + $0.length } ?? 0 < 10_000 + 4_000, "rotated once full")
            }
            #expect(responses.values.map(\.count).reduce(0, +) == 30)
            for record in try output.records() {
                let warc = record["warc"] as? [String: Any]
                let file = warc?["file"] as? String ?? ""
                let offset = Int64(warc?["offset"] as? Int ?? -1)
                #expect(responses[file]?[offset] == warc?["record_id"] as? String)
            }
        }
    }

    /// With `--robots`, robots.txt's own exchange is archived too, before the requests it let go.
    @Test func robotsTxtIsArchivedBeforeTheRequestsItAllowed() async throws {
        let folder = try ScratchDirectory("warc")
        let path = folder.path("robots.warc.gz")
        try await TestHTTPServer.with { server in
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nDisallow: /status/\n") }
            let output = try await Self.fetch(
                [
                    "--warc", path, "--robots", "obey", "-c", "1", server.baseURL + "/ok?i=1",
                    server.baseURL + "/status/200",
                ])
            #expect(output.status == 0, "\(output.summary)")
            guard let report = try OutsideReader.report(path) else {
                return
            }
            #expect(report.check.status == 0, "warcio check: \(report.check.output)")
            let responses = report.records.filter { $0.type == "response" }
            let uris = responses.map { Self.field("WARC-Target-URI", of: $0.headers) ?? "" }
            #expect(
                uris == [server.baseURL + "/robots.txt", server.baseURL + "/ok?i=1"], "the disallowed URL was not sent")
            #expect(
                String(decoding: [UInt8](base64: responses[0].raw_payload), as: UTF8.self).contains(
                    "Disallow: /status/"))
            let info = String(decoding: [UInt8](base64: report.records[0].raw_payload), as: UTF8.self)
            #expect(info.contains("robots: obey"))
        }
    }

    @Test func usageErrors() async throws {
        let folder = try ScratchDirectory("warc")
        let existing = folder.path("there.warc.gz")
        #expect(FileManager.default.createFile(atPath: existing, contents: Data("x".utf8)))
        let cases: [([String], String)] = [
            (["--warc-cdx"], "--warc-cdx, --warc-digest, --warc-max-size and --warc-dedup need --warc FILE"),
            (["--fields", "warc"], "--fields warc needs --warc FILE"),
            (["--warc", existing], "exists"),
        ]
        for (arguments, message) in cases {
            let output = try await Self.fetch(arguments + ["http://127.0.0.1:1/"])
            #expect(output.status == 2, "\(arguments): \(output.summary)")
            #expect(output.stderr.contains(message), "\(arguments): \(output.stderr)")
        }
        #expect(try String(contentsOfFile: existing, encoding: .utf8) == "x", "an existing file is never replaced")
    }
}
