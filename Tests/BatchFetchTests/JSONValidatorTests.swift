import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// The C validator (JSONValidator, CBytes/json_validate.h) against JSONScanner: every
/// implementation this machine runs must accept exactly the documents the scanner accepts.
struct JSONValidatorTests {
    private static let implementations = JSONValidator.Implementation.allCases.filter(\.isAvailable)

    private func scannerAccepts(_ bytes: [UInt8], maxDepth: Int) -> Bool {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(bytes: raw, path: [], maxDepth: maxDepth)
            return (try? scanner.scan()) != nil
        }
    }

    /// Checks every implementation against the scanner on `bytes`; returns the scanner's verdict.
    @discardableResult
    private func expectAgreement(_ bytes: [UInt8], maxDepth: Int = 512, _ note: @autoclosure () -> String = "")
        -> Bool
    {
        let expected = self.scannerAccepts(bytes, maxDepth: maxDepth)
        let lineBreaks = bytes.contains(0x0A) || bytes.contains(0x0D)
        for implementation in Self.implementations {
            let (verdict, mayHoldLineBreaks) = bytes.withUnsafeBytes { raw in
                JSONValidator.check(raw, maxDepth: maxDepth, using: implementation)
            }
            if verdict != expected {
                let text = String(decoding: bytes.prefix(200), as: UTF8.self)
                Issue.record(
                    "\(implementation): \(String(describing: verdict)), scanner: \(expected), maxDepth \(maxDepth) \(note()): \(text)"
                )
            }
            // A valid document said to hold no line break must hold none (records rely on it).
            if verdict == true && lineBreaks && !mayHoldLineBreaks {
                let text = String(decoding: bytes.prefix(200), as: UTF8.self)
                Issue.record("\(implementation): a line break missed \(note()): \(text)")
            }
        }
        return expected
    }

    /// What `Envelope("").content(of:)` must give: what the scanner alone gave before the
    /// validator, as text that compares the case, range, kind, message and error.
    private func scannerContent(_ bytes: [UInt8], maxDepth: Int) -> String {
        if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) {
            return "error emptyBody: the body is empty where a JSON document was expected"
        }
        let outcome: Result<JSONScanner.Target, JSONScanner.Failure> = bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(bytes: raw, path: [], maxDepth: maxDepth)
            do throws(JSONScanner.Failure) {
                return .success(try scanner.scan())
            } catch {
                return .failure(error)
            }
        }
        switch outcome {
        case .failure(let failure):
            return "error invalidJSON: invalid JSON at byte \(failure.offset): \(failure.reason)"
        case .success(.found(let range, .string)):
            let inner = Array(bytes[(range.lowerBound + 1)..<(range.upperBound - 1)])
            return "message "
                + inner.withUnsafeBufferPointer { String(decoding: JSONScanner.unescape($0), as: UTF8.self) }
        case .success(.found(_, .null)):
            return "null"
        case .success(.found(let range, let kind)):
            return "value \(range) \(kind)"
        case .success(let other):
            return "unexpected \(other)"
        }
    }

    private func envelopeContent(_ bytes: [UInt8], maxDepth: Int) -> String {
        do throws(FetchError) {
            switch try Envelope("", maxDepth: maxDepth).content(of: Data(bytes)) {
            case .value(let slice): return "value \(slice.range) \(slice.kind)"
            case .null: return "null"
            case .message(let text): return "message " + text
            case .missing: return "missing"
            }
        } catch {
            return "error \(error.kind): \(error.message)"
        }
    }

    // MARK: - documents

    private static let words = [
        "shake", "well", "with", "ice", "strain", "into", "a", "chilled", "glass", "Añejo",
        "crème", "de", "cassis", "garnish", "lime", "🍸", "and", "serve",
    ]

    /// A drink as TheCocktailDB's search.php sends it (PHP's encoder: '/' as '\/', nulls for the
    /// unused ingredients), with some non-ASCII text and \u escapes.
    private func drink(_ id: Int, using generator: inout SeededGenerator) -> String {
        func sentence(_ count: Int) -> String {
            (0..<count).map { _ in Self.words.randomElement(using: &generator)! }.joined(separator: " ") + "."
        }
        func optional(_ text: String) -> String {
            Bool.random(using: &generator) ? "null" : "\"\(text)\""
        }
        var fields = [
            #""idDrink":"\#(id)""#, #""strDrink":"\#(sentence(2))""#, #""strDrinkAlternate":null"#,
            #""strTags":\#(optional("IBA,ContemporaryClassic"))"#, #""strCategory":"Ordinary Drink""#,
            #""strInstructions":"\#(sentence(Int.random(in: 5...40, using: &generator)))""#,
            #""strInstructionsDE":\#(optional(#"R\u00fchren, dann \"sch\u00fctteln\"\n"#))"#,
            #""strDrinkThumb":"https:\/\/www.thecocktaildb.com\/images\/media\/drink\/\#(id)qwxuyw1.jpg""#,
        ]
        let used = Int.random(in: 1...7, using: &generator)
        for i in 1...15 {
            fields.append(#""strIngredient\#(i)":\#(i <= used ? "\"Light rum\"" : "null")"#)
        }
        for i in 1...15 {
            fields.append(#""strMeasure\#(i)":\#(i <= used ? #""1 1\/2 oz ""# : "null")"#)
        }
        fields.append(#""dateModified":"2016-04-03 10:31:12""#)
        return "{" + fields.joined(separator: ",") + "}"
    }

    private func drinksDocument(drinks: Int, using generator: inout SeededGenerator) -> [UInt8] {
        let list = (0..<drinks).map { self.drink(11_000 + $0, using: &generator) }.joined(separator: ",")
        return Array(#"{"drinks":[\#(list)]}"#.utf8)
    }

    // MARK: - tests

    @Test func generatedDrinkDocumentsAreValidForEveryImplementation() {
        var generator = SeededGenerator(seed: 25)
        for drinks in 0..<40 {
            let document = self.drinksDocument(drinks: drinks, using: &generator)
            #expect(self.expectAgreement(document, "\(drinks) drinks"), "\(drinks) drinks")
            #expect(self.envelopeContent(document, maxDepth: 512) == "value 0..<\(document.count) object")
        }
    }

    @Test func trickyDocumentsGetTheScannersVerdict() {
        let valid: [String] = [
            "{}", "[]", " {} ", "\t\n\r {}\r\n\t", "[{}]", "[[]]", "[ ]", "{ }", #"{"a":{}}"#, #"{"a":[]}"#, "0", "-0",
            "-0.0", "1e5", "1E+5", "1e-5", "-1.5e+10", "123", "[1,-2,3.5,0]", "true", "false", "null",
            "[true,false,null]", #""""#, #""a""#, #""\"""#, #""\\""#, #""\/""#, #""\b""#, #""\f""#, #""\n""#, #""\r""#,
            #""\t""#, #""\u0041""#, #""\uD800""#, #""\uDC00\uD800""#, #""\uABCD\uabcd""#, "\"\u{7F}\"", "\"é€🍸\"",
            #" { "a" : [ 1 , { } , [ ] ] , "b" : null , "c" : "d" } "#, #"{"a":1,"b":[{"c":true}],"d":"e"}"#,
            #"[" ", "\\\\", "\\\"", "a\/b"]"#,
        ]
        let invalid: [String] = [
            "", " ", "\t\n", "{", "[", "}", "]", "[}", "{]", #"{"a"}"#, #"{"a":}"#, #"{"a":1,}"#, "[1,]", "[,1]", "{,}",
            "[1 2]", #"{"a":1 "b":2}"#, "{1:2}", #"{"a" 1}"#, #"["a":1]"#, #"{"a":1:2}"#, "[1]]", "[[1]", "{}}",
            "{} {}", "[] x", "1 2", #""a" "b""#, #""a""b""#, "nulll", "truefalse", "{}x", "1,", "{} ,", ":", ",",
            #"{"a","b"}"#, #"{"a":"b","c"}"#, #"[{"a":1]"#, #"{"a":[1}"#,
            // Numbers.
            "01", "-01", "1.", ".1", "1e", "1e+", "1E-", "-", "+1", "1.e5", "0x10", "1_000", "--1", "1.5.5", "1e5e5",
            "Infinity", "NaN", "-Infinity", "[01]", "[1.]", "[-]", "[1e]", "-a", "1-", "[1-2]",
            // Literals.
            "t", "tr", "tru", "f", "fals", "n", "nul", "True", "NULL", "nulL", "[tru]", "[nul,1]", "truex", "[nullx]",
            // Escapes.
            #""\x""#, #""\a""#, #""\U0041""#, #""\u12G4""#, #""\u123""#, #""\u""#, #""\u12""#, "\"\\", #""\""#,
            "\"\\ \"", "\"\\\u{01}\"", "\"\\é\"", #"\"a""#, #"[\"a"]"#, "[1,\\]", "\\",
            // Unterminated strings.
            "\"", "\"abc", #"{"a":"b"#, #"{"a"#,
            // Control characters in strings, and outside them.
            "\"\u{00}\"", "\"\u{01}\"", "\"\t\"", "\"\n\"", "\"\r\"", "\"\u{1F}\"", "[1,\u{01}2]", "\u{0C}1", "1\u{0B}",
            "[\u{00}]", "\u{7F}", "[1]\u{00}",
            // Non-ASCII outside strings, and a byte order mark.
            "[é]", "é", "\u{FEFF}{}",
        ]
        for text in valid {
            #expect(self.expectAgreement(Array(text.utf8), text), "\(text)")
        }
        for text in invalid {
            #expect(!self.expectAgreement(Array(text.utf8), text), "\(text)")
        }
    }

    @Test func everyClassOfInvalidUTF8IsRejectedInsideAndOutsideStrings() {
        let valid: [[UInt8]] = [
            [0xC2, 0x80], [0xDF, 0xBF], [0xE0, 0xA0, 0x80], [0xEF, 0xBF, 0xBF], [0xED, 0x9F, 0xBF], [0xEE, 0x80, 0x80],
            [0xF0, 0x90, 0x80, 0x80], [0xF4, 0x8F, 0xBF, 0xBF], [0xF3, 0xBF, 0xBF, 0xBF],
        ]
        let invalid: [[UInt8]] = [
            // Overlong 2-, 3- and 4-byte forms.
            [0xC0, 0x80], [0xC1, 0xBF], [0xE0, 0x80, 0x80], [0xE0, 0x9F, 0xBF], [0xF0, 0x80, 0x80, 0x80],
            [0xF0, 0x8F, 0xBF, 0xBF],
            // Surrogates D800-DFFF encoded in UTF-8.
            [0xED, 0xA0, 0x80], [0xED, 0xAF, 0xBF], [0xED, 0xB0, 0x80], [0xED, 0xBF, 0xBF],
            // Above U+10FFFF, and bytes F5-FF.
            [0xF4, 0x90, 0x80, 0x80], [0xF5, 0x80, 0x80, 0x80], [0xF7, 0xBF, 0xBF, 0xBF], [0xF8], [0xFB], [0xFE],
            [0xFF],
            // Truncated sequences, and leads followed by a non-continuation.
            [0xC3], [0xE2, 0x82], [0xF0, 0x9F, 0x8D], [0xC3, 0x28], [0xE2, 0x28, 0xA1], [0xF0, 0x28, 0x8C, 0xBC],
            [0xE2, 0x82, 0x28],
            // Stray continuation bytes.
            [0x80], [0xBF], [0xC3, 0xA9, 0xA9],
        ]
        let quote = UInt8(ascii: "\"")
        for sequence in valid {
            #expect(self.expectAgreement([quote] + sequence + [quote]), "\(sequence)")
            #expect(!self.expectAgreement(Array("[".utf8) + sequence + Array("]".utf8)), "\(sequence) outside")
        }
        for sequence in invalid {
            #expect(!self.expectAgreement([quote] + sequence + [quote]), "\(sequence)")
            #expect(!self.expectAgreement([quote] + sequence), "\(sequence) at the end")
            #expect(!self.expectAgreement(Array("[".utf8) + sequence + Array("]".utf8)), "\(sequence) outside")
        }
    }

    /// Blocks are 64 bytes: strings, escapes, UTF-8 and tokens must be found across their edges.
    @Test func everythingIsFoundAtEveryOffsetAroundBlockBoundaries() {
        let pieces: [[UInt8]] = [
            Array(#"\/"#.utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\u12G4"#.utf8),
            Array("é".utf8), Array("🍸".utf8), [0xF0, 0x9F, 0x8D], [0x01], [0x7F], [0xED, 0xA0, 0x80],
            Array(#"\x"#.utf8),
        ]
        for offset in 0..<140 {
            let before = [UInt8](repeating: UInt8(ascii: "a"), count: offset)
            for piece in pieces {
                self.expectAgreement(Array(#"["#.utf8) + [UInt8(ascii: "\"")] + before + piece + Array(#"b"]"#.utf8))
                self.expectAgreement(Array(#"{""#.utf8) + before + piece + Array(#"":1}"#.utf8))
            }
            // Backslash runs of 1...4 before a quote: odd runs escape it, even ones end the string.
            for run in 1...4 {
                let backslashes = [UInt8](repeating: UInt8(ascii: "\\"), count: run)
                let document = Array(#"[""#.utf8) + before + backslashes + Array(#""b"]"#.utf8)
                #expect(self.expectAgreement(document) == (run % 2 == 1), "run \(run) at \(offset)")
                self.expectAgreement(Array(#"[""#.utf8) + before + backslashes)
            }
            // Tokens and scalars straddling the edge, and the document ending at every offset.
            let spaces = [UInt8](repeating: UInt8(ascii: " "), count: offset)
            for tail in ["null", "true", "false", "-12.5e+3", "nul", "0x", #"{"k":[1,{}]}"#, #"{"k" "#, "[[]]]"] {
                self.expectAgreement(Array("[".utf8) + spaces + Array(tail.utf8) + Array("]".utf8))
                self.expectAgreement(spaces + Array(tail.utf8))
            }
        }
    }

    /// The validator tells the record writer when a valid document has no tab, LF or CR between
    /// its tokens, at any offset: then it is embedded as it is, without a search for line breaks.
    @Test func lineBreaksBetweenTokensAreReportedAtEveryOffset() {
        let value = Array(#"{"strDrink":"Mojito","idDrink":"11000","strTags":null,"n":[1,2.5,true]}"#.utf8)
        for offset in 0..<200 {
            let spaces = [UInt8](repeating: UInt8(ascii: " "), count: offset)
            for implementation in Self.implementations {
                let compact = Array("[".utf8) + spaces + value + Array("]".utf8)
                let plain = compact.withUnsafeBytes { JSONValidator.check($0, maxDepth: 512, using: implementation) }
                #expect(plain.valid == true && !plain.mayHoldLineBreaks, "\(implementation) at \(offset)")
                for control: UInt8 in [0x0A, 0x0D, 0x09] {
                    let broken = Array("[".utf8) + spaces + [control] + value + Array("]".utf8)
                    let checked = broken.withUnsafeBytes {
                        JSONValidator.check($0, maxDepth: 512, using: implementation)
                    }
                    #expect(
                        checked.valid == true && checked.mayHoldLineBreaks, "\(implementation) \(control) at \(offset)")
                }
            }
        }
    }

    /// A block inside one string from end to end takes a shorter path (only escapes, controls and
    /// non-ASCII bytes looked at): a flaw anywhere in a long string, and valid escapes and UTF-8
    /// across the edges of such blocks, must get the scanner's verdict.
    @Test func longStringsAreCheckedThroughWholeBlocks() {
        let text = Array("Shake well with ice, strain into a chilled glass; garnish with é and 🍸. ".utf8)
        let filler = Array((0..<5).map { _ in text }.joined())
        let flaws: [[UInt8]] = [
            [0x0A], [0x1F], [0x80], [0xC3], [0xE2, 0x82], Array(#"\q"#.utf8), Array(#"\u00G0"#.utf8), [0x22],
            Array(#"\n"#.utf8), Array(#"\u00e9"#.utf8), Array(#"\\"#.utf8), Array("\u{7F}".utf8),
        ]
        for position in stride(from: 0, to: filler.count, by: 3) {
            for flaw in flaws {
                let inner = Array(filler[..<position]) + flaw + Array(filler[position...])
                self.expectAgreement(Array(#"{"strInstructions":""#.utf8) + inner + Array(#"","n":null}"#.utf8))
            }
        }
    }

    @Test func nestingIsLimitedExactlyAsTheScannerLimitsIt() {
        for limit in [0, 1, 2, 63, 64, 65, 512] {
            for depth in Set([max(limit - 1, 0), limit, limit + 1]) {
                let arrays = Array(
                    (String(repeating: "[", count: depth) + "0" + String(repeating: "]", count: depth)).utf8)
                #expect(self.expectAgreement(arrays, maxDepth: limit) == (depth <= limit), "[] \(depth) of \(limit)")
                let objects = Array(
                    (String(repeating: #"{"k":"#, count: depth) + "1" + String(repeating: "}", count: depth)).utf8)
                #expect(self.expectAgreement(objects, maxDepth: limit) == (depth <= limit), "{} \(depth) of \(limit)")
            }
        }
        #expect(self.expectAgreement(Array("1".utf8), maxDepth: -1))
        #expect(!self.expectAgreement(Array("[]".utf8), maxDepth: -1))
        // Past 4,096 levels the C stack moves to the heap; a wrong bracket deep down is still found.
        for pairs in [2_047, 2_048, 2_049, 5_000] {
            let open = String(repeating: #"[{"k":"#, count: pairs)
            var document = Array((open + "0" + String(repeating: "}]", count: pairs)).utf8)
            #expect(self.expectAgreement(document, maxDepth: 20_000), "\(2 * pairs) levels")
            #expect(!self.expectAgreement(document, maxDepth: 2 * pairs - 1), "\(2 * pairs) levels over the limit")
            // A '}' halfway down becomes ']'.
            document[document.count - 2 * (pairs / 2) - 2] = UInt8(ascii: "]")
            #expect(!self.expectAgreement(document, maxDepth: 20_000), "\(2 * pairs) levels, one mismatch")
        }
    }

    /// Random damage to valid documents: flipped bits, changed, inserted and deleted bytes, cut
    /// ends. Both verdicts must be common, or the comparison proves little.
    @Test func mutatedDocumentsGetTheScannersVerdict() {
        var generator = SeededGenerator(seed: 8259)
        let kitchenSink = Array(
            #" {"a" : [1, -0.5e+3, true, false, null, "\u00e9\n\"\\\/", [], {}, [[{"b":{"c":[0]}}]]], "é":"🍸\t"} "#.utf8
        )
        let seeds = [kitchenSink] + (1...3).map { self.drinksDocument(drinks: $0, using: &generator) }
        let alphabet =
            Array(#"{}[],:"\ 0123456789.eE+-truefalsnlu/"#.utf8) + [0x00, 0x01, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xF0]
        var validSeen = 0
        let rounds = 6_000
        for round in 0..<rounds {
            var document = seeds[round % seeds.count]
            for _ in 0..<Int.random(in: 1...3, using: &generator) where !document.isEmpty {
                let index = Int.random(in: 0..<document.count, using: &generator)
                switch Int.random(in: 0..<5, using: &generator) {
                case 0: document[index] ^= 1 << UInt8.random(in: 0..<8, using: &generator)
                case 1: document[index] = alphabet.randomElement(using: &generator)!
                case 2: document.insert(alphabet.randomElement(using: &generator)!, at: index)
                case 3: document.remove(at: index)
                default: document.removeLast(Int.random(in: 0...min(8, document.count), using: &generator))
                }
            }
            let maxDepth = [512, 512, 3, 5].randomElement(using: &generator)!
            if self.expectAgreement(document, maxDepth: maxDepth, "round \(round)") {
                validSeen += 1
            }
        }
        #expect(validSeen > rounds / 10 && validSeen < rounds * 9 / 10, "\(validSeen) of \(rounds) were valid")
    }

    /// The envelope for the whole document takes the validator's path for valid documents and
    /// the scanner's for the rest, and must give what the scanner alone gave: the same slice,
    /// message, null, or error with its offset and reason.
    @Test func theWholeDocumentEnvelopeGivesWhatTheScannerGave() {
        var generator = SeededGenerator(seed: 404)
        var documents: [[UInt8]] = [
            "", "   ", " {} ", "[1,2] ", " 0 ", "-1.5", "true", " null ", #""None Found""#, #" "caf\u00e9 \/" "#, "{",
            "[1,]", "nul", "\u{FEFF}{}", #"{"a":1}x"#, "[\"\u{01}\"]", "\t[]\n",
        ].map { Array($0.utf8) }
        documents.append(self.drinksDocument(drinks: 2, using: &generator))
        documents.append([0x22, 0xED, 0xA0, 0x80, 0x22])
        for maxDepth in [512, 1, 0] {
            for document in documents {
                #expect(
                    self.envelopeContent(document, maxDepth: maxDepth)
                        == self.scannerContent(document, maxDepth: maxDepth),
                    "\(String(decoding: document, as: UTF8.self)) at maxDepth \(maxDepth)")
            }
        }
    }
}
