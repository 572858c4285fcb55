/// What a request asks for, resolved against the catalogue (positions, not names).
///
/// A `nil` position means "asked for something that does not exist": the documents for those are
/// `{"drinks":null}` (or `"None Found"` for an unknown ingredient filter, as the public key does).
enum Route: Hashable, Sendable {
    /// `/__replica/stats`: never faulted, never counted.
    case stats
    /// `/robots.txt` (``ReplicaConfiguration/robotsTxt``).
    case robots
    /// `list.php?c=list`.
    case listCategories
    /// `list.php?g=list`.
    case listGlasses
    /// `list.php?i=list`.
    case listIngredients
    /// `list.php?a=list`.
    case listAlcoholic
    /// `filter.php?c=`.
    case filterCategory(Int?)
    /// `filter.php?g=`.
    case filterGlass(Int?)
    /// `filter.php?i=`.
    case filterIngredient(Int?)
    /// `filter.php?a=`.
    case filterAlcoholic(Int?)
    /// `lookup.php?i=` (drink position).
    case lookupDrink(Int?)
    /// `lookup.php?iid=` (ingredient position).
    case lookupIngredient(Int?)
    /// `search.php?s=` with the lowercased name fragment.
    case searchName(String)
    /// `search.php?f=` with the lowercased first letter.
    case searchFirstLetter(String)
    /// `search.php?i=` (ingredient position).
    case searchIngredient(Int?)
    /// `random.php`: resolved per response to a `lookupDrink`.
    case random
    /// `/images/media/drink/<slug>.jpg` and its `/small`, `/medium`, `/large` previews (drink position).
    case image(drink: Int, size: DrinkImageSize)
    /// A known endpoint without a usable parameter: `{"drinks":null}`.
    case noDrinks
    /// Anything else: 404.
    case notFound
}
