import Foundation
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
}
