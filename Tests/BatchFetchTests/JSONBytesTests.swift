import BatchFetch
import Foundation
import Testing

/// `JSONBytes.string(jsonContent:)` re-escapes a validated string's content in one pass; it must
/// write exactly what `string(_:)` writes for the decoded text.
struct JSONBytesTests {
    private func reEscaped(_ content: String) -> String {
        var json = JSONBytes()
        var content = content
        content.withUTF8 { json.string(jsonContent: UnsafeRawBufferPointer($0)) }
        return String(decoding: json.buffer, as: UTF8.self)
    }

    private func reference(_ content: String) -> String {
        var content = content
        let text = content.withUTF8 { raw in
            FlatScanner(UnsafeRawBufferPointer(raw)).text(0..<raw.count, escaped: true)
        }
        var json = JSONBytes()
        json.string(text)
        return String(decoding: json.buffer, as: UTF8.self)
    }

    @Test func everyEscapeIsWrittenAsTheDecodedTextIsWritten() {
        let contents = [
            "", "plain", #"a\/b"#, #"\"quoted\""#, #"back\\slash"#, #"\b\f\n\r\t"#, #"\u0000\u0001\u001f"#,
            #"\u007f"#, "raw\u{7F}del", #"caf\u00e9"#, #"\u64e6"#, #"\ud83c\udf78"#, #"\ud800"#, #"\udc00x"#,
            #"\ud800\u0041"#, #"\u0022\u005c\u002f"#, #"end\\"#, #"\/"#, "ünïcödé raw",
        ]
        for content in contents {
            #expect(self.reEscaped(content) == self.reference(content), "\(content)")
        }
        #expect(self.reEscaped(#"a\/b \u00e9 \n"#) == #""a/b é \n""#)
    }

    @Test func randomContentIsWrittenAsTheDecodedTextIsWritten() {
        var state: UInt64 = 0x1234_5678
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        let pieces = [
            "a", " ", "/", #"\/"#, #"\""#, #"\\"#, #"\n"#, #"\t"#, #"\b"#, #"\f"#, #"\u0000"#, #"\u007F"#, "\u{7F}",
            #"\u00E9"#, "é", "擦", #"\uD83C\uDF78"#, #"\uD800"#, #"\uDFFF"#, "🍸", #"\u0041"#,
        ]
        for _ in 0..<2_000 {
            let content = (0..<next(12)).map { _ in pieces[next(pieces.count)] }.joined()
            let got = self.reEscaped(content)
            let want = self.reference(content)
            guard got == want else {
                Issue.record("\(content): \(got) but \(want)")
                return
            }
        }
    }
}
