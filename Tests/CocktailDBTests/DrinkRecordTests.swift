import BatchFetch
import CocktailReplica
import Foundation
import TestSupport
import Testing

@testable import CocktailDB

/// `DrinkRecord`s read straight from response bytes must be byte for byte the records the
/// `Drink` path writes (`DrinkRecord(Drink(fields:))`): the crawl's output depends on it.
struct DrinkRecordTests {
    /// The list's records read from the bytes (`nil`: left to the `Drink` path), and the records
    /// of the `Drink` path (or its error).
    private func read(_ document: String) throws -> (fast: [DrinkRecord]?, reference: Result<[DrinkRecord], FetchError>)
    {
        let body = Data(document.utf8)
        let slice = try #require(try Envelope("drinks").list(in: body))
        let fast = slice.withUnsafeBytes { DrinkRecord.records(in: $0) }
        let response = Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body, effectiveURL: "")
        let reference = Result { () throws(FetchError) in
            try CocktailDBClient.drinks(from: response, endpoint: .searchByFirstLetter("a")).map(DrinkRecord.init)
        }
        return (fast, reference)
    }

    private func text(_ record: DrinkRecord?) -> String {
        record.map { String(decoding: $0.json, as: UTF8.self) } ?? "nil"
    }

    @Test func theAPIsRecordFormsAreReadFromTheBytesAsTheDrinkPathWritesThem() throws {
        for document in [DrinkTests.current, DrinkTests.legacy] {
            let (fast, reference) = try self.read(document)
            let records = try #require(fast, "the API's own shape must take the fast path")
            #expect(records == (try reference.get()))
        }
        let record = try #require(try self.read(DrinkTests.current).fast?.first)
        let json = self.text(record)
        #expect(record.id == "11007" && record.name == "Margarita")
        #expect(json.hasPrefix(#"{"idDrink":"11007","strDrink":"Margarita","strDrinkAlternate":null,"#))
        #expect(
            json.contains(#""strDrinkThumb":"https://www.thecocktaildb.com/images/media/drink/5noda61589575158.jpg""#))
        #expect(json.contains(#""strInstructionsZH-HANS":"擦""#))
        #expect(
            json.hasSuffix(
                #""dateModified":"2015-08-18 14:42:59","ingredients":[{"name":"Tequila","measure":"1 1/2 oz"},"#
                    + #"{"name":"Triple sec","measure":"1/2 oz"},{"name":"Lime juice","measure":"1 oz"},"#
                    + #"{"name":"Salt","measure":null}],"tags":["IBA","ContemporaryClassic"]}"#))
        let legacy = try #require(try self.read(DrinkTests.legacy).fast?.first)
        #expect(
            self.text(legacy).hasSuffix(
                #""ingredients":[{"name":"Vodka","measure":"1 oz"},{"name":"Kahlua","measure":null}],"tags":[]}"#))
    }

    @Test func everyEscapeAndWhiteSpaceIsWrittenAsTheDrinkPathWritesIt() throws {
        // Escapes of every kind, raw DEL, surrogate pairs and lone surrogates, Unicode white
        // space around ingredients and measures, tags with empties and non-ASCII, a numeric id,
        // and white space between tokens (so no field is copied as one run).
        let document = #"""
            {"drinks":[{ "idDrink" : 17 , "strDrink":"Quote \" back \\ slash \/ \b\f\n\r\t \u0000 \u001f \u007f \u00e9 \ud83c\udf78 \ud800 x \udc00",
            "strTags":" a, ,b\u00a0,\u3000c , d\u0301,e ,, ", "strCategory":"Tab\there", "strInstructions":"raw  del",
            "strIngredient1":"\u00a0 Gin \u2003","strIngredient2":"  ","strIngredient3":"\u00a0","strIngredient4":"Lime\n",
            "strIngredient5":"\u0085Tonic","strIngredient6":"Ice\u000b","strIngredient7":"  Rum","strIngredient8":5,
            "strMeasure1":" 1 oz\u00a0","strMeasure2":"2 oz","strMeasure3":"x","strMeasure4":"\u3000","strMeasure5":"\t\r\n",
            "strMeasure6":null,"strMeasure8":" 1\/2 ","dateModified":null}]}
            """#
        let (fast, reference) = try self.read(document)
        let records = try #require(fast)
        let expected = try reference.get()
        #expect(records == expected, "fast: \(self.text(records.first))\nslow: \(self.text(expected.first))")
        #expect(records.first?.id == "17")
    }

    @Test func randomRecordsReadTheSameBothWays() throws {
        var random = SeededGenerator(seed: 0x5EED)
        let pieces = [
            "a", "Z", "0", " ", "  ", ",", "/", "\"", "\\", "\n", "\t", "\r\n", "\u{7F}", "é", "擦", "🍸", "\u{A0}",
            "\u{3000}", "\u{2003}", "\u{301}", "\u{1}", "\u{1F}", "oz", "Gin", "1/2",
        ]
        var drinks: [String] = []
        for number in 0..<400 {
            var fields: [String] = []
            for (position, name) in Drink.fieldOrder.enumerated() {
                // Keep idDrink; drop others at random, as older records do.
                guard position == 0 || random.next(4) > 0 else {
                    continue
                }
                let value: String
                if position == 0 {
                    value = "\"\(10_000 + number)\""
                } else if random.next(5) == 0 {
                    value = "null"
                } else {
                    let text = (0..<random.next(6)).map { _ in pieces[random.next(pieces.count)] }.joined()
                    value = Self.literal(text, escapingAll: random.next(3) == 0)
                }
                let space = random.next(8) == 0 ? " " : ""
                fields.append("\"\(name)\"\(space):\(space)\(value)")
            }
            drinks.append("{" + fields.joined(separator: ",") + "}")
        }
        let (fast, reference) = try self.read("{\"drinks\":[" + drinks.joined(separator: ",") + "]}")
        let records = try #require(fast)
        let expected = try reference.get()
        #expect(records.count == 400)
        for (record, other) in zip(records, expected) where record != other {
            Issue.record("fast: \(self.text(record))\nslow: \(self.text(other))")
            break
        }
    }

    @Test func recordsInOtherShapesAreLeftToTheDrinkPathWithItsErrors() throws {
        let shapes = [
            #"{"drinks":[{"idDrink":"1","strDrink":"A","strExtra":"x"}]}"#,  // a field the API does not send
            #"{"drinks":[{"strDrink":"A","idDrink":"1"}]}"#,  // out of the API's order
            #"{"drinks":[{"idDrink":"1","idDrink":"2"}]}"#,  // repeated
            #"{"drinks":[{"idD\u0072ink":"1"}]}"#,  // an escaped key
            #"{"drinks":[{"strDrink":"A"}]}"#,  // no idDrink: an error
            #"{"drinks":[{"idDrink":""}]}"#,  // empty idDrink: an error
            #"{"drinks":[{"idDrink":"1","strTags":["a"]}]}"#,  // not flat: an error
            #"{"drinks":[{}]}"#,
        ]
        for document in shapes {
            let (fast, reference) = try self.read(document)
            #expect(fast == nil, "\(document)")
            let body = Data(document.utf8)
            let response = Response(
                status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body, effectiveURL: "")
            let records = Result { () throws(FetchError) in
                try CocktailDBClient.records(from: response, endpoint: .lookupDrink("1"))
            }
            switch (records, reference) {
            case (.success(let got), .success(let want)): #expect(got == want, "\(document)")
            case (.failure(let got), .failure(let want)): #expect(got.kind == want.kind && got.message == want.message)
            default: Issue.record("\(document): \(records) but the Drink path gives \(reference)")
            }
        }
    }

    @Test func aRecordReadsBackAsItsDrink() throws {
        let drink = try #require(
            try Envelope("drinks").decodeList(Drink.self, from: Data(DrinkTests.current.utf8)).first)
        let record = try #require(try self.read(DrinkTests.current).fast?.first)
        #expect(record.drink == drink)
        #expect(DrinkRecord(drink) == record)
    }

    @Test func everyReplicaRecordReadsTheSameBothWays() async throws {
        try await ReplicaServer.withServer { server in
            try await withEngine { engine in
                var checked = 0
                for letter in CrawlOptions.sweepLetters {
                    let result = await engine.fetch(Request(server.url("search.php?f=\(letter)")))
                    let response = try result.outcome.get()
                    guard let slice = try Envelope("drinks").list(in: response.body) else {
                        continue
                    }
                    let fast = try #require(slice.withUnsafeBytes { DrinkRecord.records(in: $0) })
                    let reference = try CocktailDBClient.drinks(from: response, endpoint: .searchByFirstLetter(letter))
                    #expect(fast == reference.map(DrinkRecord.init), "search.php?f=\(letter)")
                    checked += fast.count
                }
                // The sweep finds every drink whose name starts with a letter or a digit.
                let sweepable = server.catalogue.drinks.filter { drink in
                    drink.name.first.map { CrawlOptions.sweepLetters.contains($0.lowercased()) } ?? false
                }
                #expect(checked == sweepable.count)
                #expect(checked > server.catalogue.drinks.count * 9 / 10)
            }
        }
    }

    @Test func wholeDocumentsAreReadInOnePassOnlyWhereTheScannerAgrees() async throws {
        let documents: [Data] = try await ReplicaServer.withServer { server in
            try await withEngine { engine in
                var bodies: [Data] = []
                for path in server.catalogue.drinks.prefix(20).map({ "lookup.php?i=\($0.id)" }) + ["search.php?f=b"] {
                    bodies.append(try await engine.fetch(Request(server.url(path))).outcome.get().body)
                }
                return bodies
            }
        }
        var random = SeededGenerator(seed: 0xD0C)
        let bytes: [UInt8] = [
            0x00, 0x1F, 0x7F, 0x80, 0xC3, 0x22, 0x5C, 0x75, 0x78, 0x2C, 0x7D, 0x5D, 0x20, 0x6E, 0x30, 0x2F,
        ]
        var accepted = 0
        var checked = 0
        var shared = DrinkRecordReader.Buffers()
        for original in documents {
            var variants = [original]
            for _ in 0..<150 {
                var mutated = Array(original)
                let at = random.next(mutated.count)
                switch random.next(3) {
                case 0: mutated.insert(bytes[random.next(bytes.count)], at: at)
                case 1: mutated.remove(at: at)
                default: mutated[at] = bytes[random.next(bytes.count)]
                }
                variants.append(Data(mutated))
            }
            for (number, body) in variants.enumerated() {
                let fast = body.withUnsafeBytes { DrinkRecord.records(document: $0) }
                // A crawl lends one set of buffers to every lookup, whatever the last one left in
                // them (a record cut short, a rejected document): the result must not change.
                let reusing = body.withUnsafeBytes { DrinkRecord.records(document: $0, buffers: &shared) }
                #expect(reusing == fast, "\(String(decoding: body, as: UTF8.self))")
                let response = Response(
                    status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: body,
                    effectiveURL: "")
                let reference = Result { () throws(FetchError) in
                    try CocktailDBClient.drinks(from: response, endpoint: .searchByFirstLetter("b")).map(
                        DrinkRecord.init)
                }
                let client = Result { () throws(FetchError) in
                    try CocktailDBClient.records(from: response, endpoint: .searchByFirstLetter("b"))
                }
                checked += 1
                if number == 0 {
                    #expect(fast != nil, "the replica's own document must take the one-pass way")
                }
                if let fast {
                    accepted += 1
                    // Accepted in one pass: the scanner accepts it too, and reads the same records.
                    #expect((try? reference.get()) == fast, "\(String(decoding: body, as: UTF8.self))")
                }
                switch (client, reference) {
                case (.success(let got), .success(let want)): #expect(got == want)
                case (.failure(let got), .failure(let want)):
                    #expect(got.kind == want.kind && got.message == want.message)
                default:
                    Issue.record(
                        "records(from:) and the Drink path disagree on \(String(decoding: body, as: UTF8.self))")
                }
            }
        }
        #expect(checked == documents.count * 151)
        #expect(accepted > documents.count, "some harmless mutations (inside strings) are still read in one pass")
    }

    @Test func summariesAreReadFromTheBytesAsJSONDecoderReadsThem() throws {
        let document = #"""
            {"drinks":[{"strDrink":"A \/ B","strDrinkThumb":"https:\/\/x\/1.jpg","idDrink":"1"},
            {"idDrink":"2","strDrink":"C","strDrinkThumb":null,"extra":[1]},{"idDrink":3,"strDrink":"D"},
            {"idDrink":"4","strDrink":"old","strDrink":"new"}]}
            """#
        let body = Data(document.utf8)
        let slice = try #require(try Envelope("drinks").list(in: body))
        // An array value is not flat: that list goes to JSONDecoder, which skips unknown keys.
        #expect(slice.withUnsafeBytes { DrinkSummary.summaries(in: $0) } == nil)
        let flat = document.replacingOccurrences(of: #","extra":[1]"#, with: "")
        let flatSlice = try #require(try Envelope("drinks").list(in: Data(flat.utf8)))
        let summaries = try #require(flatSlice.withUnsafeBytes { DrinkSummary.summaries(in: $0) })
        #expect(
            summaries == [
                DrinkSummary(id: "1", name: "A / B", thumbnail: "https://x/1.jpg"),
                DrinkSummary(id: "2", name: "C", thumbnail: nil), DrinkSummary(id: "3", name: "D", thumbnail: nil),
                DrinkSummary(id: "4", name: "new", thumbnail: nil),
            ])
        #expect(flatSlice.withUnsafeBytes { DrinkSummary.ids(in: $0) } == ["1", "2", "3", "4"])
        let missing = try #require(try Envelope("drinks").list(in: Data(#"{"drinks":[{"idDrink":"1"}]}"#.utf8)))
        #expect(missing.withUnsafeBytes { DrinkSummary.summaries(in: $0) } == nil)
        // The ids reader refuses what the summaries reader refuses, so both fall back alike.
        #expect(missing.withUnsafeBytes { DrinkSummary.ids(in: $0) } == nil)
        let nullName = try #require(
            try Envelope("drinks").list(in: Data(#"{"drinks":[{"idDrink":"1","strDrink":null}]}"#.utf8)))
        #expect(nullName.withUnsafeBytes { DrinkSummary.ids(in: $0) } == nil)
        let response = Response(
            status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]),
            body: Data(#"{"drinks":[{"idDrink":"1"}]}"#.utf8), effectiveURL: "")
        let endpoint = Endpoint.filter(by: .category, value: "Shot")
        #expect(throws: FetchError.self) { try CocktailDBClient.summaryIDs(from: response, endpoint: endpoint) }
    }

    /// `text` as a JSON string literal: with `escapingAll`, every character as `\uXXXX` (pairs
    /// above the BMP) and `/` as `\/`; otherwise only what JSON requires.
    private static func literal(_ text: String, escapingAll: Bool) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "/" where escapingAll: out += "\\/"
            case _ where scalar.value < 0x20 || escapingAll:
                for unit in String(scalar).utf16 {
                    out += "\\u" + String(format: "%04x", unit)
                }
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}
