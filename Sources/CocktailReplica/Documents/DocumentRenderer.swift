/// Renders the JSON documents of every route, byte for byte like the real API.
///
/// Key order, `null`s and escaping follow the real responses; list, filter and search results
/// hold at most `resultCap` items (0 = no cap), as the free key's do. `strDrinkThumb` is the
/// catalogue's (the public host) unless `imageBase` names another root, such as the replica's own
/// `http://127.0.0.1:PORT/images/media/drink/`. Pure: the same catalogue, cap and image base always
/// give the same bytes. Rendering happens once per document (see ``DocumentStore``).
struct DocumentRenderer: Sendable {
    let catalogue: Catalogue
    let resultCap: Int
    /// The root `strDrinkThumb` names instead of ``Catalogue/publicImageBase``, or `nil`.
    var imageBase: String? = nil

    static let nullDrinks = Array(#"{"drinks":null}"#.utf8)
    static let nullIngredients = Array(#"{"ingredients":null}"#.utf8)
    static let noneFound = Array(#"{"drinks":"None Found"}"#.utf8)

    /// The body for `route`; `.random` must be resolved first and `.stats`/`.robots`/`.notFound` are not documents.
    func render(_ route: Route) -> [UInt8] {
        switch route {
        case .listCategories:
            return self.list("strCategory", self.catalogue.categories.map(\.name))
        case .listGlasses:
            return self.list("strGlass", self.catalogue.glasses)
        case .listIngredients:
            return self.list("strIngredient1", self.catalogue.ingredients.map(\.name))
        case .listAlcoholic:
            return self.list("strAlcoholic", self.catalogue.alcoholicFlags)
        case .filterCategory(let position):
            return self.summaries(position.map { self.catalogue.drinkPositionsByCategory[$0] })
        case .filterGlass(let position):
            return self.summaries(position.map { self.catalogue.drinkPositionsByGlass[$0] })
        case .filterIngredient(let position):
            guard let position else { return Self.noneFound }
            return self.summaries(self.catalogue.drinkPositionsByIngredient[position])
        case .filterAlcoholic(let position):
            return self.summaries(position.map { self.catalogue.drinkPositionsByAlcoholic[$0] })
        case .lookupDrink(let position):
            return self.fullDrinks(position.map { [$0] })
        case .lookupIngredient(let position), .searchIngredient(let position):
            return self.ingredients(position)
        case .searchName(let fragment):
            let names = self.catalogue.lowercasedDrinkNames
            let matches = self.catalogue.drinkPositionsByName.filter {
                fragment.isEmpty || names[$0].contains(fragment)
            }
            return self.fullDrinks(self.capped(matches))
        case .searchFirstLetter(let letter):
            let names = self.catalogue.lowercasedDrinkNames
            let matches = self.catalogue.drinkPositionsByName.filter { names[$0].first.map(String.init) == letter }
            return self.fullDrinks(self.capped(matches))
        case .noDrinks, .random, .stats, .robots, .notFound, .image:
            return Self.nullDrinks
        }
    }

    private func capped<T>(_ items: [T]) -> [T] {
        self.resultCap > 0 && items.count > self.resultCap ? Array(items.prefix(self.resultCap)) : items
    }

    private func list(_ key: String, _ values: [String]) -> [UInt8] {
        var writer = JSONWriter(capacity: 64 + values.count * 40)
        writer.beginObject()
        writer.key("drinks")
        writer.beginArray()
        for value in self.capped(values) {
            writer.beginObject()
            writer.field(key, value)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private func summaries(_ positions: [Int]?) -> [UInt8] {
        guard let positions, !positions.isEmpty else { return Self.nullDrinks }
        var writer = JSONWriter(capacity: 64 + min(positions.count, 1000) * 150)
        writer.beginObject()
        writer.key("drinks")
        writer.beginArray()
        for position in self.capped(positions) {
            let drink = self.catalogue.drinks[position]
            writer.beginObject()
            writer.field("strDrink", drink.name)
            writer.field("strDrinkThumb", self.thumbnail(of: drink))
            writer.field("idDrink", drink.id)
            writer.endObject()
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private func fullDrinks(_ positions: [Int]?) -> [UInt8] {
        guard let positions, !positions.isEmpty else { return Self.nullDrinks }
        var writer = JSONWriter(capacity: 64 + positions.count * 2200)
        writer.beginObject()
        writer.key("drinks")
        writer.beginArray()
        for position in positions {
            self.write(self.catalogue.drinks[position], to: &writer)
        }
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }

    private static let ingredientKeys = (1...Catalogue.Drink.slotCount).map { "strIngredient\($0)" }
    private static let measureKeys = (1...Catalogue.Drink.slotCount).map { "strMeasure\($0)" }
    private static let instructionKeys = Catalogue.Drink.instructionLanguages.map { "strInstructions\($0)" }

    /// `strDrinkThumb`: the catalogue's URL, or the same slug under ``imageBase``.
    private func thumbnail(of drink: Catalogue.Drink) -> String {
        guard let imageBase = self.imageBase else { return drink.thumbnail }
        return imageBase + drink.imageSlug + ".jpg"
    }

    private func write(_ drink: Catalogue.Drink, to writer: inout JSONWriter) {
        writer.beginObject()
        writer.field("idDrink", drink.id)
        writer.field("strDrink", drink.name)
        writer.field("strDrinkAlternate", drink.alternateName)
        writer.field("strTags", drink.tags)
        writer.field("strVideo", drink.video)
        writer.field("strCategory", drink.category)
        writer.field("strIBA", drink.iba)
        writer.field("strAlcoholic", drink.alcoholic)
        writer.field("strGlass", drink.glass)
        writer.field("strInstructions", drink.instructions)
        for (key, language) in zip(Self.instructionKeys, Catalogue.Drink.instructionLanguages) {
            writer.field(key, drink.translatedInstructions[language])
        }
        writer.field("strDrinkThumb", self.thumbnail(of: drink))
        let unused: String? = drink.usesLegacyEmptyStrings ? "" : nil
        for slot in 0..<Catalogue.Drink.slotCount {
            let component = slot < drink.components.count ? drink.components[slot] : nil
            writer.field(Self.ingredientKeys[slot], component?.ingredient ?? unused)
        }
        for slot in 0..<Catalogue.Drink.slotCount {
            let measure = slot < drink.components.count ? drink.components[slot].measure : unused
            writer.field(Self.measureKeys[slot], measure)
        }
        writer.field("strImageSource", drink.imageSource)
        writer.field("strImageAttribution", drink.imageAttribution)
        writer.field("strCreativeCommonsConfirmed", drink.creativeCommonsConfirmed)
        writer.field("dateModified", drink.dateModified)
        writer.endObject()
    }

    private func ingredients(_ position: Int?) -> [UInt8] {
        guard let position else { return Self.nullIngredients }
        let ingredient = self.catalogue.ingredients[position]
        var writer = JSONWriter()
        writer.beginObject()
        writer.key("ingredients")
        writer.beginArray()
        writer.beginObject()
        writer.field("idIngredient", ingredient.id)
        writer.field("strIngredient", ingredient.name)
        writer.field("strDescription", ingredient.description)
        writer.field("strType", ingredient.type)
        writer.field("strAlcohol", ingredient.alcohol)
        writer.field("strABV", ingredient.abv)
        writer.endObject()
        writer.endArray()
        writer.endObject()
        return writer.bytes
    }
}
