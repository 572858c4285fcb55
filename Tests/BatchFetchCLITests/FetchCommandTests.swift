import Foundation
import TestSupport
import Testing

/// `batchfetch fetch` end to end: the real executable against the test server.
@Suite(.serialized)
struct FetchCommandTests {
    private struct Record: Decodable {
        struct ErrorObject: Decodable {
            let kind: String
            let message: String
        }

        let index: Int
        let url: String
        let status: Int?
        let ok: Bool
        let attempts: Int
        let bytes: Int
        let error: ErrorObject?
    }

    private func records(_ text: String) throws -> [Record] {
        try text.split(separator: "\n").map { try JSONDecoder().decode(Record.self, from: Data($0.utf8)) }
    }

    @Test func everyInputLineGetsExactlyOneRecordAndFailuresSetTheExitStatus() async throws {
        try await TestHTTPServer.with { server in
            let input = """
                # a comment, then a blank line

                \(server.baseURL)/ok?size=100
                  \(server.baseURL)/status/404  
                file:///etc/passwd
                not a url
                \(server.baseURL)/ok?size=200&token=secret

                """
            let output = try Executable("batchfetch").run(["fetch", "-i", "-", "--retries", "0"], stdin: input)
            #expect(output.status == 1, "stderr: \(output.stderr)")
            let records = try self.records(output.stdout).sorted { $0.index < $1.index }
            #expect(records.map(\.index) == [0, 1, 2, 3, 4])
            #expect(records[0].ok && records[0].status == 200 && records[0].bytes == 100)
            #expect(!records[1].ok && records[1].status == 404 && records[1].error?.kind == "httpStatus")
            #expect(records[2].error?.kind == "unsupportedScheme" && records[2].attempts == 0)
            #expect(records[3].error?.kind == "invalidURL")
            #expect(records[4].ok && records[4].bytes == 200)
            #expect(records[4].url.hasSuffix("token=***"), "secrets are redacted from records")
        }
    }

    /// Standard input is read on a thread of its own into a bounded buffer (1,024 lines) that the
    /// consumer empties in batches: many times its size must all arrive, once each, in order.
    @Test func standardInputLongerThanItsBufferArrivesWhole() async throws {
        try await TestHTTPServer.with { server in
            let lines = (0..<5000).map { $0 % 500 == 0 ? "\(server.baseURL)/ok?i=\($0)" : "not a url \($0)" }
            let output = try Executable("batchfetch").run(
                ["fetch", "-i", "-", "--retries", "0"], stdin: lines.joined(separator: "\n") + "\n", deadline: 30)
            #expect(!output.hung && output.status == 1, "stderr: \(output.stderr)")
            let records = try self.records(output.stdout)
            #expect(records.map(\.index) == Array(0..<5000))
            #expect(records.filter(\.ok).map(\.index) == Array(stride(from: 0, to: 5000, by: 500)))
        }
    }

    @Test func allOkExitsZeroAndArgumentsWork() async throws {
        try await TestHTTPServer.with { server in
            let urls = (0..<50).map { "\(server.baseURL)/ok?i=\($0)" }
            let output = try Executable("batchfetch").run(["fetch", "-c", "4"] + urls)
            #expect(output.status == 0, "stderr: \(output.stderr)")
            let records = try self.records(output.stdout)
            #expect(records.count == 50)
            #expect(Set(records.map(\.index)) == Set(0..<50))
            #expect(records.allSatisfy { $0.ok && $0.url == urls[$0.index] })
            // time_ms is written digit by digit: milliseconds with exactly three decimals.
            let times = output.stdout.split(separator: "\n").compactMap { line -> Substring? in
                guard let start = line.range(of: "\"time_ms\":")?.upperBound else {
                    return nil
                }
                return line[start...].prefix { $0 != "," }
            }
            #expect(times.count == 50)
            #expect(times.allSatisfy { $0.wholeMatch(of: /(0|[1-9][0-9]*)\.[0-9]{3}/) != nil }, "\(times)")
        }
    }

    /// Bodies of 16 KiB and more are written from the response by `writev` instead of being copied
    /// into the record buffer; records around them, their order and their bytes must not change.
    @Test(arguments: ["input", "completion"])
    func largeBodiesAreWrittenWholeBetweenTheirRecords(order: String) async throws {
        try await TestHTTPServer.with { server in
            // Small and large, several large ones per 64 KiB flush, an ok:false one (its body is
            // still embedded) and one with line breaks (copied, CR LF turned into spaces).
            let shapes: [(size: Int, status: Int, breaks: Bool)] = [
                (100, 200, false), (20_000, 200, false), (40_000, 200, false),
                (17_000, 404, false), (300, 200, false), (70_000, 200, false), (30_000, 200, true),
                (16_384, 200, false), (25_000, 200, false), (18_000, 200, false), (90, 500, false),
            ]
            let urls = shapes.map {
                "\(server.baseURL)/doc?size=\($0.size)&status=\($0.status)&breaks=\($0.breaks ? 1 : 0)"
            }
            let output = try Executable("batchfetch").run(
                ["fetch", "-c", "3", "--retries", "0", "--order", order] + urls)
            #expect(output.status == 1, "stderr: \(output.stderr)")
            let lines = output.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
            #expect(lines.count == shapes.count)
            var seen = Set<Int>()
            for line in lines {
                let record = try JSONDecoder().decode(Record.self, from: Data(line.utf8))
                seen.insert(record.index)
                let shape = shapes[record.index]
                #expect(record.ok == (shape.status == 200) && record.status == shape.status)
                #expect(record.error?.kind == (shape.status == 200 ? nil : "httpStatus"))
                let document = TestHTTPServer.document(size: shape.size, breaks: shape.breaks)
                #expect(record.bytes == document.utf8.count)
                let body = document.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
                #expect(line.contains(",\"body\":\(body),\"error\":"), "record \(record.index): body bytes differ")
            }
            #expect(seen == Set(0..<shapes.count))
            if order == "input" {
                #expect(try self.records(output.stdout).map(\.index) == Array(0..<shapes.count))
            }
        }
    }

    @Test func versionIsPrinted() throws {
        let output = try Executable("batchfetch").run(["--version"])
        #expect(output.status == 0, "stderr: \(output.stderr)")
        // The first line names batchfetch's version; VersionTests checks the lines after it.
        let first = output.stdout.split(separator: "\n").first.map(String.init) ?? ""
        #expect(first.wholeMatch(of: /batchfetch [0-9]+\.[0-9]+\.[0-9]+/) != nil, "\(output.stdout)")
    }

    @Test func usageErrorsExitWithTwo() throws {
        let bad = try Executable("batchfetch").run(["fetch", "-c", "0", "http://127.0.0.1:1/"])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("concurrency"))
        let unknown = try Executable("batchfetch").run(["fetch", "--no-such-flag"])
        #expect(unknown.status == 2)
        let missing = try Executable("batchfetch").run(["fetch", "-i", "/nonexistent/urls.txt"])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("/nonexistent/urls.txt"))
    }
}
