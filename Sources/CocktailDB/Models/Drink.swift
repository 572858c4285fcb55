import BatchFetch
import Foundation

/// A drink's full record (`lookup.php?i=`, `search.php`, `random.php`).
///
/// Every field of the API's record is kept under its API name (optional where the API sends
/// `null`, and older records' `""` read as absent), plus normalised views: ``ingredients`` from
/// the fifteen `strIngredientN`/`strMeasureN` slots, ``tags``, ``instructionsByLanguage`` and
/// ``modified``. Encoding writes the API's field names in the API's order, then the normalised
/// `ingredients` and `tags`, so output stays familiar to anyone who knows the API.
public struct Drink: Sendable, Hashable {
    /// One ingredient with its measure, in recipe order.
    public struct Ingredient: Sendable, Hashable, Codable {
        /// The ingredient, e.g. `Tequila`.
        public let name: String
        /// The measure, trimmed (the API pads many with a trailing space), or `nil`.
        public let measure: String?

        /// Creates an ingredient.
        public init(name: String, measure: String?) {
            self.name = name
            self.measure = measure
        }
    }

    /// `idDrink`.
    public let id: String
    /// `strDrink`.
    public let name: String
    /// The record's string fields by API name, exactly as sent (`nil` for `null`).
    public let fields: [String: String?]

    /// Ingredients from the fifteen slots, empty slots dropped, measures trimmed, order kept.
    public let ingredients: [Ingredient]

    /// `strCategory`.
    public var category: String? { self.value("strCategory") }
    /// `strGlass`.
    public var glass: String? { self.value("strGlass") }
    /// `strAlcoholic`.
    public var alcoholic: String? { self.value("strAlcoholic") }
    /// `strInstructions`.
    public var instructions: String? { self.value("strInstructions") }
    /// `strDrinkThumb`.
    public var thumbnail: String? { self.value("strDrinkThumb") }
    /// `strTags`, split at commas and trimmed.
    public var tags: [String] {
        (self.value("strTags") ?? "").split(separator: ",").map { $0.trimmingWhiteSpace() }.filter { !$0.isEmpty }
    }

    /// Instructions by language: `EN` for `strInstructions`, then `ES`, `DE`, `FR`, `IT`, `ZH-HANS`, `ZH-HANT`.
    public var instructionsByLanguage: [String: String] {
        var result: [String: String] = [:]
        if let english = self.instructions {
            result["EN"] = english
        }
        for language in Drink.languages {
            if let text = self.value("strInstructions" + language) {
                result[language] = text
            }
        }
        return result
    }

    /// `dateModified` (`YYYY-MM-DD HH:MM:SS`, UTC), parsed.
    public var modified: Date? {
        self.value("dateModified").flatMap(Drink.parseDate)
    }

    /// A field's value, with `""` (older records) read as absent.
    public func value(_ field: String) -> String? {
        guard let value = self.fields[field] ?? nil, !value.isEmpty else {
            return nil
        }
        return value
    }

    /// The API's field names in its order; other fields a server adds are kept after them.
    public static let fieldOrder: [String] = {
        var order = [
            "idDrink", "strDrink", "strDrinkAlternate", "strTags", "strVideo", "strCategory", "strIBA",
            "strAlcoholic", "strGlass", "strInstructions",
        ]
        order += Drink.languages.map { "strInstructions" + $0 }
        order.append("strDrinkThumb")
        order += Drink.ingredientFields
        order += Drink.measureFields
        order += ["strImageSource", "strImageAttribution", "strCreativeCommonsConfirmed", "dateModified"]
        return order
    }()

    static let languages = ["ES", "DE", "FR", "IT", "ZH-HANS", "ZH-HANT"]

    /// `strIngredient1` … `strIngredient15` and `strMeasure1` … `strMeasure15`, built once.
    static let ingredientFields = (1...15).map { "strIngredient\($0)" }
    static let measureFields = (1...15).map { "strMeasure\($0)" }

    private static let knownFields = Set(Drink.fieldOrder)

    /// The record's fields as the API orders them (``fieldOrder``), then any others by name: the
    /// one order every encoding of a drink uses, so output is the same bytes run after run.
    public var orderedFields: [(name: String, value: String?)] {
        var ordered: [(name: String, value: String?)] = []
        ordered.reserveCapacity(self.fields.count)
        for name in Drink.fieldOrder {
            if let value = self.fields[name] {
                ordered.append((name, value))
            }
        }
        if self.fields.count > ordered.count {
            for name in self.fields.keys.filter({ !Drink.knownFields.contains($0) }).sorted() {
                ordered.append((name, self.fields[name] ?? nil))
            }
        }
        return ordered
    }

    /// Creates a drink from its API fields, normalising the ingredient slots.
    public init(fields: [String: String?]) throws(FetchError) {
        guard let id = fields["idDrink"] ?? nil, !id.isEmpty else {
            throw FetchError(kind: .decodingFailed, message: "drink record without idDrink")
        }
        self.id = id
        self.name = (fields["strDrink"] ?? nil) ?? ""
        self.fields = fields
        var ingredients: [Ingredient] = []
        for slot in 0..<15 {
            guard let raw = fields[Drink.ingredientFields[slot]] ?? nil else {
                continue
            }
            let name = raw.trimmingWhiteSpace()
            guard !name.isEmpty else {
                continue
            }
            let measure = (fields[Drink.measureFields[slot]] ?? nil)?.trimmingWhiteSpace()
            ingredients.append(Ingredient(name: name, measure: measure?.isEmpty == false ? measure : nil))
        }
        self.ingredients = ingredients
    }

    private static func parseDate(_ text: String) -> Date? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).compactMap { Int($0) }
        guard parts.count == 6 else {
            return nil
        }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        return calendar.date(
            from: DateComponents(
                year: parts[0], month: parts[1], day: parts[2], hour: parts[3], minute: parts[4], second: parts[5]))
    }
}

extension Drink: Codable {
    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        var fields: [String: String?] = [:]
        for key in container.allKeys where key.stringValue != "ingredients" && key.stringValue != "tags" {
            if try container.decodeNil(forKey: key) {
                fields[key.stringValue] = .some(nil)
            } else if let text = try? container.decode(String.self, forKey: key) {
                fields[key.stringValue] = text
            } else if let number = try? container.decode(Int.self, forKey: key) {
                // Some mirrors send ids as numbers; keep them as the API's strings.
                fields[key.stringValue] = String(number)
            } else {
                throw DecodingError.typeMismatch(
                    String.self,
                    DecodingError.Context(
                        codingPath: container.codingPath + [key], debugDescription: "expected a string or null"))
            }
        }
        do {
            try self.init(fields: fields)
        } catch {
            throw DecodingError.keyNotFound(
                Key(stringValue: "idDrink"),
                DecodingError.Context(codingPath: container.codingPath, debugDescription: error.message))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        for (name, value) in self.orderedFields {
            try container.encode(value, forKey: Key(stringValue: name))
        }
        try container.encode(self.ingredients, forKey: Key(stringValue: "ingredients"))
        try container.encode(self.tags, forKey: Key(stringValue: "tags"))
    }
}
