extension Catalogue {
    /// The path under which TheCocktailDB serves drink images, and so does the replica.
    public static let imagePath = "/images/media/drink/"

    /// The real API's image root: what every generated `strDrinkThumb` starts with, and what the
    /// replica's documents name unless ``ReplicaConfiguration/selfHostedImages`` is set.
    public static let publicImageBase = "https://www.thecocktaildb.com" + Catalogue.imagePath
}

extension Catalogue.Drink {
    /// The name of the drink's image: `<slug>` in `strDrinkThumb` (`…/images/media/drink/<slug>.jpg`).
    ///
    /// The replica serves the image at `/images/media/drink/<slug>.jpg` and its previews below it;
    /// the slug is the same whether `strDrinkThumb` names the public host or the replica.
    public var imageSlug: Substring {
        let bytes = self.thumbnail.utf8
        let start = bytes.lastIndex(of: UInt8(ascii: "/")).map { bytes.index(after: $0) } ?? bytes.startIndex
        let name = self.thumbnail[start...]
        return name.hasSuffix(".jpg") ? name.dropLast(4) : name
    }
}
