import BatchFetch
import Foundation
import Testing

@testable import CocktailDB

struct DrinkTests {
    /// The current record form: unused slots are null, measures carry trailing spaces.
    static let current = #"""
        {"drinks":[{"idDrink":"11007","strDrink":"Margarita","strDrinkAlternate":null,"strTags":"IBA, ContemporaryClassic",
        "strVideo":null,"strCategory":"Ordinary Drink","strIBA":"Contemporary Classics","strAlcoholic":"Alcoholic",
        "strGlass":"Cocktail glass","strInstructions":"Rub the rim.","strInstructionsES":null,"strInstructionsDE":"Reiben.",
        "strInstructionsFR":null,"strInstructionsIT":"Strofina.","strInstructionsZH-HANS":"\u64e6","strInstructionsZH-HANT":null,
        "strDrinkThumb":"https:\/\/www.thecocktaildb.com\/images\/media\/drink\/5noda61589575158.jpg",
        "strIngredient1":"Tequila","strIngredient2":"Triple sec","strIngredient3":"Lime juice","strIngredient4":"Salt",
        "strIngredient5":null,"strIngredient6":null,"strIngredient7":null,"strIngredient8":null,"strIngredient9":null,
        "strIngredient10":null,"strIngredient11":null,"strIngredient12":null,"strIngredient13":null,"strIngredient14":null,
        "strIngredient15":null,"strMeasure1":"1 1\/2 oz ","strMeasure2":"1\/2 oz ","strMeasure3":"1 oz ","strMeasure4":null,
        "strMeasure5":null,"strMeasure6":null,"strMeasure7":null,"strMeasure8":null,"strMeasure9":null,"strMeasure10":null,
        "strMeasure11":null,"strMeasure12":null,"strMeasure13":null,"strMeasure14":null,"strMeasure15":null,
        "strImageSource":null,"strImageAttribution":null,"strCreativeCommonsConfirmed":"Yes","dateModified":"2015-08-18 14:42:59"}]}
        """#

    /// The older form: empty strings instead of null, a gap between slots.
    static let legacy = #"""
        {"drinks":[{"idDrink":"12345","strDrink":"Old One","strTags":"","strCategory":"Shot","strAlcoholic":"Alcoholic",
        "strGlass":"Shot glass","strInstructions":"Pour.","strDrinkThumb":"","strIngredient1":"Vodka ","strIngredient2":"",
        "strIngredient3":"Kahlua","strIngredient4":"","strMeasure1":" 1 oz","strMeasure2":"","strMeasure3":"","strMeasure4":"",
        "dateModified":null}]}
        """#

    private func decode(_ text: String) throws -> Drink {
        try #require(try Envelope("drinks").decodeList(Drink.self, from: Data(text.utf8)).first)
    }

    @Test func theCurrentFormIsNormalised() throws {
        let drink = try self.decode(Self.current)
        #expect(drink.id == "11007" && drink.name == "Margarita")
        #expect(
            drink.ingredients == [
                .init(name: "Tequila", measure: "1 1/2 oz"), .init(name: "Triple sec", measure: "1/2 oz"),
                .init(name: "Lime juice", measure: "1 oz"), .init(name: "Salt", measure: nil),
            ])
        #expect(drink.tags == ["IBA", "ContemporaryClassic"])
        #expect(
            drink.instructionsByLanguage == ["EN": "Rub the rim.", "DE": "Reiben.", "IT": "Strofina.", "ZH-HANS": "擦"])
        #expect(drink.modified == Date(timeIntervalSince1970: 1_439_908_979))
        #expect(drink.thumbnail == "https://www.thecocktaildb.com/images/media/drink/5noda61589575158.jpg")
        #expect(drink.value("strVideo") == nil)
    }

    @Test func theOlderFormWithEmptyStringsIsNormalised() throws {
        let drink = try self.decode(Self.legacy)
        #expect(drink.ingredients == [.init(name: "Vodka", measure: "1 oz"), .init(name: "Kahlua", measure: nil)])
        #expect(drink.tags == [])
        #expect(drink.thumbnail == nil)
        #expect(drink.modified == nil)
    }

    @Test func encodingKeepsTheAPIsNamesAndAddsTheNormalisedFields() throws {
        let drink = try self.decode(Self.current)
        let encoder = JSONEncoder()
        let json = String(decoding: try encoder.encode(drink), as: UTF8.self)
        #expect(json.contains(#""idDrink":"11007""#))
        #expect(json.contains(#""strInstructionsZH-HANS":"擦""#))
        #expect(json.contains(#""strIngredient5":null"#))
        #expect(json.contains(#""ingredients":[{"#))
        let again = try JSONDecoder().decode(Drink.self, from: Data(json.utf8))
        #expect(again == drink)
    }

    @Test func aNumberWhereAStringBelongsIsAcceptedButAnObjectIsNot() throws {
        let numeric = try self.decode(#"{"drinks":[{"idDrink":11007,"strDrink":"X"}]}"#)
        #expect(numeric.id == "11007")
        #expect(throws: FetchError.self) { try self.decode(#"{"drinks":[{"idDrink":"1","strDrink":{"a":1}}]}"#) }
        #expect(throws: FetchError.self) { try self.decode(#"{"drinks":[{"strDrink":"no id"}]}"#) }
    }
}

struct FastDrinkDecodingTests {
    @Test func theFastPathReadsTheSameRecordsAsJSONDecoder() throws {
        for text in [DrinkTests.current, DrinkTests.legacy] {
            let slice = try #require(try Envelope("drinks").list(in: Data(text.utf8)))
            let fast = try FlatJSON.objects(in: slice).map { try Drink(fields: $0) }
            let slow = try slice.decode([Drink].self)
            #expect(fast == slow)
        }
    }

    @Test func flatObjectsKeepEscapesNumbersAndNulls() throws {
        let body = Data(#"{"drinks":[{"a":"x\/y \u00e9\"q\"","n":12.5,"b":true,"z":null},{}]}"#.utf8)
        let slice = try #require(try Envelope("drinks").list(in: body))
        let objects = try FlatJSON.objects(in: slice)
        #expect(objects.count == 2)
        #expect(objects[0]["a"] == .some("x/y é\"q\""))
        #expect(objects[0]["n"] == .some("12.5"))
        #expect(objects[0]["b"] == .some("true"))
        #expect(objects[0]["z"] == .some(nil))
        #expect(objects[1].isEmpty)
    }

    @Test func nestedValuesAreLeftToJSONDecoder() throws {
        let body = Data(#"{"drinks":[{"idDrink":"1","extra":{"a":1}}]}"#.utf8)
        let slice = try #require(try Envelope("drinks").list(in: body))
        #expect(throws: FetchError.self) { try FlatJSON.objects(in: slice) }
    }
}
