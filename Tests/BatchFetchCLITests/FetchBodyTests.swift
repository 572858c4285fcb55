import BatchFetch
import Foundation
import TestSupport
import Testing

/// What `fetch` makes of a body in `--body auto` and `text`: the media type that counts when two
/// are sent, a declared charset, and which types are text.
@Suite(.serialized)
struct FetchBodyTests {
    /// The URL of `/typed`, serving `body` with one `Content-Type` per type.
    private func typed(_ server: TestHTTPServer, _ body: some Sequence<UInt8>, _ types: [String]) -> String {
        let hex = body.map { String(format: "%02x", $0) }.joined()
        let escaped = types.map { "&type=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") }
        return "\(server.baseURL)/typed?hex=\(hex)" + escaped.joined()
    }

    /// The records of one run, in input order.
    private func fetch(_ urls: [String], body mode: String = "auto", simd: String = "") throws -> [[String: Any]] {
        let output = try Executable.batchfetch().run(
            ["fetch", "--retries", "0", "--body", mode] + urls, environment: ["BATCHFETCH_SIMD": simd])
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

    /// "café" in Latin-1, declared in the spellings servers use: text in `auto` and `text` alike.
    @Test(arguments: [
        "text/html; charset=iso-8859-1", "text/html;charset=\"ISO-8859-1\"", "TEXT/HTML ; Charset = Latin1",
        "image/svg+xml; charset=windows-1252", "application/json; charset=iso-8859-1",
    ])
    func aLatin1BodyThatDeclaresItsCharsetIsText(contentType: String) async throws {
        try await TestHTTPServer.with { server in
            let url = self.typed(server, [0x63, 0x61, 0x66, 0xE9], [contentType])
            for mode in ["auto", "text"] {
                let record = try #require(try self.fetch([url], body: mode).first)
                #expect(record["body"] as? String == "café", "\(mode): \(record)")
                #expect(record["body_encoding"] == nil, "\(mode): \(record)")
            }
        }
    }

    /// Without a conversion, each mode does what it did without a charset: base64 in `auto`, each
    /// ill-formed sequence as U+FFFD in `text`.
    @Test(arguments: [
        "text/plain; charset=x-no-such-charset", "text/plain; charset=iso-2022-jp", "text/plain; charset=utf-8",
        "text/plain; charset=us-ascii", "text/plain; charset=\"utf-16//IGNORE\"",
    ])
    func bodiesTheirCharsetCannotDecodeKeepTodaysFallback(contentType: String) async throws {
        try await TestHTTPServer.with { server in
            let bytes: [UInt8] = [0x63, 0x61, 0x66, 0xE9]
            let url = self.typed(server, bytes, [contentType])
            let auto = try #require(try self.fetch([url]).first)
            #expect(auto["body"] as? String == Data(bytes).base64EncodedString(), "\(auto)")
            #expect(auto["body_encoding"] as? String == "base64")
            let text = try #require(try self.fetch([url], body: "text").first)
            #expect(text["body"] as? String == "caf\u{FFFD}", "\(text)")
        }
    }

    /// JSON is embedded as it came whatever charset it declares (RFC 8259 §11: JSON is UTF-8).
    @Test func jsonIsEmbeddedAsItIsWhateverCharsetItDeclares() async throws {
        try await TestHTTPServer.with { server in
            let url = self.typed(server, Array(#"{"drink":"café"}"#.utf8), ["application/json; charset=iso-8859-1"])
            let record = try #require(try self.fetch([url]).first)
            #expect((record["body"] as? [String: Any])?["drink"] as? String == "café", "\(record)")
        }
    }

    /// README's `--body auto` rule is what records do: `+xml` and `+json` types (SVG among them)
    /// are text; other images, audio, video, fonts, models and `application/*` types are base64.
    @Test func theReadmesBodyRuleIsWhatRecordsDo() async throws {
        try await TestHTTPServer.with { server in
            let svg = Array("<svg xmlns=\"http://www.w3.org/2000/svg\"/>".utf8)
            let types: [(type: String, base64: Bool)] = [
                ("image/svg+xml", false), ("application/vnd.example+xml", false), ("application/problem+json", false),
                ("application/yaml", false), ("multipart/mixed", false), ("image/png", true),
                ("application/octet-stream", true), ("font/woff2", true), ("model/gltf-binary", true),
                ("audio/mpeg", true), ("IMAGE/SVG+XML ; Charset=UTF-8", false), ("Image/PNG; name=\"x.json\"", true),
            ]
            let records = try self.fetch(types.map { self.typed(server, svg, [$0.type]) })
            #expect(records.map { $0["body_encoding"] as? String } == types.map { $0.base64 ? "base64" : nil })
            #expect(records[0]["body"] as? String == String(decoding: svg, as: UTF8.self))
        }
        let readme = try String(
            contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
                .deletingLastPathComponent().appendingPathComponent("README.md"),
            encoding: .utf8)
        let lines = readme.split(separator: "\n")
        let start = try #require(lines.firstIndex { $0.hasPrefix("- `--body auto`") })
        let bullet = ([lines[start]] + lines[(start + 1)...].prefix { $0.hasPrefix("  ") }).joined(separator: " ")
            .split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for phrase in [
            "`model/*`", "`+json`, `+xml`: `image/svg+xml` is text", "the `charset` its type", "the last counts",
        ] {
            #expect(bullet.contains(phrase), "README's --body auto rule does not say \(phrase)")
        }
    }

    /// The body kernels (escaping, JSON validation, base64) at every SIMD level this CPU runs
    /// (`BATCHFETCH_SIMD`) put the same bodies in records as the scalar ones: the kernels' own
    /// tests compare them in-process, this compares what the command writes with them.
    @Test func everySIMDLevelWritesTheSameBodies() async throws {
        try await TestHTTPServer.with { server in
            var html = Array("<p class=\"x\">Caf\u{E9}\t\u{65E5}\u{672C} \u{1F378} \\ \u{1} end</p>\r\n".utf8)
            html = Array(repeating: html, count: 24).flatMap { $0 }
            let json =
                Array(#"{"drinks":[{"id":"1","name":"Caf\u00e9 \"x\"","n":-1.5e3,"t":true,"z":null}],"#.utf8)
                + Array(repeating: Array(#""pad":"0123456789abcdef","#.utf8), count: 40).flatMap { $0 }
                + Array(#""end":[]}"#.utf8)
            let binary = (0..<1_500).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
            let urls = [
                self.typed(server, html, ["text/html; charset=utf-8"]), self.typed(server, json, ["application/json"]),
                self.typed(server, binary, ["image/png"]),
            ]
            let bodies = { (records: [[String: Any]]) in
                try records.map { record in
                    let body = ["body": record["body"] ?? NSNull(), "encoding": record["body_encoding"] ?? NSNull()]
                    return String(
                        decoding: try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys]),
                        as: UTF8.self)
                }
            }
            let scalar = try bodies(try self.fetch(urls, simd: "scalar"))
            #expect(scalar.count == 3)
            #expect(scalar[0].contains(#"\t"#) && scalar[2].contains("base64"), "\(scalar)")
            for level in SIMDLevel.available where level != .scalar {
                #expect(try bodies(try self.fetch(urls, simd: level.rawValue)) == scalar, "\(level)")
            }
        }
    }
}
