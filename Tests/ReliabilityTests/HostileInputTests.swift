import Foundation
import TestSupport
import Testing

/// `batchfetch fetch` against input files and servers that are broken or hostile: every input line
/// still gets exactly one record with a clear error, the batch goes on, and nothing hangs past the
/// configured timeouts.
@Suite(.serialized)
struct HostileInputTests {
    private func byIndex(_ records: [[String: Any]]) -> [Int: [String: Any]] {
        Dictionary(uniqueKeysWithValues: records.map { ($0["index"] as? Int ?? -1, $0) })
    }

    private func kind(_ record: [String: Any]?) -> String? {
        (record?["error"] as? [String: Any])?["kind"] as? String
    }

    private func message(_ record: [String: Any]?) -> String {
        (record?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    /// Garbage, a NUL byte, a 100 KB line and invalid UTF-8 in the URL list, from a file and from
    /// standard input: one record per line, in place, and the good URLs around them are fetched.
    @Test func garbageLinesInTheURLListBecomeErrorRecordsInPlace() async throws {
        try await TestHTTPServer.with { server in
            let ok = server.baseURL + "/ok"
            var input = Data()
            let lines: [[UInt8]] = [
                Array("\(ok)?a".utf8),
                Array("not a url at all".utf8),
                Array("\(ok)?b".utf8) + [0] + Array("evil".utf8),
                Array("\(ok)?c=".utf8) + Array(repeating: UInt8(ascii: "x"), count: 100_000),
                Array("\(ok)?d=".utf8) + [0xFF, 0xFE, 0x80],
                Array("javascript:alert(1)".utf8),
                Array("file:///etc/passwd".utf8),
                Array("http://".utf8),
                Array("# a comment".utf8),
                [0x01, 0x02, 0x7F, 0x1B],
                Array("\(ok)?e\r".utf8),
            ]
            for line in lines {
                input.append(contentsOf: line + [0x0A])
            }
            let directory = try ScratchDirectory("bf-garbage")
            let file = directory.path("urls.txt")
            try input.write(to: URL(fileURLWithPath: file))
            let fromFile = try Executable.batchfetch().run(
                ["fetch", "-i", file, "--body", "none", "--timeout", "5", "-q"], deadline: 60)
            let fromStdin = try Executable.batchfetch().run(
                ["fetch", "--body", "none", "--timeout", "5", "-q"], stdin: input, deadline: 60)
            for output in [fromFile, fromStdin] {
                #expect(!output.hung)
                #expect(output.status == 1, "\(output.stderr)")
                let records = try output.records()
                #expect(records.compactMap { $0["index"] as? Int } == Array(0..<10), "the comment line is skipped")
                let byIndex = self.byIndex(records)
                #expect(byIndex[0]?["ok"] as? Bool == true)
                #expect(self.kind(byIndex[1]) == "invalidURL")
                #expect(self.kind(byIndex[2]) == "invalidURL")
                #expect(self.message(byIndex[2]).contains("control character"))
                #expect(self.kind(byIndex[3]) == "invalidURL")
                #expect(self.message(byIndex[3]).contains("over the limit"))
                // Invalid UTF-8 is repaired to U+FFFD (never fatal) and the URL goes to the server,
                // which does not know the path.
                #expect((byIndex[4]?["url"] as? String)?.hasSuffix("?d=\u{FFFD}\u{FFFD}\u{FFFD}") == true)
                #expect(byIndex[4]?["status"] as? Int != nil || self.kind(byIndex[4]) != nil)
                #expect(self.kind(byIndex[5]) == "unsupportedScheme")
                #expect(self.kind(byIndex[6]) == "unsupportedScheme")
                #expect(self.kind(byIndex[7]) == "invalidURL")
                #expect(self.kind(byIndex[8]) == "invalidURL")
                #expect(byIndex[9]?["ok"] as? Bool == true, "a CRLF line ending is accepted")
            }
            let fetched = server.arrivals.map(\.target)
            #expect(!fetched.contains { $0.contains("evil") || $0.contains("xxxx") || $0.contains("passwd") })
        }
    }

    @Test func headersWithCROrLFAreRefusedBeforeAnythingIsSent() async throws {
        try await TestHTTPServer.with { server in
            for header in ["X-Test: a\r\nInjected: yes", "X-Test: a\nInjected: yes", "X-Test: a\rb", "Bad Name: x"] {
                let output = try Executable.batchfetch().run(
                    ["fetch", "-H", header, server.baseURL + "/ok"], deadline: 30)
                #expect(output.status == 2, "\(header.debugDescription): \(output.stderr)")
                #expect(output.stdout.isEmpty)
                #expect(output.stderr.contains("header"))
            }
            #expect(server.arrivals.isEmpty, "nothing reached the server")
        }
    }

    /// Redirect loops end at the limit, and a redirect to anything but http or https is refused,
    /// followed or not; the records after them are unaffected.
    @Test func redirectLoopsAndRedirectsToOtherSchemesFailCleanly() async throws {
        try await TestHTTPServer.with { server in
            let base = server.baseURL
            let targets = [
                "file:///etc/passwd", "ftp://127.0.0.1:\(server.port)/x", "gopher://127.0.0.1:\(server.port)/_x",
                "dict://127.0.0.1:\(server.port)/x", "\(base)/ok",
            ]
            let urls =
                ["\(base)/loop"]
                + targets.map {
                    "\(base)/redirect?to=\($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
                }
            let followed = try Executable.batchfetch().run(
                ["fetch", "--follow=5", "--body", "none", "--retries", "0", "-q"] + urls, deadline: 60)
            #expect(!followed.hung)
            #expect(followed.status == 1)
            let records = self.byIndex(try followed.records())
            #expect(records.count == urls.count)
            #expect(self.kind(records[0]) == "tooManyRedirects")
            for index in 1...4 {
                #expect(self.kind(records[index]) == "unsupportedScheme", "\(targets[index - 1])")
                #expect(!self.message(records[index]).contains("passwd"))
            }
            #expect(records[5]?["ok"] as? Bool == true)
            #expect(server.arrivals.filter { $0.target == "/loop" }.count == 6, "the first request and 5 redirects")

            let notFollowed = try Executable.batchfetch().run(
                ["fetch", "--body", "none", "--retries", "0", "-q"] + urls, deadline: 60)
            let plain = self.byIndex(try notFollowed.records())
            #expect(plain.count == urls.count)
            #expect(plain.values.allSatisfy { $0["status"] as? Int == 302 && self.kind($0) == "httpStatus" })
        }
    }

    /// `--max-body` holds with a Content-Length, with a body delimited by closing, and chunked.
    @Test func bodiesPastTheMaximumFailWithTooLargeInEveryFraming() async throws {
        try await TestHTTPServer.with { server in
            let base = server.baseURL
            let urls = [
                "\(base)/bytes?n=300000&mode=length", "\(base)/bytes?n=300000&mode=close",
                "\(base)/bytes?n=300000&mode=chunked", "\(base)/bytes?n=1000&mode=chunked",
                "\(base)/bytes?n=1000&mode=close",
            ]
            let output = try Executable.batchfetch().run(
                ["fetch", "--max-body", "100000", "--body", "none", "-q"] + urls, deadline: 60)
            #expect(!output.hung)
            #expect(output.status == 1)
            let records = self.byIndex(try output.records())
            for index in 0..<3 {
                #expect(self.kind(records[index]) == "tooLarge", "\(urls[index])")
                #expect(records[index]?["attempts"] as? Int == 1, "too large is not retried")
            }
            #expect(records[3]?["bytes"] as? Int == 1000)
            #expect(records[4]?["bytes"] as? Int == 1000)
        }
    }

    /// A server that never answers, one that drips a byte a second, and one that closes after the
    /// headers: each fails on its own (timeout, timeout, transport) while the good URL succeeds,
    /// and the run ends within the per-attempt timeout plus slack.
    @Test func stallingAndVanishingServersTimeOutWithoutHoldingUpTheBatch() async throws {
        try await TestHTTPServer.with { server in
            let base = server.baseURL
            let urls = ["\(base)/hang", "\(base)/drip", "\(base)/headers-then-close", "\(base)/ok"]
            let output = try Executable.batchfetch().run(
                ["fetch", "--timeout", "2", "--max-time", "2", "--retries", "1", "--body", "none", "-q"] + urls,
                deadline: 30)
            #expect(!output.hung)
            #expect(output.status == 1)
            let records = self.byIndex(try output.records())
            #expect(self.kind(records[0]) == "timeout")
            #expect(self.kind(records[1]) == "timeout")
            // Each ended by its own two attempts of 2 s, not by waiting on the others.
            #expect(records[0]?["attempts"] as? Int == 2 && records[1]?["attempts"] as? Int == 2)
            #expect(self.kind(records[2]) == "transport")
            #expect(records[0]?["attempts"] as? Int == 2 && records[2]?["attempts"] as? Int == 2)
            #expect(records[3]?["ok"] as? Bool == true)
            let connectOnly = try Executable.batchfetch().run(
                ["fetch", "--connect-timeout", "1", "--retries", "0", "-q", "http://127.0.0.1:1/"], deadline: 30)
            #expect(self.kind(try connectOnly.records().first) == "connectFailed")
        }
    }

    /// Non-JSON, truncated JSON, 10,000-deep nesting, invalid UTF-8 and an empty body under
    /// `--content-path`: each an error record that says what is wrong; the good document passes.
    @Test func brokenJSONBodiesAreErrorRecordsThatSayWhy() async throws {
        try await TestHTTPServer.with { server in
            let names = ["nonjson", "truncated", "deep", "badutf8", "empty", "good"]
            let urls = names.map { "\(server.baseURL)/doc/\($0)" }
            let output = try Executable.batchfetch().run(
                ["fetch", "--content-path", "drinks", "-q"] + urls, deadline: 60)
            #expect(!output.hung)
            #expect(output.status == 1)
            let records = self.byIndex(try output.records())
            #expect(self.kind(records[0]) == "invalidJSON")
            #expect(self.kind(records[1]) == "invalidJSON")
            #expect(self.kind(records[2]) == "invalidJSON")
            #expect(self.message(records[2]).contains("nesting deeper"))
            #expect(self.kind(records[3]) == "invalidJSON")
            #expect(self.message(records[3]).contains("UTF-8"))
            #expect(self.kind(records[4]) == "emptyBody")
            let body = records[5]?["body"] as? [[String: Any]]
            #expect(body?.first?["strDrink"] as? String == "Margarita")
            let json = try Executable.batchfetch().run(["fetch", "--body", "json", "-q"] + urls, deadline: 60)
            let strict = self.byIndex(try json.records())
            #expect(
                (0..<5).map { self.kind(strict[$0]) } == Array(repeating: "invalidJSON", count: 3) + [
                    "invalidJSON", "emptyBody",
                ])
        }
    }
}
