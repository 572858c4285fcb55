import Foundation
import TestSupport
import Testing

/// `fetch` where curl sets the expectation: its header syntax, any method token, and the record
/// and exit status where a request never reached the wire.
@Suite(.serialized)
struct FetchCurlCompatTests {
    private let requests = FetchRequestTests()

    /// The request heads a raw recorder saw, as text.
    private func heads(_ recorder: RawRequestRecorder) -> [String] {
        recorder.heads.map { String(decoding: $0, as: UTF8.self) }
    }

    /// curl's `-H`: `Name:` removes a field libcurl or batchfetch adds, `Name;` sends it empty.
    @Test func aBareNameRemovesAFieldAndASemicolonSendsItEmpty() async throws {
        try await RawRequestRecorder.with { recorder in
            let (status, _, output) = try await self.requests.run(
                ["-H", "Accept:", "-H", "User-Agent:", "-H", "X-Empty;", "-H", "X-Gone:  ", recorder.baseURL + "/h"])
            #expect(status == 0, "\(output)")
            let head = try #require(self.heads(recorder).first)
            let fields = head.split(separator: "\r\n").dropFirst().map { String($0) }
            #expect(fields.contains("X-Empty:"), "\(fields)")
            #expect(!fields.contains { $0.lowercased().hasPrefix("accept:") }, "\(fields)")
            #expect(!fields.contains { $0.lowercased().hasPrefix("user-agent") }, "\(fields)")
            #expect(!fields.contains { $0.lowercased().hasPrefix("x-gone") }, "\(fields)")
            #expect(fields.contains { $0.lowercased().hasPrefix("accept-encoding: ") }, "only what was named goes")
        }
    }

    @Test func aHeaderWithNeitherColonNorFinalSemicolonIsAUsageError() async throws {
        let output = try await Executable.batchfetch().runOffPool(
            ["fetch", "-q", "-H", "X-Half;value", "http://127.0.0.1:1/"])
        #expect(output.status == 2, "\(output)")
        #expect(output.stderr.contains("header 'X-Half;value' has no ':'"), "\(output)")
    }

    /// Any RFC 9110 token is a method, sent as given: curl sends `-X put` as `put`.
    @Test func anyMethodTokenIsSentAsGiven() async throws {
        try await RawRequestRecorder.with { recorder in
            let url = recorder.baseURL + "/m"
            let lines = [
                #"{"url":"\#(url)?1","method":"put","body_text":"x"}"#,
                #"{"url":"\#(url)?2","method":"QUERY","body_text":"q"}"#,
                #"{"url":"\#(url)?3","method":"M-SEARCH"}"#,
            ]
            let (status, records, output) = try await self.requests.run(
                ["-X", "PROPFIND", "--order", "input", url + "?0"] + lines)
            #expect(status == 0, "\(output)")
            #expect(records.count == 4 && records.allSatisfy { $0["ok"] as? Bool == true }, "\(output)")
            let sent = Set(recorder.requestLines.map { String(decoding: $0, as: UTF8.self) })
            #expect(
                sent == [
                    "PROPFIND /m?0 HTTP/1.1", "put /m?1 HTTP/1.1", "QUERY /m?2 HTTP/1.1", "M-SEARCH /m?3 HTTP/1.1",
                ])
        }
    }

    /// A POST answered 503 without `Retry-After` is not sent again; its record says why.
    @Test func aWriteNotRetriedAfterA503SaysWhy() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/flaky?key=post&fail=1&status=503"
            let output = try await Executable.batchfetch().runOffPool(["fetch", "-q", "-d", "x=1", url])
            #expect(output.status == 1, "\(output)")
            let error = try #require(try output.records().first?["error"] as? [String: Any])
            let message = error["message"] as? String ?? ""
            #expect(
                message.hasPrefix("HTTP status 503; not retried: the server may have processed this POST"), "\(message)"
            )
            #expect(message.contains("--retry-all-methods"), "\(message)")
            #expect(server.snapshot.arrivals["/flaky?key=post"]?.count == 1)
        }
    }

    /// A request whose body file cannot be opened is never sent: its record says 0 attempts.
    @Test func aMissingBodyFileIsARecordOfNoAttempt() async throws {
        try await TestHTTPServer.with { server in
            let line = #"{"url":"\#(server.baseURL)/request","method":"PUT","body_file":"/no/such/body.bin"}"#
            let (status, records, output) = try await self.requests.run(["--fields", "attempts", line])
            #expect(status == 1, "\(output)")
            let record = try #require(records.first)
            #expect((record["error"] as? [String: Any])?["kind"] as? String == "invalidRequest", "\(record)")
            #expect(record["attempts"] as? Int == 0, "\(record)")
            #expect(record["total_ms"] is NSNull, "\(record)")
            #expect((record["attempt_log"] as? [Any])?.isEmpty == true, "\(record)")
            #expect(server.arrivals.isEmpty)
        }
    }

    /// A URL list saved with a byte order mark (as some Windows editors write): the mark is not part
    /// of the first URL, from a file or from standard input; one later in the input is.
    @Test func aByteOrderMarkBeforeTheFirstLineIsSkipped() async throws {
        let directory = try ScratchDirectory("fetch-bom")
        try await TestHTTPServer.with { server in
            let text = "\u{FEFF}\(server.baseURL)/ok?a\r\n\(server.baseURL)/ok?b\n\u{FEFF}\(server.baseURL)/ok?c\n"
            let file = directory.path("urls.txt")
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            for (arguments, stdin) in [(["-i", file], nil), (["-i", "-"], text)] as [([String], String?)] {
                let (status, records, output) = try await self.requests.run(arguments, stdin: stdin)
                #expect(status == 1, "\(output)")
                #expect(records.map { $0["ok"] as? Bool } == [true, true, false], "\(arguments): \(output)")
                #expect(records.first?["url"] as? String == "\(server.baseURL)/ok?a", "\(arguments)")
            }
        }
    }
}
