/// The sizes in which the replica serves a drink's image, at the real API's paths.
///
/// TheCocktailDB serves `strDrinkThumb` (`…/images/media/drink/<slug>.jpg`, the full image) and
/// three previews under it: `/small` (100 px), `/medium` (350 px) and `/large` (700 px), all
/// square JPEGs (see <https://www.thecocktaildb.com/api.php>, "Drink thumbnails"). The replica
/// serves the same paths, so a client that builds preview URLs from `strDrinkThumb` works
/// unchanged against it.
public enum DrinkImageSize: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// The full image, `<slug>.jpg`: 700 px, the most detail (the largest file).
    case full
    /// `<slug>.jpg/large`: 700 px.
    case large
    /// `<slug>.jpg/medium`: 350 px.
    case medium
    /// `<slug>.jpg/small`: 100 px.
    case small

    /// The width and height in pixels.
    public var pixels: Int {
        switch self {
        case .full, .large: 700
        case .medium: 350
        case .small: 100
        }
    }

    /// What follows `<slug>.jpg` in the path: `""` for the full image, else `/small` and so on.
    public var pathSuffix: String {
        self == .full ? "" : "/" + self.rawValue
    }

    /// The raw value (`full`, `large`, `medium`, `small`).
    public var description: String { self.rawValue }
}
