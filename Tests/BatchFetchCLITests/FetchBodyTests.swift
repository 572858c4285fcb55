import Foundation
import TestSupport
import Testing

/// What `fetch` makes of a body in `--body auto` and `text`: the media type that counts when two
/// are sent.
@Suite(.serialized)
struct FetchBodyTests {
    /// The URL of `/typed`, serving `body` with one `Content-Type` per type.
    private func typed(_ server: TestHTTPServer, _ body: some Sequence<UInt8>, _ types: [String]) -> String {
        let hex = body.map { String(format: "%02x", $0) }.joined()
        let escaped = types.map { "&type=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        return "\(server.baseURL)/typed?hex=\(hex)" + escaped.joined()
    }

    /// The records of one run, in input order.
    private func fetch(_ urls: [String], body mode: String = "auto") throws -> [[String: Any]] {
        let output = try Executable.batchfetch().run(["fetch", "--retries", "0", "--body", mode] + urls)
        #expect(output.status == 0, "\(output)")
        return try output.records()
    }

    /// curl's `%{content_type}` is the last of two fields; the record's type is too, and the body
    /// follows it.
    @Test func aRepeatedContentTypeCountsAsItsLastOneAsInCurl() async throws {
        try await TestHTTPServer.with { server in
            let text = Array("héllo".utf8)
            let records = try self.fetch([
                self.typed(server, text, ["image/png", "text/plain"]),
                self.typed(server, text, ["text/plain", "image/png"]),
                self.typed(server, text, ["text/plain", ""]),
            ])
            #expect(records.count == 3)
            #expect(records[0]["content_type"] as? String == "text/plain")
            #expect(records[0]["body"] as? String == "héllo" && records[0]["body_encoding"] == nil)
            #expect(records[1]["content_type"] as? String == "image/png")
            #expect(records[1]["body"] as? String == Data(text).base64EncodedString())
            #expect(records[1]["body_encoding"] as? String == "base64")
            #expect(records[2]["content_type"] as? String == "text/plain", "an empty one says nothing, as in curl")
        }
    }
}
