/// A dimension the catalogue can be listed and filtered by.
public enum Facet: String, Sendable, Hashable, CaseIterable, Codable {
    case category
    case glass
    case ingredient
    case alcoholic

    /// The query parameter letter of `list.php` and `filter.php` (`c`, `g`, `i`, `a`).
    public var parameter: String {
        switch self {
        case .category: "c"
        case .glass: "g"
        case .ingredient: "i"
        case .alcoholic: "a"
        }
    }

    /// The field that names a value in `list.php` items (`strCategory`, …, `strIngredient1`).
    public var listField: String {
        switch self {
        case .category: "strCategory"
        case .glass: "strGlass"
        case .ingredient: "strIngredient1"
        case .alcoholic: "strAlcoholic"
        }
    }
}

/// One value of a facet, as `list.php` returns it: a category, a glass, an ingredient name or an
/// alcoholic flag.
public struct FacetValue: Sendable, Hashable, CustomStringConvertible {
    /// Which facet.
    public let facet: Facet
    /// The value, e.g. `Ordinary Drink`.
    public let name: String

    /// Creates a facet value.
    public init(_ facet: Facet, _ name: String) {
        self.facet = facet
        self.name = name
    }

    public var description: String { self.name }
}

/// A drink category (`list.php?c=list`).
public typealias Category = FacetValue
