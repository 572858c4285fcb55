import Foundation
import Testing

@testable import BatchFetch

/// JSON request lines read into requests: every field, and every way a line can be wrong.
struct RequestLineTests {
    private func read(_ text: String, format: RequestLine.Format = .batchfetch) -> RequestLine {
        var text = text
        return text.withUTF8 { RequestLine(parsing: UnsafeRawBufferPointer($0), format: format) }
    }

    private func text(_ bytes: [UInt8]?) -> String? {
        bytes.map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func everyFieldIsReadAndIdAndMetaKeepTheirBytes() {
        let line = self.read(
            #" { "url" : "http://h/p?q=1" , "method":"PATCH", "headers":{"X-A":"1","Accept":["a/b","c/d"]},"#
                + #" "body": { "k" : [1, 2.50, "x y\"z"] }, "id": { "n" : 7 }, "meta":[ "m", null ] } "#)
        #expect(line.problem == nil)
        #expect(line.url == "http://h/p?q=1")
        #expect(line.method == .patch)
        #expect(
            line.headers == [
                HeaderField(name: "X-A", value: "1"), HeaderField(name: "Accept", value: "a/b"),
                HeaderField(name: "Accept", value: "c/d"),
            ])
        #expect(line.body == .json(Array(#"{"k":[1,2.50,"x y\"z"]}"#.utf8)))
        #expect(self.text(line.id) == #"{ "n" : 7 }"#)
        #expect(self.text(line.meta) == #"[ "m", null ]"#)
    }

    @Test func bodiesComeAsTextBase64OrAFile() {
        #expect(self.read(#"{"url":"http://h","body_text":"a\u00e9\nb"}"#).body == .bytes(Array("aé\nb".utf8)))
        #expect(self.read(#"{"url":"http://h","body_base64":"AAEC/w=="}"#).body == .bytes([0, 1, 2, 255]))
        #expect(self.read(#"{"url":"http://h","body_base64":"AAEC\/w=="}"#).body == .bytes([0, 1, 2, 255]))
        #expect(self.read(#"{"url":"http://h","body_file":"/tmp/b.bin"}"#).body == .file("/tmp/b.bin"))
        #expect(self.read(#"{"url":"http://h","body":"just a string"}"#).body == .json(Array(#""just a string""#.utf8)))
        let plain = self.read(#"{"url":"http://h"}"#)
        #expect(
            plain.body == nil && plain.method == nil && plain.id == nil && plain.meta == nil && plain.problem == nil)
    }

    @Test func problemsAreInvalidRequestsNamingTheField() {
        let cases: [(line: String, says: String)] = [
            (#"{"url":"http://h","colour":"red"}"#, "unknown field 'colour'"),
            (#"{"url":42}"#, "field 'url' is not a string"),
            (#"{"url":"http://h","method":"GET /"}"#, "field 'method': 'GET /' is not a method"),
            (#"{"url":"http://h","method":"PUT\r\nX: 1"}"#, #"field 'method': 'PUT\r\nX: 1' is not a method"#),
            (#"{"url":"http://h","headers":{"X":1}}"#, "field 'headers': the value of 'X'"),
            (#"{"url":"http://h","headers":["X: 1"]}"#, "field 'headers' is not an object"),
            (#"{"url":"http://h","headers":{"X":["a",2]}}"#, "the value of 'X' is not an array of strings"),
            (#"{"url":"http://h","headers":{"Bad Name":"v"}}"#, "field 'headers': header name 'Bad Name'"),
            (#"{"url":"http://h","body_base64":"not base64!"}"#, "field 'body_base64' is not valid base64"),
            (#"{"url":"http://h","body_text":"a","body":{}}"#, "fields 'body_text' and 'body' both give a body"),
            (#"{"url":"http://h","url":"http://i"}"#, "field 'url' is given twice"),
            (#"{"url":"http://h","body_file":""}"#, "field 'body_file' is not a file name"),
            (#"{"method":"GET"}"#, "no 'url' field"),
            (#"{}"#, "no 'url' field"),
            (#"{"url":"http://h""#, "not valid JSON"),
            (#"{"url":"http://h",}"#, "not valid JSON"),
            (#"{"url":"http://h"} trailing"#, "text after the request object"),
            (#"["http://h"]"#, "not a JSON object"),
            ("{\"url\":\"http://h\",\"body_text\":\"a\u{01}\"}", "not valid JSON"),
        ]
        for (text, says) in cases {
            let problem = self.read(text).problem
            #expect(problem?.kind == .invalidRequest, "\(text)")
            #expect(problem?.message.contains(says) == true, "\(text): \(problem?.message ?? "no problem")")
        }
    }

    /// `"X":"a\r\nB: c"` would end the field and add one; it is refused, nothing of it kept.
    @Test func aHeaderValueWithCRLFIsRefusedNotInjected() {
        let line = self.read(#"{"url":"http://h","headers":{"X":"a\r\nB: c"},"id":5}"#)
        #expect(line.problem?.kind == .invalidRequest)
        #expect(line.problem?.message.contains("field 'headers'") == true)
        #expect(line.problem?.message.contains("CR, LF or NUL") == true)
        #expect(line.headers.isEmpty)
        #expect(self.text(line.id) == "5")
        let nul = self.read(#"{"url":"http://h","headers":{"X":["a\u0000b"]}}"#)
        #expect(nul.problem?.message.contains("CR, LF or NUL") == true)
    }

    /// A line with a problem still gives its url, id and meta, so that its record carries them.
    @Test func aLineWithAProblemKeepsItsUrlIdAndMeta() {
        let line = self.read(#"{"id":"a-1","body_base64":"%%%","meta":{"k":1},"url":"http://h/x"}"#)
        #expect(line.problem?.message.contains("body_base64") == true)
        #expect(line.url == "http://h/x")
        #expect(self.text(line.id) == #""a-1""#)
        #expect(self.text(line.meta) == #"{"k":1}"#)
        #expect(line.body == nil)
        // JSON broken after the id: the id, valid on its own, is kept; the broken url is not.
        let broken = self.read(#"{"id":1,"url":"http://h"#)
        #expect(broken.problem?.message.contains("not valid JSON") == true)
        #expect(self.text(broken.id) == "1" && broken.url == nil)
    }

    @Test func deepNestingIsAProblemNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        let line = self.read(#"{"url":"http://h","meta":"# + deep + "}")
        #expect(line.problem?.kind == .invalidRequest)
        #expect(line.problem?.message.contains("nesting deeper than 512") == true)
        #expect(line.meta == nil)
        // The id after it is still found for the record; the deep value is not kept.
        let before = self.read(#"{"url":"http://h","meta":"# + deep + #","id":"after"}"#)
        #expect(before.problem != nil && before.meta == nil && self.text(before.id) == #""after""#)
        let deepId = self.read(#"{"url":"http://h","id":"# + deep + "}")
        #expect(deepId.problem != nil && deepId.id == nil && deepId.url == "http://h")
        let shallow = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(self.text(self.read(#"{"url":"http://h","meta":"# + shallow + "}").meta) == shallow)
    }

    /// A CR between tokens would end a record's line for some readers; it becomes a space.
    @Test func aCarriageReturnBetweenTokensOfMetaBecomesASpace() {
        let line = self.read("{\"url\":\"http://h\",\"meta\":{\"a\":\r1,\"b\":\"x\\ry\"}}")
        #expect(self.text(line.meta) == "{\"a\": 1,\"b\":\"x\\ry\"}")
    }

    @Test func vegetaTargetsAreReadAsVegetaWritesThem() {
        let line = self.read(
            #"{"method":"POST","url":"http://h/t","body":"eyJhIjoxfQ==","header":{"X-A":["1","2"]}}"#,
            format: .vegeta)
        #expect(line.problem == nil)
        #expect(line.method == .post)
        #expect(line.body == .bytes(Array(#"{"a":1}"#.utf8)))
        #expect(line.headers == [HeaderField(name: "X-A", value: "1"), HeaderField(name: "X-A", value: "2")])
        let cases: [(line: String, says: String)] = [
            (#"{"url":"http://h"}"#, "no 'method' field"),
            (#"{"method":"GET","url":"http://h","id":1}"#, "unknown field 'id'"),
            (#"{"method":"GET","url":"http://h","headers":{}}"#, "unknown field 'headers'"),
            (#"{"method":"GET","url":"http://h","header":{"X":"v"}}"#, "is not an array of strings"),
            (#"{"method":"GET","url":"http://h","body":"{}"}"#, "field 'body' is not valid base64"),
        ]
        for (text, says) in cases {
            let problem = self.read(text, format: .vegeta).problem
            #expect(problem?.message.contains(says) == true, "\(text): \(problem?.message ?? "no problem")")
        }
    }

    /// (ReliabilityTests' HostileRequestTests sends a 10 MB one through the command.)
    @Test func aLineOfMegabytesIsRead() {
        let big = String(repeating: "x", count: 2 << 20)
        let line = self.read(#"{"url":"http://h","body_text":""# + big + #"","id":1}"#)
        #expect(line.problem == nil)
        #expect(line.body == .bytes(Array(big.utf8)))
        #expect(self.text(line.id) == "1")
    }

    @Test func escapedKeysAndValuesAreDecoded() {
        let line = self.read(#"{"u\u0072l":"http://h/\u00e9","m\u0065thod":"DELETE"}"#)
        #expect(line.problem == nil)
        #expect(line.url == "http://h/é")
        #expect(line.method == .delete)
    }
}
