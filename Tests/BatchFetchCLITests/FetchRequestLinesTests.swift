import Foundation
import TestSupport
import Testing

/// `fetch` reading a request per line (`--input-format`): JSON lines beside URL lines, ids and
/// metadata echoed byte for byte, the flags as defaults, vegeta's targets, sharding by id, and
/// lines that are not requests.
@Suite(.serialized)
struct FetchRequestLinesTests {
    private let requests = FetchRequestTests()

    private func kind(_ record: [String: Any]?) -> String? {
        (record?["error"] as? [String: Any])?["kind"] as? String
    }

    private func message(_ record: [String: Any]?) -> String {
        (record?["error"] as? [String: Any])?["message"] as? String ?? ""
    }

    @Test func jsonLinesAndURLLinesMixAndIdsAndMetaAreEchoedVerbatim() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let input = [
                #"{"url":"\#(url)?a","id":{ "k" : [1, 2.50] },"meta":"m\u00e9"}"#,
                "\(url)?b",
                #"  {"url":"\#(url)?c","method":"PUT","headers":{"X-A":"1","X-B":["2","3"]},"body":{"n": [1, 2]}}"#,
                #"{"id":17,"url":"\#(url)?d","body_text":"plain","headers":{"Content-Type":"text/plain"}}"#,
                #"{"url":"\#(url)?e","body_base64":"AAEC","meta":null}"#,
            ].joined(separator: "\n")
            let (status, records, output) = try await self.requests.run(["--body", "json"], stdin: input)
            #expect(status == 0, "\(output)")
            let lines = output.stdout.split(separator: "\n")
            #expect(lines[0].hasPrefix(#"{"index":0,"id":{ "k" : [1, 2.50] },"meta":"m\u00e9","url":"#))
            #expect(lines[1].hasPrefix(#"{"index":1,"url":"#), "a URL line's record keeps its bytes")
            #expect(records[2]["id"] == nil && records[2]["meta"] == nil)
            #expect(records[3]["id"] as? Int == 17)
            #expect(lines[4].hasPrefix(#"{"index":4,"meta":null,"url":"#))
            let seen = try records.map { try FetchRequestTests.Seen($0) }
            #expect(seen.map(\.method) == ["GET", "GET", "PUT", "POST", "POST"])
            #expect(seen[2].body == #"{"n":[1,2]}"#, "a JSON body is sent compact")
            #expect(seen[2].header("Content-Type") == ["application/json"])
            #expect(seen[2].header("X-A") == ["1"] && seen[2].header("X-B") == ["2", "3"])
            #expect(seen[3].body == "plain" && seen[3].header("Content-Type") == ["text/plain"])
            let binary = try #require(server.arrivals.first { $0.target.hasSuffix("?e") })
            #expect(binary.body == [0, 1, 2])
        }
    }

    /// -X, -H and --json give every line its defaults; a line's own method, fields and body win.
    @Test func flagsAreDefaultsThatALinesOwnFieldsOverride() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let input = [
                url,
                #"{"url":"\#(url)"}"#,
                #"{"url":"\#(url)","method":"DELETE","headers":{"X-Env":"line"},"body_text":"mine"}"#,
                #"{"url":"\#(url)","body":[1]}"#,
            ].joined(separator: "\n")
            let (status, records, output) = try await self.requests.run(
                ["-X", "PUT", "-H", "X-Env: flag", "--json", #"{"d":1}"#], stdin: input)
            #expect(status == 0, "\(output)")
            let seen = try records.map { try FetchRequestTests.Seen($0) }
            #expect(seen.map(\.method) == ["PUT", "PUT", "DELETE", "PUT"])
            #expect(seen.map(\.body) == [#"{"d":1}"#, #"{"d":1}"#, "mine", "[1]"])
            #expect(seen.map { $0.header("X-Env") } == [["flag"], ["flag"], ["line"], ["flag"]])
            #expect(seen.allSatisfy { $0.header("Accept") == ["application/json"] })
        }
    }

    @Test func linesThatAreNotRequestsAreInvalidRequestRecordsAndTheBatchGoesOn() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
            let input = [
                #"{"url":"\#(url)","colour":"red","id":"a"}"#,
                #"{"url":"\#(url)","headers":{"X":"a\r\nB: c"},"id":"b"}"#,
                #"{"url":"\#(url)","body_base64":"!!!","id":"c"}"#,
                #"{"url":"\#(url)","meta":\#(deep),"id":"d"}"#,
                #"{"url":"\#(url)","body_file":"/no/such/body","id":"e"}"#,
                #"{"url":"\#(url)"#,
                "\(url)?fine",
            ].joined(separator: "\n")
            let (status, records, output) = try await self.requests.run([], stdin: input)
            #expect(status == 1, "\(output)")
            #expect(records.count == 7)
            #expect(records.map { $0["index"] as? Int } == Array(0..<7))
            #expect(records.prefix(6).allSatisfy { self.kind($0) == "invalidRequest" })
            #expect(self.message(records[0]).contains("unknown field 'colour'"))
            #expect(self.message(records[1]).contains("field 'headers'"))
            #expect(self.message(records[2]).contains("field 'body_base64' is not valid base64"))
            #expect(self.message(records[3]).contains("nesting deeper than 512"))
            #expect(self.message(records[4]).contains("/no/such/body: cannot open it"))
            #expect(self.message(records[5]).contains("not valid JSON"))
            #expect(records.prefix(5).map { $0["id"] as? String } == ["a", "b", "c", "d", "e"])
            #expect(records[0]["url"] as? String == url)
            #expect(records[6]["ok"] as? Bool == true)
            // Only the good line reached the server: nothing of the others, no injected field.
            #expect(server.snapshot.requests == 1)
            #expect(!server.arrivals.contains { $0.head.contains("B: c") })
            #expect(output.stderr.isEmpty || !output.stderr.contains("crash"))
        }
    }

    @Test func inputFormatsDecideWhatALineIs() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let json = #"{"url":"\#(url)"}"#
            let (_, asURL, _) = try await self.requests.run(["--input-format", "urls"], stdin: json)
            #expect(self.kind(asURL.first) == "invalidURL")
            let (_, asJSON, _) = try await self.requests.run(
                ["--input-format", "jsonl"], stdin: "  \(url)?token=t0k \n{\"id\":1}\n")
            #expect(self.kind(asJSON.first) == "invalidRequest")
            #expect(self.message(asJSON.first).contains("not a JSON object"))
            // The line's text stays its record's URL (redacted as any URL); a JSON line without one has none.
            #expect(asJSON.first?["url"] as? String == "\(url)?token=***", "\(asJSON)")
            #expect(asJSON.last?["url"] as? String == "", "\(asJSON)")
            let target = #"{"method":"POST","url":"\#(url)","body":"aGk=","header":{"X-V":["1","2"]}}"#
            let (status, vegeta, output) = try await self.requests.run(["--input-format", "vegeta"], stdin: target)
            #expect(status == 0, "\(output)")
            let seen = try FetchRequestTests.Seen(vegeta.first)
            #expect(seen.method == "POST" && seen.body == "hi" && seen.header("X-V") == ["1", "2"])
            let (_, ours, _) = try await self.requests.run(["--input-format", "vegeta"], stdin: json)
            #expect(self.message(ours.first).contains("no 'method' field"))
        }
    }

    /// 10,000 POSTs to one URL, each with its id: by id they spread over the shards, every line
    /// in exactly one, records keeping their global index. (To a closed port: which line goes
    /// where is what counts here, and refused connections cost the server beside other tests nothing.)
    @Test func shardsSpreadRequestsToOneURLByTheirIds() async throws {
        let directory = try ScratchDirectory("fetch-shard-ids")
        let input = directory.path("posts.jsonl")
        let lines = (0..<10_000).map { #"{"url":"http://127.0.0.1:1/orders","body_text":"x","id":"order-\#($0)"}"# }
        try (lines.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
        var indices: [Int] = []
        for shard in 0..<4 {
            let (status, records, output) = try await self.requests.run([
                "-i", input, "--shard", "\(shard)/4", "--body", "none", "-c", "32",
            ])
            #expect(status == 1, "\(output)")
            #expect(records.count > 2_000 && records.count < 3_000, "shard \(shard): \(records.count)")
            for record in records {
                let index = record["index"] as? Int ?? -1
                #expect(record["id"] as? String == "order-\(index)")
                // Refused, or, once the closed port is found down, ended unsent.
                #expect(["connectFailed", "hostUnreachable"].contains(self.kind(record)))
                indices.append(index)
            }
        }
        #expect(indices.sorted() == Array(0..<10_000))
    }
}
