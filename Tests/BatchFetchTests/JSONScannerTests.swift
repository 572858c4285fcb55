import Foundation
import TestSupport
import Testing

@testable import BatchFetch

struct JSONScannerTests {
    private func scan(_ text: String, path: String = "", maxDepth: Int = 512) -> Result<
        JSONScanner.Target, JSONScanner.Failure
    > {
        let components =
            path.isEmpty ? [] : path.split(separator: ".", omittingEmptySubsequences: false).map { Array($0.utf8) }
        return Array(text.utf8).withUnsafeBytes { raw in
            var scanner = JSONScanner(bytes: raw, path: components, maxDepth: maxDepth)
            do throws(JSONScanner.Failure) {
                return .success(try scanner.scan())
            } catch {
                return .failure(error)
            }
        }
    }

    private func slice(_ text: String, _ path: String) -> String? {
        guard case .success(.found(let range, _)) = self.scan(text, path: path) else {
            return nil
        }
        return String(decoding: Array(text.utf8)[range], as: UTF8.self)
    }

    private func scan(bytes: [UInt8], path: [[UInt8]] = [], maxDepth: Int = 512) -> Result<
        JSONScanner.Target, JSONScanner.Failure
    > {
        bytes.withUnsafeBytes { raw in
            var scanner = JSONScanner(bytes: raw, path: path, maxDepth: maxDepth)
            do throws(JSONScanner.Failure) {
                return .success(try scanner.scan())
            } catch {
                return .failure(error)
            }
        }
    }

    @Test func validDocumentsAreAccepted() {
        let documents = [
            "{}", "[]", "0", "-0.5e+10", "\"a\"", "true", "false", "null", " { \"a\" : [ 1 , 2.5 , -3e2 , \"x\" ] } ",
            #"{"s":"\u00e9\n\t\"\\\/","n":null,"deep":[[[{}]]]}"#, "\"caf\u{E9} \u{1F378}\"", "[1,[2,[3,{\"k\":{}}]]]",
        ]
        for document in documents {
            guard case .success = self.scan(document) else {
                Issue.record("rejected valid JSON: \(document)")
                continue
            }
        }
    }

    @Test func invalidDocumentsAreRejectedWithAnOffset() {
        let cases: [(String, Int)] = [
            ("", 0), ("{", 1), ("{\"a\":1,}", 7), ("[1,]", 3), ("[1 2]", 3), ("{\"a\" 1}", 5), ("{1:2}", 1),
            ("01", 1), ("1.", 0), ("1e", 0), ("-", 0), ("tru", 0), ("nul", 0), ("\"abc", 0), ("\"a\u{01}b\"", 2),
            ("\"\\x\"", 1), ("\"\\u12G4\"", 1), ("{}}", 2), ("[] x", 3), ("<html>", 0), ("{\"drinks\":[{\"a\":1}", 18),
        ]
        for (document, offset) in cases {
            guard case .failure(let failure) = self.scan(document) else {
                Issue.record("accepted invalid JSON: \(document)")
                continue
            }
            #expect(failure.offset == offset, "\(document): \(failure.reason)")
        }
    }

    @Test func invalidUTF8IsRejected() {
        let sequences: [[UInt8]] = [
            [0xFF], [0xC0, 0xAF], [0xE0, 0x80, 0xAF], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82],
        ]
        for bytes in sequences {
            let document = [UInt8(ascii: "\"")] + bytes + [UInt8(ascii: "\"")]
            let result = document.withUnsafeBytes { raw in
                var scanner = JSONScanner(bytes: raw, path: [], maxDepth: 10)
                return (try? scanner.scan()) != nil
            }
            #expect(!result, "accepted \(bytes)")
        }
    }

    @Test func hostileNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 10_000) + String(repeating: "]", count: 10_000)
        guard case .failure(let failure) = self.scan(deep) else {
            Issue.record("accepted 10,000-deep nesting")
            return
        }
        #expect(failure.reason.contains("nesting deeper than 512"))
        guard case .success = self.scan(deep, maxDepth: 20_000) else {
            Issue.record("the scanner itself must not be limited by the thread stack")
            return
        }
    }

    @Test func keyPathsSliceOutTheFirstMatchingValue() {
        let document = #"{"a":{"drinks":1},"drinks":[{"idDrink":"1"}] ,"feed":{"x":2,"results":[1,2]},"drinks":"dup"}"#
        #expect(self.slice(document, "drinks") == #"[{"idDrink":"1"}]"#)
        #expect(self.slice(document, "feed.results") == "[1,2]")
        #expect(self.slice(document, "a.drinks") == "1")
        #expect(self.slice(document, "") == document)
        #expect(self.slice(" [1] ", "") == "[1]")
    }

    @Test func missingKeysAndNonObjectsOnThePathAreTold() throws {
        #expect(try self.scan(#"{"a":1}"#, path: "drinks").get() == .missing(component: 0))
        #expect(try self.scan(#"{"feed":{"x":1}}"#, path: "feed.results").get() == .missing(component: 1))
        #expect(
            try self.scan(#"{"feed":[{"results":1}]}"#, path: "feed.results").get()
                == .notAnObject(component: 1, found: .array))
        #expect(try self.scan(#"[{"drinks":1}]"#, path: "drinks").get() == .notAnObject(component: 0, found: .array))
        // Keys inside unrelated objects at the same depth do not match.
        #expect(
            try self.scan(#"{"feed":1,"x":{"results":2}}"#, path: "feed.results").get()
                == .notAnObject(component: 1, found: .number))
    }

    @Test func escapedKeysAndHyphenatedKeysMatch() {
        #expect(self.slice(#"{"str\u0049nstructionsZH-HANS":"x"}"#, "strInstructionsZH-HANS") == "\"x\"")
        #expect(self.slice(#"{"strInstructionsZH-HANS":null}"#, "strInstructionsZH-HANS") == "null")
    }

    /// Agreement with Foundation's parser on many mutated documents: a validator that accepts
    /// what JSONSerialization rejects (or the reverse) has a bug.
    @Test func agreesWithJSONSerializationOnMutatedDocuments() {
        let seed = Array(
            #"{"drinks":[{"idDrink":"11007","strDrink":"Margarita","n":-1.5e3,"ok":true,"x":null,"a":[1,{"b":"\u00e9\n"}]}]}"#
                .utf8)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-truefalsnl"#.utf8)
        var generator = SeededGenerator(seed: 2024)
        var validSeen = 0
        for _ in 0..<3000 {
            var document = seed
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                let index = Int.random(in: 0..<document.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: document[index] = alphabet.randomElement(using: &generator)!
                case 1: document.remove(at: index)
                default: document.insert(alphabet.randomElement(using: &generator)!, at: index)
                }
            }
            let foundation =
                (try? JSONSerialization.jsonObject(with: Data(document), options: [.fragmentsAllowed])) != nil
            let ours = document.withUnsafeBytes { raw in
                var scanner = JSONScanner(bytes: raw, path: [], maxDepth: 512)
                return (try? scanner.scan()) != nil
            }
            #expect(ours == foundation, "\(String(decoding: document, as: UTF8.self))")
            validSeen += foundation ? 1 : 0
        }
        // Both outcomes must be well represented, or the comparison proves little.
        #expect(validSeen > 300 && validSeen < 2700, "\(validSeen) of 3000 mutated documents were valid")
    }

    @Test func literalsAreComparedWholeAndNeverReadPastTheEnd() {
        let cases: [(String, Int, String)] = [
            ("t", 0, "expected 'true'"), ("tru", 0, "expected 'true'"), ("f", 0, "expected 'false'"),
            ("fals", 0, "expected 'false'"), ("n", 0, "expected 'null'"), ("nul", 0, "expected 'null'"),
            ("[fals", 1, "expected 'false'"), ("[nul", 1, "expected 'null'"), ("{\"a\":tru", 5, "expected 'true'"),
            ("falsy", 0, "expected 'false'"), ("nuLl", 0, "expected 'null'"), ("trUe", 0, "expected 'true'"),
            ("fa", 0, "expected 'false'"), ("nulll", 4, "after the document"), ("[truex]", 5, "expected ','"),
            ("[false,nul]", 7, "expected 'null'"), ("[null,fals", 6, "expected 'false'"),
        ]
        for (document, offset, reason) in cases {
            // An exact-size copy, so a load past the end would read outside the allocation.
            let bytes = Array(document.utf8)
            guard case .failure(let failure) = self.scan(bytes: bytes) else {
                Issue.record("accepted invalid JSON: \(document)")
                continue
            }
            #expect(failure.offset == offset, "\(document): \(failure.reason)")
            #expect(failure.reason.contains(reason), "\(document): \(failure.reason)")
        }
        for document in ["true", "false", "null", "[true,false,null]", "{\"a\":false}", " null "] {
            guard case .success = self.scan(bytes: Array(document.utf8)) else {
                Issue.record("rejected valid JSON: \(document)")
                continue
            }
        }
    }

    @Test func stringsEndingAtEveryWordBoundaryAreSliced() throws {
        for length in 0...40 {
            let text = String(repeating: "a", count: length)
            // Every alignment of the string relative to the buffer, and every distance to the end.
            for padding in 0..<8 {
                let spaces = String(repeating: " ", count: padding)
                let document = spaces + #"{"k":""# + text + #""}"# + spaces
                #expect(self.slice(document, "k") == "\"\(text)\"", "length \(length), padding \(padding)")
                let bare = spaces + "\"" + text + "\""
                #expect(self.slice(bare, "") == "\"\(text)\"", "length \(length), padding \(padding)")
                guard case .failure(let failure) = self.scan(spaces + "\"" + text) else {
                    Issue.record("accepted an unterminated string of \(length) bytes")
                    continue
                }
                #expect(failure.offset == padding)
                #expect(failure.reason == "unterminated string")
            }
        }
    }

    @Test func specialBytesAreFoundAtEveryOffsetInAString() {
        let valid: [[UInt8]] = [
            Array(#"\/"#.utf8), Array(#"\""#.utf8), Array(#"\\"#.utf8), Array(#"\u00e9"#.utf8), Array("é".utf8),
            Array("€".utf8), Array("🍸".utf8), [0x7F],
        ]
        // Each invalid sequence with the offset of the error from the sequence's start.
        let invalid: [([UInt8], Int, String)] = [
            ([0x01], 0, "control character"), ([0x1F], 0, "control character"), ([0x0A], 0, "control character"),
            (Array(#"\x"#.utf8), 0, "invalid escape"), (Array(#"\u12G4"#.utf8), 0, "\\u escape"),
            ([0xFF], 0, "UTF-8"), ([0x80], 0, "UTF-8"), ([0xC3, 0x28], 0, "UTF-8"), ([0xED, 0xA0, 0x80], 0, "UTF-8"),
            ([0xF0, 0x9F, 0x8D], 0, "UTF-8"),
        ]
        for offset in 0..<34 {
            let before = [UInt8](repeating: UInt8(ascii: "a"), count: offset)
            let after = [UInt8](repeating: UInt8(ascii: "b"), count: 34 - offset)
            for sequence in valid {
                let document =
                    [UInt8(ascii: "[")] + [UInt8(ascii: "\"")] + before + sequence + after + Array("\"]".utf8)
                guard case .success = self.scan(bytes: document) else {
                    Issue.record("rejected \(sequence) at offset \(offset)")
                    continue
                }
            }
            for (sequence, errorOffset, reason) in invalid {
                let document =
                    [UInt8(ascii: "[")] + [UInt8(ascii: "\"")] + before + sequence + after + Array("\"]".utf8)
                guard case .failure(let failure) = self.scan(bytes: document) else {
                    Issue.record("accepted \(sequence) at offset \(offset)")
                    continue
                }
                #expect(failure.offset == 2 + offset + errorOffset, "\(sequence) at \(offset): \(failure.reason)")
                #expect(failure.reason.contains(reason), "\(sequence) at \(offset): \(failure.reason)")
            }
            // The same sequences cut off by the end of the buffer.
            let open = [UInt8(ascii: "\"")] + before
            #expect(self.failureOffset(open + Array(#"\"#.utf8)) == 1 + offset)
            #expect(self.failureOffset(open + Array(#"\u00"#.utf8)) == 1 + offset)
            #expect(self.failureOffset(open + [0xE2, 0x82]) == 1 + offset)
            #expect(self.failureOffset(open + Array(#"\/"#.utf8)) == 0)
        }
    }

    private func failureOffset(_ bytes: [UInt8]) -> Int? {
        guard case .failure(let failure) = self.scan(bytes: bytes) else {
            return nil
        }
        return failure.offset
    }

    @Test func nestingIsCheckedAtTheLimitAndAcrossDeepLevels() {
        let atLimit = String(repeating: "[", count: 512) + String(repeating: "]", count: 512)
        guard case .success = self.scan(atLimit) else {
            Issue.record("rejected nesting exactly at the limit")
            return
        }
        let overLimit = String(repeating: "[", count: 513) + String(repeating: "]", count: 513)
        #expect(self.failureOffset(Array(overLimit.utf8)) == 512)
        // Objects and arrays alternating past 64 levels, where the kinds leave the first word.
        for depth in [63, 64, 65, 66, 130] {
            let open = String(repeating: #"{"k":["#, count: depth)
            let close = String(repeating: "]}", count: depth)
            let document = open + "1" + close
            guard case .success(.found(let range, .array)) = self.scan(document, path: "k") else {
                Issue.record("depth \(depth): \(self.scan(document, path: "k"))")
                continue
            }
            #expect(range == 5..<(document.utf8.count - 1))
            // A wrong closing bracket at every level is found, at its offset.
            for level in 0..<depth {
                var bytes = Array(document.utf8)
                let index = open.utf8.count + 1 + 2 * level
                bytes[index] = bytes[index] == UInt8(ascii: "]") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                #expect(self.failureOffset(bytes) == index, "depth \(depth), level \(level)")
                let other = index + 1
                bytes = Array(document.utf8)
                bytes[other] = bytes[other] == UInt8(ascii: "]") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                #expect(self.failureOffset(bytes) == other, "depth \(depth), level \(level)")
            }
        }
    }

    /// Agreement with Foundation's parser on random strings full of the bytes the word-at-a-time
    /// search must stop at, at every length and alignment.
    @Test func agreesWithJSONSerializationOnRandomStrings() {
        let alphabet: [UInt8] =
            Array(#"ab"\/nu0eE"#.utf8) + [0x01, 0x1F, 0x20, 0x7F, 0x80, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0xFF]
        var generator = SeededGenerator(seed: 8259)
        var validSeen = 0
        for _ in 0..<4000 {
            var content = [UInt8](repeating: UInt8(ascii: "a"), count: Int.random(in: 0...40, using: &generator))
            for _ in 0..<Int.random(in: 0...2, using: &generator) where !content.isEmpty {
                content[Int.random(in: 0..<content.count, using: &generator)] =
                    alphabet.randomElement(using: &generator)!
            }
            let document = [UInt8(ascii: "[")] + [UInt8(ascii: "\"")] + content + Array("\"]".utf8)
            let foundation = (try? JSONSerialization.jsonObject(with: Data(document))) != nil
            let ours = document.withUnsafeBytes { raw in
                var scanner = JSONScanner(bytes: raw, path: [], maxDepth: 512)
                return (try? scanner.scan()) != nil
            }
            #expect(ours == foundation, "\(document)")
            validSeen += foundation ? 1 : 0
        }
        #expect(validSeen > 400 && validSeen < 3600, "\(validSeen) of 4000 random strings were valid")
    }

    /// The objects along the key path are walked by `scan()` and every other value by the skip
    /// loop: a document must get the same verdict (offset and reason) whichever path is asked for.
    @Test func keyPathWalkAndSkipLoopReportTheSameErrors() {
        let seed = Array(
            #"{"a":{"x":[1,{"y":null}],"b":{"c":["\u00e9\/",true,false,-1.5e3,{"d":{}}]},"e":"s"},"f":[]}"#.utf8)
        let alphabet = Array(#"{}[],:"\ 0123456789.eE+-truefalsnl"#.utf8) + [0x01, 0x80, 0xC3]
        let paths: [[[UInt8]]] = [[], [Array("a".utf8)], [Array("a".utf8), Array("b".utf8)], [Array("f".utf8)]]
        var generator = SeededGenerator(seed: 4627)
        var invalidSeen = 0
        for _ in 0..<3000 {
            var document = seed
            for _ in 0..<Int.random(in: 1...2, using: &generator) {
                let index = Int.random(in: 0..<document.count, using: &generator)
                switch Int.random(in: 0..<3, using: &generator) {
                case 0: document[index] = alphabet.randomElement(using: &generator)!
                case 1: document.remove(at: index)
                default: document.insert(alphabet.randomElement(using: &generator)!, at: index)
                }
            }
            let maxDepth = [5, 6, 512].randomElement(using: &generator)!
            let whole = self.scan(bytes: document, maxDepth: maxDepth)
            for path in paths {
                let result = self.scan(bytes: document, path: path, maxDepth: maxDepth)
                switch (whole, result) {
                case (.success, .success): continue
                case (.failure(let expected), .failure(let failure)):
                    #expect(failure.offset == expected.offset && failure.reason == expected.reason)
                default:
                    Issue.record("\(String(decoding: document, as: UTF8.self)): \(whole) but \(result) for \(path)")
                }
            }
            if case .failure = whole {
                invalidSeen += 1
            }
        }
        #expect(invalidSeen > 300 && invalidSeen < 2850, "\(invalidSeen) of 3000 mutated documents were invalid")
    }

    @Test func theDepthLimitCountsFromTheRootWhereverAValueIsSkipped() throws {
        // Two levels walked on the path, then arrays in the captured value and beside it.
        for extra in [1, 2, 63, 64, 65, 70] {
            let inner = String(repeating: "[", count: extra) + String(repeating: "]", count: extra)
            let document = #"{"a":{"b":"# + inner + #","c":"# + inner + "}}"
            let limit = 2 + extra
            guard case .success(.found(let range, .array)) = self.scan(document, path: "a.b", maxDepth: limit) else {
                Issue.record("rejected \(extra) levels under a.b at limit \(limit)")
                continue
            }
            #expect(range == 10..<(10 + 2 * extra))
            let tooDeep = self.scan(document, path: "a.b", maxDepth: limit - 1)
            guard case .failure(let failure) = tooDeep else {
                Issue.record("accepted \(extra) levels under a.b at limit \(limit - 1)")
                continue
            }
            #expect(failure.offset == 10 + extra - 1)
            #expect(failure.reason == "nesting deeper than \(limit - 1) levels")
            guard case .failure(let whole) = self.scan(document, maxDepth: limit - 1) else {
                Issue.record("accepted the whole document at limit \(limit - 1)")
                continue
            }
            #expect(whole.offset == failure.offset && whole.reason == failure.reason)
        }
    }

    @Test func specialBytesInKeysOfSkippedObjectsAreFoundAtEveryOffset() throws {
        for offset in 0..<40 {
            let key = String(repeating: "k", count: offset)
            // A valid escaped key beside the path, then a control character at the same offset.
            let valid = #"{"x":{""# + key + #"\/é":1},"y":2}"#
            #expect(
                try self.scan(valid, path: "y").get() == .found(valid.utf8.count - 2..<valid.utf8.count - 1, .number))
            var bytes = Array((#"{"x":{""# + key + "!" + #"":1},"y":2}"#).utf8)
            let control = 7 + offset
            bytes[control] = 0x01
            guard case .failure(let failure) = self.scan(bytes: bytes, path: [Array("y".utf8)]) else {
                Issue.record("accepted a control character at offset \(offset) of a key")
                continue
            }
            #expect(failure.offset == control)
            #expect(failure.reason.contains("control character"))
            // Cut off inside the key: the string is unterminated from its opening quote.
            guard case .failure(let cut) = self.scan(bytes: Array(bytes[..<control])) else {
                Issue.record("accepted a key cut off at offset \(offset)")
                continue
            }
            #expect(cut.offset == 6 && cut.reason == "unterminated string")
        }
    }
}
