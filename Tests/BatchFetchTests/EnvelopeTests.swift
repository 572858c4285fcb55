import Foundation
import Testing

@testable import BatchFetch

/// The envelope decoder against TheCocktailDB's quirks, current and older record forms.
struct EnvelopeTests {
    private struct Summary: Decodable, Equatable {
        let idDrink: String
        let strDrink: String
    }

    private let drinks = Envelope("drinks")

    @Test func aListDecodes() throws {
        let body = Data(
            #"{"drinks":[{"strDrink":"Mojito","strDrinkThumb":"https:\/\/x\/a.jpg","idDrink":"11000"}]}"#.utf8)
        let list = try self.drinks.decodeList(Summary.self, from: body)
        #expect(list == [Summary(idDrink: "11000", strDrink: "Mojito")])
    }

    @Test func nullNoneFoundAndEmptyArraysAreNoResults() throws {
        for text in [
            #"{"drinks":null}"#, #"{"drinks":"None Found"}"#, #"{"drinks":"no data found"}"#, #"{"drinks":[]}"#,
        ] {
            #expect(try self.drinks.decodeList(Summary.self, from: Data(text.utf8)) == [], "\(text)")
        }
    }

    @Test func theCasesStayDistinguishable() throws {
        guard case .null = try self.drinks.content(of: Data(#"{"drinks":null}"#.utf8)) else {
            Issue.record("null")
            return
        }
        guard case .message("None Found") = try self.drinks.content(of: Data(#"{"drinks":"None Found"}"#.utf8)) else {
            Issue.record("message")
            return
        }
        guard case .missing = try self.drinks.content(of: Data(#"{"ingredients":[]}"#.utf8)) else {
            Issue.record("missing")
            return
        }
        guard case .value(let slice) = try self.drinks.content(of: Data(#"{"drinks":[]}"#.utf8)) else {
            Issue.record("empty array")
            return
        }
        #expect(slice.kind == .array && slice.range == 10..<12)
    }

    @Test func strictPolicyRefusesNoResults() {
        let strict = Envelope("drinks", noResults: .strict)
        #expect(throws: FetchError.self) { try strict.decodeList(Summary.self, from: Data(#"{"drinks":null}"#.utf8)) }
        #expect(throws: FetchError.self) {
            try strict.decodeList(Summary.self, from: Data(#"{"drinks":"None Found"}"#.utf8))
        }
    }

    @Test func errorsSayWhatWasWrong() {
        func kind(_ text: String) -> (FetchError.Kind?, String) {
            do {
                _ = try self.drinks.decodeList(Summary.self, from: Data(text.utf8))
                return (nil, "")
            } catch {
                return (error.kind, error.message)
            }
        }
        #expect(kind("").0 == .emptyBody)
        #expect(kind("  \n").0 == .emptyBody)
        #expect(kind("<html><body>502 Bad Gateway</body></html>").0 == .invalidJSON)
        let truncated = kind(#"{"drinks":[{"idDrink":"1100"#)
        #expect(truncated.0 == .invalidJSON && truncated.1.contains("byte"))
        let wrongKey = kind(#"{"ingredients":[{"idIngredient":"1"}]}"#)
        #expect(wrongKey.0 == .missingKey && wrongKey.1.contains("'drinks'"))
        #expect(kind(#"{"drinks":"Rate limited, try later"}"#).0 == .unexpectedShape)
        #expect(kind(#"{"drinks":{"a":1}}"#).0 == .unexpectedShape)
        let wrongType = kind(#"{"drinks":[{"idDrink":11000,"strDrink":"x"}]}"#)
        #expect(wrongType.0 == .decodingFailed)
        #expect(wrongType.1.contains("[0].idDrink"), "\(wrongType.1)")
        #expect(kind(Array(repeating: "[", count: 10_000).joined()).0 == .invalidJSON)
        let invalidUTF8 = Data([0x7B, 0x22, 0x64, 0x72, 0x69, 0x6E, 0x6B, 0x73, 0x22, 0x3A, 0x22, 0xFF, 0x22, 0x7D])
        #expect(throws: FetchError.self) { try self.drinks.content(of: invalidUTF8) }
    }

    @Test func hugeStringsAreScannedWhole() throws {
        let long = String(repeating: "abcdefgh", count: 200_000)
        let body = Data(#"{"drinks":[{"idDrink":"1","strDrink":"\#(long)"}]}"#.utf8)
        let list = try self.drinks.decodeList(Summary.self, from: body)
        #expect(list.first?.strDrink.count == long.count)
    }

    @Test func nestedKeyPathsAndTheWholeDocument() throws {
        let body = Data(#"{"feed":{"results":[{"idDrink":"1","strDrink":"A"}]}}"#.utf8)
        #expect(try Envelope("feed.results").decodeList(Summary.self, from: body).count == 1)
        let whole = try decode([String: [String: [Summary]]].self, from: body, at: "")
        #expect(whole["feed"]?["results"]?.first?.strDrink == "A")
        #expect(try decode([Summary].self, from: body, at: "feed.results").count == 1)
    }

    @Test func olderRecordsWithEmptyStringsAndHyphenatedKeysDecode() throws {
        struct Record: Decodable {
            let strIngredient2: String?
            let strMeasure1: String?
            let zhHans: String?
            enum CodingKeys: String, CodingKey {
                case strIngredient2, strMeasure1
                case zhHans = "strInstructionsZH-HANS"
            }
        }
        let body = Data(#"{"drinks":[{"strIngredient2":"","strMeasure1":"1 oz ","strInstructionsZH-HANS":null}]}"#.utf8)
        let record = try #require(try self.drinks.decodeList(Record.self, from: body).first)
        #expect(record.strIngredient2 == "")
        #expect(record.strMeasure1 == "1 oz ")
        #expect(record.zhHans == nil)
    }
}

struct ResponsePolicyTests {
    private func response(status: Int = 200, type: String? = "application/json", body: String) -> Response {
        Response(
            status: status, headers: HTTPHeaders(type.map { [("Content-Type", $0)] } ?? []), body: Data(body.utf8),
            effectiveURL: "http://127.0.0.1/x")
    }

    @Test func statusListsParse() throws {
        let policy = try StatusPolicy(parsing: "200-299,304")
        #expect(policy.accepts(204) && policy.accepts(304) && !policy.accepts(301))
        #expect(policy.description == "200-299,304")
        #expect(throws: FetchError.self) { try StatusPolicy(parsing: "2xx") }
        #expect(throws: FetchError.self) { try StatusPolicy(parsing: "300-200") }
    }

    @Test func aRejectedStatusCarriesASanitisedSnippet() {
        let decoder = ResponseDecoder(envelope: Envelope("drinks"))
        do {
            _ = try decoder.decodeList(
                String.self, from: self.response(status: 503, body: "Service \u{1B}[31mUnavailable"))
            Issue.record("accepted 503")
        } catch {
            #expect(error.kind == .httpStatus)
            #expect(error.status == 503)
            #expect(error.snippet == "Service ·[31mUnavailable")
        }
    }

    @Test func aSnippetShowsOnlyPrintableASCIIAndMarksWhatItLeavesOut() {
        let body = Data(("<" + String(repeating: "a", count: 100) + "é\u{7}" + String(repeating: "b", count: 100)).utf8)
        let snippet = Snippet.of(body, around: 101)
        #expect(snippet == "…" + String(repeating: "a", count: 20) + "···" + String(repeating: "b", count: 57) + "…")
        #expect(Snippet.of(Data("\u{1B}[1m".utf8), around: 0) == "·[1m")
        #expect(Snippet.of(Data(), around: 0) == nil)
    }

    @Test func htmlWith200IsAWrongContentType() {
        let decoder = ResponseDecoder(envelope: Envelope("drinks"))
        #expect(throws: FetchError.self) {
            try decoder.decodeList(String.self, from: self.response(type: "text/html; charset=utf-8", body: "<html>"))
        }
        #expect(ContentTypePolicy.json.accepts("application/json; charset=UTF-8"))
        #expect(ContentTypePolicy.json.accepts("application/problem+json"))
        #expect(ContentTypePolicy.json.accepts(nil))
        #expect(!ContentTypePolicy.json.accepts("text/html"))
        #expect(ContentTypePolicy.json.accepts(" \tApplication/JSON ;charset=utf-8"))
        #expect(ContentTypePolicy.json.accepts("TEXT/JSON"))
        #expect(!ContentTypePolicy.json.accepts("application/jsonp"))
        #expect(!ContentTypePolicy.json.accepts(""))
        #expect(ContentTypePolicy.mediaType(of: "  Text/HTML\t; q=1") == "text/html")
        #expect(ContentTypePolicy.mediaType(of: ";") == "")
        // A policy without application/json refuses it, also after its set is changed.
        #expect(!ContentTypePolicy(accepted: ["text/csv"]).accepts("application/json"))
        var changed = ContentTypePolicy.json
        changed.accepted = ["text/csv"]
        #expect(!changed.accepts("application/json"))
        #expect(changed.accepts("text/csv"))
    }

    @Test func whiteSpaceIsTrimmedLikeFoundationDoes() {
        let cases = [
            "Tequila", " 1 oz ", "\t2 cl\n", "\u{00A0}Lime\u{2003}", "  ", "", "a", " Crème de cassis", "Ümlaut ",
        ]
        for text in cases {
            #expect(text.trimmingWhiteSpace() == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text)")
            #expect(text[...].trimmingWhiteSpace() == text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
    }
}
