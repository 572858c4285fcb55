/// Builds the invented drinks and ingredients of a ``Catalogue`` from a seed.
///
/// Every value is drawn, in a fixed order, from one ``SplitMix64`` stream seeded with the seed, so
/// the output depends on nothing else; legacy flags come from a second stream so that changing the
/// legacy rate leaves every other byte alone. Changing the draw order changes every catalogue:
/// regenerate the golden fixtures in Tests/CocktailReplicaTests/Fixtures when you do.
struct CatalogueGenerator {
    private var random: SplitMix64
    private var legacyRandom: SplitMix64
    private let scale: Double
    private let legacyRate: Double
    private var usedNames = Set<String>()

    init(seed: UInt64, scale: Double, legacyRate: Double) {
        self.random = SplitMix64(seed: seed)
        self.legacyRandom = SplitMix64(seed: seed ^ 0x1E6A_C7E5_0000_0000)
        self.scale = scale
        self.legacyRate = legacyRate
    }

    mutating func generate() -> (drinks: [Catalogue.Drink], ingredients: [Catalogue.Ingredient]) {
        let ingredients = self.makeIngredients()
        let counts = NameBank.categories.map { max(1, Int((Double($0.count) * self.scale).rounded())) }
        var ids = self.makeIDs(count: counts.reduce(0, +))
        self.random.shuffle(&ids)
        var drinks: [Catalogue.Drink] = []
        drinks.reserveCapacity(ids.count)
        for (category, count) in zip(NameBank.categories.map(\.name), counts) {
            for _ in 0..<count {
                drinks.append(self.makeDrink(id: ids[drinks.count], category: category))
            }
        }
        return (drinks, ingredients)
    }

    private mutating func makeIngredients() -> [Catalogue.Ingredient] {
        NameBank.ingredients.enumerated().map { offset, entry in
            let description: String? =
                self.random.chance(0.7)
                ? "\(entry.name) is a \(entry.alcoholic ? "spirited" : "gentle") ingredient, "
                    + "\(self.random.pick(["often", "sometimes", "rarely"])) used in "
                    + "\(self.random.pick(["long drinks", "short drinks", "punches", "shots"]))."
                : nil
            return Catalogue.Ingredient(
                id: String(offset + 1),
                name: entry.name,
                description: description,
                type: entry.type,
                alcohol: entry.alcoholic ? "Yes" : "No",
                abv: entry.abv
            )
        }
    }

    /// Sparse ids like the real API's: most five-digit in 11000–17999, the rest six-digit.
    private mutating func makeIDs(count: Int) -> [String] {
        let sixDigit = max(count / 12, count - 3500)
        var pool = Array(11000..<18000)
        self.random.shuffle(&pool)
        var ids = pool.prefix(count - sixDigit).sorted().map(String.init)
        var next = 178_300
        for _ in 0..<sixDigit {
            next += 1 + self.random.below(3)
            ids.append(String(next))
        }
        return ids
    }

    private mutating func makeName() -> String {
        for _ in 0..<8 {
            let name =
                self.random.pick(NameBank.prefixes) + self.random.pick(NameBank.adjectives) + " "
                + self.random.pick(NameBank.nouns)
                + {
                    let suffix = self.random.pick(NameBank.suffixes)
                    return suffix.isEmpty ? "" : " " + suffix
                }()
            if self.usedNames.insert(name).inserted {
                return name
            }
        }
        var counter = self.usedNames.count
        while true {
            let name = "\(self.random.pick(NameBank.adjectives)) \(self.random.pick(NameBank.nouns)) No. \(counter)"
            if self.usedNames.insert(name).inserted {
                return name
            }
            counter += 1
        }
    }

    private mutating func makeSlug() -> String {
        var slug = ""
        for _ in 0..<6 {
            slug.append(self.random.pick(NameBank.slugCharacters))
        }
        return slug + String(1_430_000_000 + self.random.below(120_000_000))
    }

    private mutating func makeComponents(nonAlcoholic: Bool) -> [Catalogue.Component] {
        let count = self.random.chance(0.1) ? self.random.int(in: 6...12) : self.random.int(in: 2...5)
        let candidates = NameBank.ingredients.indices.filter { !nonAlcoholic || !NameBank.ingredients[$0].alcoholic }
        var chosen: [Int] = []
        var attempts = 0
        while chosen.count < count && attempts < 64 {
            attempts += 1
            // Squaring a uniform draw skews choices towards the front of the list, so a few
            // ingredients (vodka, gin, juices) appear in hundreds of drinks, as in the real data.
            let unit = self.random.unit()
            let candidate = candidates[min(candidates.count - 1, Int(Double(candidates.count) * unit * unit))]
            if !chosen.contains(candidate) {
                chosen.append(candidate)
            }
        }
        return chosen.map { index in
            Catalogue.Component(
                ingredient: NameBank.ingredients[index].name,
                measure: self.random.chance(0.1) ? nil : self.random.pick(NameBank.measures)
            )
        }
    }

    private mutating func makeDate() -> String? {
        guard !self.random.chance(0.1) else { return nil }
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : String(value) }
        let year = 2015 + self.random.below(3)
        let month = 1 + self.random.below(12)
        let day = 1 + self.random.below(28)
        let time = [self.random.below(24), self.random.below(60), self.random.below(60)].map(two)
        return "\(year)-\(two(month))-\(two(day)) \(time.joined(separator: ":"))"
    }

    private mutating func makeDrink(id: String, category: String) -> Catalogue.Drink {
        let name = self.makeName()
        let soft = NameBank.mostlySoftCategories.contains(category) ? self.random.chance(0.7) : self.random.chance(0.05)
        let components = self.makeComponents(nonAlcoholic: soft)
        let hasAlcohol = components.contains { component in
            NameBank.ingredients.first { $0.name == component.ingredient }?.alcoholic ?? false
        }
        let alcoholic =
            hasAlcohol ? (self.random.chance(0.04) ? "Optional alcohol" : "Alcoholic") : "Non alcoholic"
        let glassUnit = self.random.unit()
        let glass = NameBank.glasses[
            min(NameBank.glasses.count - 1, Int(Double(NameBank.glasses.count) * glassUnit * glassUnit))]
        let tags: String? =
            self.random.chance(0.3)
            ? Array(Set((0..<self.random.int(in: 1...3)).map { _ in self.random.pick(NameBank.tags) })).sorted()
                .joined(separator: ",")
            : nil
        let first = components.first?.ingredient.lowercased() ?? "ice"
        let instructions =
            "\(self.random.pick(NameBank.verbs)) the \(first) with the rest over ice, "
            + "then pour into a \(glass.lowercased()). \(self.random.pick(NameBank.endings))"
        var translations: [String: String] = [:]
        for entry in NameBank.foreignInstructions {
            let likely = entry.key == "DE" || entry.key == "IT"
            if self.random.chance(likely ? 0.8 : 0.15) {
                translations[entry.key] = entry.text
            }
        }
        let hasImageSource = self.random.chance(0.2)
        let imageSource = hasImageSource ? "https://commons.wikimedia.org/wiki/File:\(self.makeSlug()).jpg" : nil
        return Catalogue.Drink(
            id: id,
            name: name,
            alternateName: self.random.chance(0.03) ? self.makeName() : nil,
            tags: tags,
            video: self.random.chance(0.05) ? "https://www.youtube.com/watch?v=\(self.makeSlug().prefix(11))" : nil,
            category: category,
            iba: self.random.chance(0.12) ? self.random.pick(NameBank.ibaLists) : nil,
            alcoholic: alcoholic,
            glass: glass,
            instructions: instructions,
            translatedInstructions: translations,
            thumbnail: Catalogue.publicImageBase + self.makeSlug() + ".jpg",
            components: components,
            imageSource: imageSource,
            imageAttribution: hasImageSource ? self.random.pick(NameBank.people) : nil,
            creativeCommonsConfirmed: hasImageSource ? "Yes" : "No",
            dateModified: self.makeDate(),
            usesLegacyEmptyStrings: self.legacyRate > 0 && self.legacyRandom.chance(self.legacyRate)
        )
    }
}
