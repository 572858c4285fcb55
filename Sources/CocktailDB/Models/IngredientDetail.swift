/// An ingredient's record (`lookup.php?iid=`, `search.php?i=`).
public struct IngredientDetail: Sendable, Hashable, Codable {
    /// `idIngredient`.
    public let id: String
    /// `strIngredient`.
    public let name: String
    /// `strDescription`.
    public let description: String?
    /// `strType`.
    public let type: String?
    /// `strAlcohol` (`Yes`/`No`).
    public let alcohol: String?
    /// `strABV`.
    public let abv: String?

    enum CodingKeys: String, CodingKey {
        case id = "idIngredient"
        case name = "strIngredient"
        case description = "strDescription"
        case type = "strType"
        case alcohol = "strAlcohol"
        case abv = "strABV"
    }

    /// Whether the ingredient contains alcohol.
    public var isAlcoholic: Bool { self.alcohol?.lowercased() == "yes" }
}
