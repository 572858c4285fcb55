import BatchFetch

/// One request TheCocktailDB's v1 API answers (as Moya's `TargetType` describes one):
/// each knows its path, its query and the envelope key its content sits under.
public enum Endpoint: Sendable, Hashable {
    /// `list.php?c=list` and its glass, ingredient and alcoholic siblings.
    case list(Facet)
    /// `filter.php?c=Cocktail`: drink summaries with one facet value.
    case filter(by: Facet, value: String)
    /// `lookup.php?i=11007`: a drink's full record.
    case lookupDrink(String)
    /// `lookup.php?iid=552`: an ingredient's record.
    case lookupIngredient(String)
    /// `search.php?s=margarita`: drinks by name.
    case searchByName(String)
    /// `search.php?f=a`: drinks by first letter.
    case searchByFirstLetter(String)
    /// `search.php?i=vodka`: an ingredient by name.
    case searchIngredient(String)
    /// `random.php`: one random drink.
    case random

    /// The file name under the API root.
    public var path: String {
        switch self {
        case .list: "list.php"
        case .filter: "filter.php"
        case .lookupDrink, .lookupIngredient: "lookup.php"
        case .searchByName, .searchByFirstLetter, .searchIngredient: "search.php"
        case .random: "random.php"
        }
    }

    /// The query parameters, unencoded.
    public var query: [(name: String, value: String)] {
        switch self {
        case .list(let facet): [(facet.parameter, "list")]
        case .filter(let facet, let value): [(facet.parameter, value)]
        case .lookupDrink(let id): [("i", id)]
        case .lookupIngredient(let id): [("iid", id)]
        case .searchByName(let name): [("s", name)]
        case .searchByFirstLetter(let letter): [("f", letter)]
        case .searchIngredient(let name): [("i", name)]
        case .random: []
        }
    }

    /// The key the content sits under: `ingredients` for ingredient records, else `drinks`.
    public var envelopeKey: String {
        switch self {
        case .lookupIngredient, .searchIngredient: "ingredients"
        default: "drinks"
        }
    }

    /// Checks the parameters before anything is sent.
    /// - Throws: ``FetchError/Kind/invalidParameter`` for an empty value, a control character,
    ///   a first letter that is not one letter or digit, or an id that is not digits.
    public func validate() throws(FetchError) {
        switch self {
        case .list, .random:
            return
        case .filter(let facet, let value):
            try Self.check(value, what: "the \(facet.rawValue) to filter by")
        case .lookupDrink(let id), .lookupIngredient(let id):
            try Self.check(id, what: "the id")
            guard id.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
                throw FetchError(kind: .invalidParameter, message: "id '\(id)' is not a number")
            }
        case .searchByName(let name), .searchIngredient(let name):
            try Self.check(name, what: "the name to search for")
        case .searchByFirstLetter(let letter):
            guard letter.count == 1, let character = letter.first, character.isLetter || character.isNumber else {
                throw FetchError(
                    kind: .invalidParameter, message: "first letter '\(letter)' must be exactly one letter or digit")
            }
        }
    }

    private static func check(_ value: String, what: String) throws(FetchError) {
        if value.isEmpty {
            throw FetchError(kind: .invalidParameter, message: "\(what) is empty")
        }
        if value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
            throw FetchError(kind: .invalidParameter, message: "\(what) contains a control character")
        }
    }
}

extension FetchError.Kind {
    /// A CocktailDB parameter is invalid (empty, control characters, not a single letter, …).
    public static let invalidParameter = FetchError.Kind(rawValue: "invalidParameter")
}

extension Endpoint {
    /// `lookup.php?i=`: a drink by id.
    public static func lookup(drink id: String) -> Endpoint { .lookupDrink(id) }
    /// `lookup.php?iid=`: an ingredient by id.
    public static func lookup(ingredient id: String) -> Endpoint { .lookupIngredient(id) }
    /// `search.php?s=`: drinks by name.
    public static func search(name: String) -> Endpoint { .searchByName(name) }
    /// `search.php?f=`: drinks by first letter.
    public static func search(firstLetter: String) -> Endpoint { .searchByFirstLetter(firstLetter) }
    /// `search.php?i=`: an ingredient by name.
    public static func search(ingredient: String) -> Endpoint { .searchIngredient(ingredient) }
}
