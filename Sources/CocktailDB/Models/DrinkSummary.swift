/// A drink as `filter.php` lists it: id, name and thumbnail.
public struct DrinkSummary: Sendable, Hashable, Codable {
    /// `idDrink`, a digit string such as `11007`.
    public let id: String
    /// `strDrink`.
    public let name: String
    /// `strDrinkThumb`, the image URL.
    public let thumbnail: String?

    /// Creates a summary.
    public init(id: String, name: String, thumbnail: String?) {
        self.id = id
        self.name = name
        self.thumbnail = thumbnail
    }

    enum CodingKeys: String, CodingKey {
        case id = "idDrink"
        case name = "strDrink"
        case thumbnail = "strDrinkThumb"
    }
}
