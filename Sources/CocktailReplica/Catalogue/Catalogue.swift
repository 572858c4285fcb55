/// The replica's data: a deterministic, invented catalogue shaped like TheCocktailDB's.
///
/// The same `seed` and `scale` always produce the same catalogue, and so the same response bytes.
/// At scale 1 it has the real API's 11 categories and 635 drinks (the three largest categories
/// exceed the free key's 100-result cap); `scale: 100` has about 100 times the drinks. Glasses,
/// alcoholic flags and ingredients are fixed lists whatever the scale.
///
/// Crawl tests compare what they fetched against this value: ``categories`` is in
/// `list.php?c=list` order and each category's ``Category/drinkIDs`` is in the (uncapped) order
/// `filter.php?c=` serves, so `drinkIDs.prefix(resultCap)` is what a capped server returns.
///
/// An immutable value; safe to share between threads.
public struct Catalogue: Sendable {
    /// One category with its drinks.
    public struct Category: Sendable, Hashable {
        /// `strCategory`, e.g. `"Coffee / Tea"`.
        public let name: String
        /// The category's drink ids in `filter.php?c=` order (by name), before any result cap.
        public let drinkIDs: [String]
    }

    /// The seed the catalogue was generated from.
    public let seed: UInt64
    /// The scale the catalogue was generated at.
    public let scale: Double
    /// Categories in `list.php?c=list` order.
    public let categories: [Category]
    /// Glass names in `list.php?g=list` order.
    public let glasses: [String]
    /// Alcoholic flags in `list.php?a=list` order.
    public let alcoholicFlags: [String]
    /// Ingredients in `list.php?i=list` order (which is also `idIngredient` order).
    public let ingredients: [Ingredient]
    /// Every drink, in generation order (category by category).
    public let drinks: [Drink]

    /// The seed used when none is given.
    public static let defaultSeed: UInt64 = 20_150_101

    // Indexes used by the router; positions in `drinks`, each list in the API's order.
    let drinkPositionByID: [Int: Int]
    let drinkPositionsByCategory: [[Int]]
    let drinkPositionsByGlass: [[Int]]
    let drinkPositionsByIngredient: [[Int]]
    let drinkPositionsByAlcoholic: [[Int]]
    let drinkPositionsByName: [Int]
    let lowercasedDrinkNames: [String]
    let categoryByKey: [String: Int]
    let glassByKey: [String: Int]
    let ingredientByKey: [String: Int]
    let alcoholicByKey: [String: Int]

    /// Generates the catalogue for `seed` and `scale`.
    ///
    /// - Parameters:
    ///   - seed: any value; the default matches the CLI's default.
    ///   - scale: drinks relative to the real catalogue; must be in `0.001...10_000`.
    ///   - legacyRate: the fraction of drinks whose unused ingredient slots are `""` instead of
    ///     `null`, in `0...1`. Drawn from a stream of its own, so changing it changes nothing else.
    /// - Throws: ``ReplicaError`` when an argument is out of range.
    public init(seed: UInt64 = Catalogue.defaultSeed, scale: Double = 1, legacyRate: Double = 0) throws {
        guard scale.isFinite, (0.001...10_000).contains(scale) else {
            throw ReplicaError.invalidConfiguration("scale must be between 0.001 and 10000, got \(scale)")
        }
        guard (0...1).contains(legacyRate) else {
            throw ReplicaError.invalidConfiguration("legacy rate must be between 0 and 1, got \(legacyRate)")
        }
        var generator = CatalogueGenerator(seed: seed, scale: scale, legacyRate: legacyRate)
        let generated = generator.generate()
        self.seed = seed
        self.scale = scale
        self.glasses = NameBank.glasses
        self.alcoholicFlags = NameBank.alcoholicFlags
        self.ingredients = generated.ingredients
        self.drinks = generated.drinks

        let byName = Self.sortedByName(Array(self.drinks.indices), in: self.drinks)
        self.drinkPositionsByName = byName
        self.lowercasedDrinkNames = self.drinks.map { $0.name.lowercased() }

        var positionByID: [Int: Int] = [:]
        positionByID.reserveCapacity(self.drinks.count)
        for (position, drink) in self.drinks.enumerated() {
            if let id = Int(drink.id) {
                positionByID[id] = position
            }
        }
        self.drinkPositionByID = positionByID

        let categoryNames = NameBank.categories.map(\.name)
        self.categoryByKey = Self.keyIndex(categoryNames)
        self.glassByKey = Self.keyIndex(self.glasses)
        self.ingredientByKey = Self.keyIndex(self.ingredients.map(\.name))
        self.alcoholicByKey = Self.keyIndex(self.alcoholicFlags)

        // Bucketing the name-sorted positions keeps every bucket in filter (name) order.
        var byCategory = Array(repeating: [Int](), count: categoryNames.count)
        var byGlass = Array(repeating: [Int](), count: self.glasses.count)
        var byIngredient = Array(repeating: [Int](), count: self.ingredients.count)
        var byAlcoholic = Array(repeating: [Int](), count: self.alcoholicFlags.count)
        for position in byName {
            let drink = self.drinks[position]
            if let category = self.categoryByKey[Self.matchKey(drink.category)] {
                byCategory[category].append(position)
            }
            if let glass = self.glassByKey[Self.matchKey(drink.glass)] {
                byGlass[glass].append(position)
            }
            if let flag = self.alcoholicByKey[Self.matchKey(drink.alcoholic)] {
                byAlcoholic[flag].append(position)
            }
            var seen = Set<Int>()
            for component in drink.components {
                if let ingredient = self.ingredientByKey[Self.matchKey(component.ingredient)],
                    seen.insert(ingredient).inserted
                {
                    byIngredient[ingredient].append(position)
                }
            }
        }
        self.drinkPositionsByCategory = byCategory
        self.drinkPositionsByGlass = byGlass
        self.drinkPositionsByIngredient = byIngredient
        self.drinkPositionsByAlcoholic = byAlcoholic
        let drinks = self.drinks
        self.categories = zip(categoryNames, byCategory).map { name, positions in
            Category(name: name, drinkIDs: positions.map { drinks[$0].id })
        }
    }

    /// The drink with `id`, or `nil`.
    public func drink(id: String) -> Drink? {
        guard let number = Int(id), let position = self.drinkPositionByID[number] else {
            return nil
        }
        return self.drinks[position]
    }

    /// The drinks of the category named `name` (matched like the server does), in filter order.
    public func drinks(inCategory name: String) -> [Drink] {
        guard let category = self.categoryByKey[Self.matchKey(name)] else {
            return []
        }
        return self.drinkPositionsByCategory[category].map { self.drinks[$0] }
    }

    /// The ingredient named `name` (case-insensitive), or `nil`.
    public func ingredient(named name: String) -> Ingredient? {
        self.ingredientByKey[Self.matchKey(name)].map { self.ingredients[$0] }
    }

    /// How the server compares names from a query: `_` counts as a space, case is ignored.
    static func matchKey(_ text: some StringProtocol) -> String {
        String(text.map { $0 == "_" ? " " : $0 }).lowercased()
    }

    private static func keyIndex(_ names: [String]) -> [String: Int] {
        var index: [String: Int] = [:]
        for (position, name) in names.enumerated() {
            let key = Self.matchKey(name)
            if index[key] == nil {
                index[key] = position
            }
        }
        return index
    }

    private static func sortedByName(_ positions: [Int], in drinks: [Drink]) -> [Int] {
        positions.sorted { left, right in
            let leftName = drinks[left].name
            let rightName = drinks[right].name
            return leftName == rightName ? left < right : leftName < rightName
        }
    }
}
