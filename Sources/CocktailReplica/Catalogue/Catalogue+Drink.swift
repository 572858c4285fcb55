extension Catalogue {
    /// One drink's full record, as `lookup.php?i=` serves it.
    ///
    /// Property names follow the API's `str…` fields; `components` holds the used
    /// `strIngredientN`/`strMeasureN` pairs (at most 12, in order), and the unused slots up to 15
    /// are served as `null` — or as `""` when `usesLegacyEmptyStrings` is set, the older form of
    /// the real API that some clients still have to handle.
    public struct Drink: Sendable, Hashable {
        /// `idDrink`: a digit string, mostly 11000–17999, some six digits.
        public let id: String
        /// `strDrink`.
        public let name: String
        /// `strDrinkAlternate`.
        public let alternateName: String?
        /// `strTags`: comma-separated, no spaces.
        public let tags: String?
        /// `strVideo`.
        public let video: String?
        /// `strCategory`.
        public let category: String
        /// `strIBA`.
        public let iba: String?
        /// `strAlcoholic`: one of ``Catalogue/alcoholicFlags``.
        public let alcoholic: String
        /// `strGlass`.
        public let glass: String
        /// `strInstructions`.
        public let instructions: String
        /// The translated instructions by language suffix (`ES`, `DE`, `FR`, `IT`, `ZH-HANS`,
        /// `ZH-HANT`); a language the drink has no translation for is absent (served as `null`).
        public let translatedInstructions: [String: String]
        /// `strDrinkThumb`.
        public let thumbnail: String
        /// The ingredients with their measures, in `strIngredientN` order.
        public let components: [Component]
        /// `strImageSource`.
        public let imageSource: String?
        /// `strImageAttribution`.
        public let imageAttribution: String?
        /// `strCreativeCommonsConfirmed`: `"Yes"` or `"No"`.
        public let creativeCommonsConfirmed: String
        /// `dateModified`: `"YYYY-MM-DD HH:MM:SS"`, or `nil`.
        public let dateModified: String?
        /// Whether unused ingredient and measure slots are served as `""` instead of `null`.
        public let usesLegacyEmptyStrings: Bool

        /// The language suffixes of `strInstructionsXX`, in the API's key order.
        public static let instructionLanguages = ["ES", "DE", "FR", "IT", "ZH-HANS", "ZH-HANT"]

        /// The number of `strIngredientN`/`strMeasureN` slots in every record.
        public static let slotCount = 15

        /// The translated instructions for `language` (e.g. `"DE"`), or `nil`.
        public func instructions(in language: String) -> String? {
            self.translatedInstructions[language]
        }
    }

    /// One used ingredient slot of a drink.
    public struct Component: Sendable, Hashable {
        /// `strIngredientN`: an ingredient name from ``Catalogue/ingredients``.
        public let ingredient: String
        /// `strMeasureN`, usually with a trailing space as in the real data; `nil` when unmeasured.
        public let measure: String?

        /// Creates a component.
        public init(ingredient: String, measure: String?) {
            self.ingredient = ingredient
            self.measure = measure
        }
    }
}
