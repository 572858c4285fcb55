import CocktailReplica
import Foundation

/// Strict decoding: a model accepts exactly its keys (none missing, none extra) and exact types.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { self.stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

extension Decoder {
    /// Throws unless the object's keys are exactly `expected`.
    func requireExactKeys(_ expected: [String]) throws -> KeyedDecodingContainer<AnyCodingKey> {
        let container = try self.container(keyedBy: AnyCodingKey.self)
        let actual = Set(container.allKeys.map(\.stringValue))
        guard actual == Set(expected), expected.count == Set(expected).count else {
            let missing = Set(expected).subtracting(actual).sorted()
            let extra = actual.subtracting(expected).sorted()
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: self.codingPath, debugDescription: "missing keys \(missing), unexpected keys \(extra)")
            )
        }
        return container
    }
}

/// `{"drinks":[…]}` or `{"drinks":null}`.
struct DrinksEnvelope<Item: Decodable>: Decodable {
    let drinks: [Item]?

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys(["drinks"])
        self.drinks = try container.decode([Item]?.self, forKey: AnyCodingKey("drinks"))
    }
}

/// `{"ingredients":[…]}` or `{"ingredients":null}`.
struct IngredientsEnvelope: Decodable {
    let ingredients: [StrictIngredient]?

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys(["ingredients"])
        self.ingredients = try container.decode([StrictIngredient]?.self, forKey: AnyCodingKey("ingredients"))
    }
}

/// `{"drinks":"None Found"}`.
struct NoneFoundEnvelope: Decodable {
    let drinks: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys(["drinks"])
        self.drinks = try container.decode(String.self, forKey: AnyCodingKey("drinks"))
    }
}

/// A one-key list item: `{"strCategory":…}`, `{"strGlass":…}`, `{"strIngredient1":…}`, `{"strAlcoholic":…}`.
struct ListItem<Key: ListItemKey>: Decodable {
    let value: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys([Key.name])
        self.value = try container.decode(String.self, forKey: AnyCodingKey(Key.name))
    }
}

protocol ListItemKey { static var name: String { get } }
enum CategoryKey: ListItemKey { static let name = "strCategory" }
enum GlassKey: ListItemKey { static let name = "strGlass" }
enum IngredientKey: ListItemKey { static let name = "strIngredient1" }
enum AlcoholicKey: ListItemKey { static let name = "strAlcoholic" }

/// A `filter.php` item: exactly `strDrink`, `strDrinkThumb`, `idDrink`, all strings.
struct StrictSummary: Decodable, Equatable {
    let name: String
    let thumbnail: String
    let id: String

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys(["strDrink", "strDrinkThumb", "idDrink"])
        self.name = try container.decode(String.self, forKey: AnyCodingKey("strDrink"))
        self.thumbnail = try container.decode(String.self, forKey: AnyCodingKey("strDrinkThumb"))
        self.id = try container.decode(String.self, forKey: AnyCodingKey("idDrink"))
    }
}

/// An ingredient record: exactly the six keys of the real API.
struct StrictIngredient: Decodable, Equatable {
    static let keys = ["idIngredient", "strIngredient", "strDescription", "strType", "strAlcohol", "strABV"]
    let fields: [String: String?]

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys(Self.keys)
        var fields: [String: String?] = [:]
        for key in Self.keys {
            fields[key] = .some(try container.decode(String?.self, forKey: AnyCodingKey(key)))
        }
        self.fields = fields
    }

    func matches(_ ingredient: Catalogue.Ingredient) -> Bool {
        self.fields["idIngredient"] == .some(ingredient.id) && self.fields["strIngredient"] == .some(ingredient.name)
            && self.fields["strDescription"] == .some(ingredient.description)
            && self.fields["strType"] == .some(ingredient.type)
            && self.fields["strAlcohol"] == .some(ingredient.alcohol)
            && self.fields["strABV"] == .some(ingredient.abv)
    }
}

/// A full drink record: exactly the real API's 51 keys, every value a string or `null`.
struct StrictDrink: Decodable {
    static let keys: [String] =
        [
            "idDrink", "strDrink", "strDrinkAlternate", "strTags", "strVideo", "strCategory", "strIBA",
            "strAlcoholic", "strGlass", "strInstructions", "strInstructionsES", "strInstructionsDE",
            "strInstructionsFR", "strInstructionsIT", "strInstructionsZH-HANS", "strInstructionsZH-HANT",
            "strDrinkThumb",
        ] + (1...15).map { "strIngredient\($0)" } + (1...15).map { "strMeasure\($0)" }
        + ["strImageSource", "strImageAttribution", "strCreativeCommonsConfirmed", "dateModified"]

    let fields: [String: String?]

    init(from decoder: any Decoder) throws {
        let container = try decoder.requireExactKeys(Self.keys)
        var fields: [String: String?] = [:]
        for key in Self.keys {
            fields[key] = .some(try container.decode(String?.self, forKey: AnyCodingKey(key)))
        }
        self.fields = fields
    }

    /// The value of `key` (`nil` for JSON `null`).
    func value(_ key: String) -> String? {
        self.fields[key] ?? nil
    }

    /// Whether every field equals what the catalogue says the record is.
    func matches(_ drink: Catalogue.Drink) -> Bool {
        var expected: [String: String?] = [
            "idDrink": drink.id, "strDrink": drink.name, "strDrinkAlternate": drink.alternateName,
            "strTags": drink.tags, "strVideo": drink.video, "strCategory": drink.category, "strIBA": drink.iba,
            "strAlcoholic": drink.alcoholic, "strGlass": drink.glass, "strInstructions": drink.instructions,
            "strDrinkThumb": drink.thumbnail, "strImageSource": drink.imageSource,
            "strImageAttribution": drink.imageAttribution,
            "strCreativeCommonsConfirmed": drink.creativeCommonsConfirmed, "dateModified": drink.dateModified,
        ]
        for language in Catalogue.Drink.instructionLanguages {
            expected["strInstructions\(language)"] = .some(drink.instructions(in: language))
        }
        let unused: String? = drink.usesLegacyEmptyStrings ? "" : nil
        for slot in 1...15 {
            let component = slot <= drink.components.count ? drink.components[slot - 1] : nil
            expected["strIngredient\(slot)"] = .some(component?.ingredient ?? unused)
            expected["strMeasure\(slot)"] = .some(component == nil ? unused : component?.measure)
        }
        return expected == self.fields
    }
}

/// Loads files from the test bundle's Fixtures folder.
enum Fixtures {
    static func url(_ name: String) throws -> URL {
        guard let base = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile)
        }
        return base.appendingPathComponent(name)
    }

    static func bytes(_ name: String) throws -> [UInt8] {
        Array(try Data(contentsOf: try self.url(name)))
    }
}
