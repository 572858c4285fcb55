import BatchFetch
import Foundation
import TestSupport
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

/// `JSONBytes.stringLiteral(validatingUTF8:)` escapes bodies by runs with UTF-8 checked in the same
/// pass; it must write what escaping the decoded text byte by byte writes, and refuse exactly the
/// byte strings that are not well-formed UTF-8.
struct JSONBytesRunEscapingTests {
    /// The reference: Swift's own UTF-8 validation, then `string(_:)` (which escapes per byte).
    private func reference(_ bytes: [UInt8]) -> [UInt8]? {
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return nil
        }
        var json = JSONBytes()
        json.string(text)
        return json.buffer
    }

    private func literal(_ bytes: [UInt8]) -> [UInt8]? {
        bytes.withUnsafeBytes { JSONBytes.stringLiteral(validatingUTF8: $0) }
    }

    @Test func everyByteThatNeedsEscapingIsEscapedAsStringWritesIt() {
        // Each byte that needs escaping, alone and at every offset of a 40-byte run (blocks of 16).
        for byte in Array(0x00...0x1F) + [0x22, 0x5C, 0x7F] {
            for offset in 0..<40 {
                var bytes = [UInt8](repeating: UInt8(ascii: "a"), count: 40)
                bytes[offset] = UInt8(byte)
                #expect(self.literal(bytes) == self.reference(bytes), "byte \(byte) at \(offset)")
            }
        }
        #expect(self.literal(Array("<a href=\"x\">\tcafé</a>\n".utf8)) == Array(#""<a href=\"x\">\tcafé</a>\n""#.utf8))
        #expect(self.literal([]) == Array(#""""#.utf8))
    }

    @Test func illFormedUTF8IsRefusedWhereverItStands() {
        let bad: [[UInt8]] = [
            [0x80], [0xBF], [0xC0, 0x80], [0xC1, 0xBF], [0xC2], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF],
            [0xED, 0xA0, 0x80], [0xED, 0xBF, 0xBF], [0xE1, 0x80], [0xF0, 0x80, 0x80, 0x80], [0xF0, 0x8F, 0xBF, 0xBF],
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xFF], [0xFE], [0xF0, 0x9F, 0x8D], [0xC3, 0x41],
        ]
        for sequence in bad {
            for offset in [0, 1, 13, 14, 15, 16, 17, 31, 33] {
                let bytes = [UInt8](repeating: UInt8(ascii: "x"), count: offset) + sequence + Array("\"tail\"".utf8)
                #expect(self.literal(bytes) == nil, "\(sequence) at \(offset)")
                #expect(self.literal(Array(bytes.prefix(offset)) + sequence) == nil, "\(sequence) at the end")
            }
        }
    }

    @Test func randomTextAndBytesMatchTheReference() {
        var random = SeededGenerator(seed: 25)
        let pieces: [[UInt8]] = [
            Array("a".utf8), Array("plain text ".utf8), Array("\"".utf8), Array("\\".utf8), Array("\n".utf8),
            Array("\t".utf8), [0x00], [0x1F], [0x7F], Array("é".utf8), Array("—".utf8), Array("日本".utf8),
            Array("🍸".utf8), Array("<p class=\"c\">".utf8), [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90],
        ]
        for round in 0..<3_000 {
            // Mostly valid text; every fourth round may hold stray or truncated sequences.
            let count = Int.random(in: 0..<60, using: &random)
            let choices = round % 4 == 0 ? pieces.count : pieces.count - 4
            var bytes: [UInt8] = []
            for _ in 0..<count {
                bytes += pieces[Int.random(in: 0..<choices, using: &random)]
            }
            let got = self.literal(bytes)
            let want = self.reference(bytes)
            guard got == want else {
                Issue.record("\(bytes): \(got.map { String(decoding: $0, as: UTF8.self) } ?? "nil")")
                return
            }
        }
    }

    @Test func textWhereMostBytesNeedEscapingTakesTheWorstCaseRoom() {
        let controls = [UInt8](repeating: 0x01, count: 5_000) + Array("\"\"\"".utf8)
        let literal = self.literal(controls)
        let expected: Int = 2 + 5_000 * 6 + 3 * 2
        #expect(literal?.count == expected)
        #expect(literal == self.reference(controls))
    }
}
