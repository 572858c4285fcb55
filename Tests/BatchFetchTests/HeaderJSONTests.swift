import BatchFetch
import Foundation
import Testing

/// `JSONBytes.headers(_:)`: a response's fields in the shape of curl's `%{header_json}`.
struct HeaderJSONTests {
    private func json(_ raw: [UInt8]) -> String {
        var json = JSONBytes()
        json.headers(HTTPHeaders(raw: raw))
        return String(decoding: json.buffer, as: UTF8.self)
    }

    @Test func namesAreLowerCasedAndRepeatedFieldsGatherTheirValuesInOrder() throws {
        let raw = "Content-Type: application/json\r\nSet-Cookie: a=1\r\nX-Trace:  t1 \r\nset-cookie: b=2\r\n"
        let text = self.json(Array(raw.utf8))
        #expect(text == #"{"content-type":["application/json"],"set-cookie":["a=1","b=2"],"x-trace":["t1"]}"#)
    }

    @Test func quotesAndBackslashesInPrintableValuesAreEscapedAsAnyJSONString() throws {
        let raw = "ETag: \"v1\"\r\nX-Path: a\\b\r\nX-Del: a\u{7F}\r\n"
        let text = self.json(Array(raw.utf8))
        #expect(text == #"{"etag":["\"v1\""],"x-path":["a\\b"],"x-del":["a\u007f"]}"#)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String]])
        #expect(object == ["etag": [#""v1""#], "x-path": [#"a\b"#], "x-del": ["a\u{7F}"]])
    }

    @Test func anEmptyBlockIsAnEmptyObjectAndLinesWithoutAColonAreSkipped() {
        #expect(self.json([]) == "{}")
        #expect(self.json(Array("garbage line\r\nA: 1\r\n".utf8)) == #"{"a":["1"]}"#)
    }

    @Test func bytesThatAreNotUTF8BecomeReplacementCharactersAndQuotesAreEscaped() throws {
        // Latin-1 "café", a lone continuation byte, and a value with a quote and a backslash.
        var raw = Array("X-Name: caf".utf8) + [0xE9] + Array("\r\nX-B\u{0}d: ".utf8) + [0x80]
        raw += Array("\r\nX-Q: say \"hi\" \\ ok\r\nX-Utf8: ünï\r\nSet-Cookie: a=1\r\nset-COOKIE: b=2\r\n".utf8)
        let text = self.json(raw)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: [String]])
        #expect(object["x-name"] == ["caf\u{FFFD}"])
        #expect(object["x-b\u{0}d"] == ["\u{FFFD}"])
        #expect(object["x-q"] == [#"say "hi" \ ok"#])
        #expect(object["x-utf8"] == ["ünï"])
        // Escaping takes another path than plain text: it groups and lower-cases alike.
        #expect(object["set-cookie"] == ["a=1", "b=2"] && object.count == 5)
        #expect(text.hasPrefix(#"{"x-name":["caf\#u{FFFD}"],"#))
    }
}
