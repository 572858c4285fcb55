import BatchFetch

/// A drink's full record as the crawl writes it: one JSON object holding the API's fields under
/// the API's names, in the API's order (``Drink/fieldOrder``; any others after them by name),
/// then the normalised `"ingredients":[{"name":…,"measure":…},…]` and `"tags":[…]`.
///
/// A crawl holds every record of a facet until the facet is complete, and writes it once. This
/// form is built straight from the lookup response's bytes (``CocktailDBClient/records(from:endpoint:)``),
/// without a ``Drink`` and its ~50 `String`s, and it is compact: one buffer per drink. The bytes
/// are those ``init(_:)`` writes for the same record's ``Drink``; ``drink`` gives the model back.
public struct DrinkRecord: Sendable, Hashable {
    /// `idDrink`.
    public let id: String
    /// `strDrink` (empty when the record has none).
    public let name: String
    /// The record as one JSON object (UTF-8), as described above.
    public let json: [UInt8]
    /// Where the API's fields end in ``json``: the `,` before `"ingredients"`.
    let fieldsEnd: Int

    init(id: String, name: String, json: [UInt8], fieldsEnd: Int) {
        self.id = id
        self.name = name
        self.json = json
        self.fieldsEnd = fieldsEnd
    }

    /// The record of a drink: its fields in ``Drink/orderedFields`` order, then its ingredients
    /// and tags.
    public init(_ drink: Drink) {
        var json = JSONBytes()
        json.raw("{")
        var first = true
        for (name, value) in drink.orderedFields {
            json.raw(first ? "" : ",")
            first = false
            json.string(name)
            json.raw(":")
            json.string(value)
        }
        let fieldsEnd = json.buffer.count
        json.raw(first ? "\"ingredients\":[" : ",\"ingredients\":[")
        for (position, ingredient) in drink.ingredients.enumerated() {
            json.raw(position == 0 ? "{\"name\":" : ",{\"name\":")
            json.string(ingredient.name)
            json.raw(",\"measure\":")
            json.string(ingredient.measure)
            json.raw("}")
        }
        json.raw("],\"tags\":[")
        for (position, tag) in drink.tags.enumerated() {
            json.raw(position == 0 ? "" : ",")
            json.string(tag)
        }
        json.raw("]}")
        self.init(id: drink.id, name: drink.name, json: json.buffer, fieldsEnd: fieldsEnd)
    }

    /// The record as the library's model, read back from ``json``.
    public var drink: Drink {
        var object = Array(self.json[..<self.fieldsEnd])
        object.append(UInt8(ascii: "}"))
        let fields = object.withUnsafeBytes { raw in
            Result { () throws(FetchError) in try FlatJSON.object(in: raw) }
        }
        do throws(FetchError) {
            return try Drink(fields: fields.get())
        } catch {
            // The bytes are this type's own output, a flat object with an idDrink.
            preconditionFailure("a DrinkRecord's own JSON does not read back: \(error)")
        }
    }
}
