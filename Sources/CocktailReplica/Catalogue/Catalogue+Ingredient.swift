extension Catalogue {
    /// One ingredient, as `lookup.php?iid=` and `search.php?i=` serve it.
    public struct Ingredient: Sendable, Hashable {
        /// `idIngredient`: a digit string, 1-based in list order.
        public let id: String
        /// `strIngredient`.
        public let name: String
        /// `strDescription`.
        public let description: String?
        /// `strType`.
        public let type: String?
        /// `strAlcohol`: `"Yes"` or `"No"`.
        public let alcohol: String
        /// `strABV`: a digit string, or `nil` for non-alcoholic ingredients.
        public let abv: String?

        /// Whether the ingredient contains alcohol.
        public var isAlcoholic: Bool { self.alcohol == "Yes" }
    }
}
