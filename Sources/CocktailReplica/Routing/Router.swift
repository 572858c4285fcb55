/// Turns a request target (`/api/json/v1/1/filter.php?c=Coffee_/_Tea`) into a ``Route``.
///
/// Works on the target's UTF-8 bytes without Foundation, since it runs for every request. Query
/// values are percent-decoded (`%2F`, UTF-8 sequences), `+` and `_` count as spaces and case is
/// ignored, so `Coffee_/_Tea`, `Other%20/%20Unknown`, `Other+/+Unknown` and `Other%20%2F%20Unknown`
/// all name their category. Any API key is accepted in `/api/json/v1/{key}/`. Images are
/// `/images/media/drink/<slug>.jpg` with an optional `/small`, `/medium` or `/large`; their query is
/// ignored (so a benchmark can ask for one image under many URLs), and an unknown slug or suffix is
/// `.notFound`.
///
/// A class, not a struct: it holds the whole ``Catalogue``, and copying a struct of a dozen arrays
/// per request (retaining each) showed up in profiles. Immutable, so `Sendable`.
final class Router: Sendable {
    let catalogue: Catalogue
    /// Drink positions by image slug; the first drink wins should two share one.
    private let drinkPositionBySlug: [String: Int]

    init(catalogue: Catalogue) {
        self.catalogue = catalogue
        var bySlug: [String: Int] = [:]
        bySlug.reserveCapacity(catalogue.drinks.count)
        for (position, drink) in catalogue.drinks.enumerated() {
            let slug = String(drink.imageSlug)
            if bySlug[slug] == nil {
                bySlug[slug] = position
            }
        }
        self.drinkPositionBySlug = bySlug
    }

    /// The path used for the stats endpoint.
    static let statsPath = "/__replica/stats"

    /// The route and the path part (without query) of `target`.
    func route(_ target: String) -> (route: Route, path: Substring) {
        var target = target
        let (route, pathLength) = target.withUTF8 { bytes in
            let question = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
            let query = bytes[(question == bytes.endIndex ? question : question + 1)...]
            return (self.route(path: bytes[..<question], query: query), question)
        }
        let pathEnd = target.utf8.index(target.utf8.startIndex, offsetBy: pathLength)
        return (route, target[..<pathEnd])
    }

    private typealias Bytes = Slice<UnsafeBufferPointer<UInt8>>

    private static let apiPrefix = Array("/api/json/v1/".utf8)
    private static let imagePrefix = Array(Catalogue.imagePath.utf8)
    private static let jpegExtension = Array(".jpg".utf8)
    private static let imageSuffixes = DrinkImageSize.allCases.map { (Array($0.pathSuffix.utf8), $0) }

    private func route(path: Bytes, query: Bytes) -> Route {
        if path.elementsEqual(Self.statsPath.utf8) {
            return .stats
        }
        if path.elementsEqual("/robots.txt".utf8) {
            return .robots
        }
        if path.starts(with: Self.imagePrefix) {
            return self.image(path.dropFirst(Self.imagePrefix.count))
        }
        guard path.starts(with: Self.apiPrefix) else {
            return .notFound
        }
        let afterPrefix = path.dropFirst(Self.apiPrefix.count)
        guard let slash = afterPrefix.firstIndex(of: UInt8(ascii: "/")), slash > afterPrefix.startIndex else {
            return .notFound
        }
        let endpoint = afterPrefix[(slash + 1)...]
        if endpoint.elementsEqual("lookup.php".utf8) {
            return self.lookup(query)
        } else if endpoint.elementsEqual("filter.php".utf8) {
            return self.filter(query)
        } else if endpoint.elementsEqual("list.php".utf8) {
            return self.list(query)
        } else if endpoint.elementsEqual("search.php".utf8) {
            return self.search(query)
        } else if endpoint.elementsEqual("random.php".utf8) {
            return .random
        }
        return .notFound
    }

    /// `<slug>.jpg` plus a size suffix; the query is ignored, as static file servers do.
    private func image(_ name: Bytes) -> Route {
        guard let dot = name.firstIndex(of: UInt8(ascii: ".")), dot > name.startIndex,
            name[dot...].starts(with: Self.jpegExtension)
        else {
            return .notFound
        }
        let suffix = name[(dot + Self.jpegExtension.count)...]
        guard let size = Self.imageSuffixes.first(where: { suffix.elementsEqual($0.0) })?.1,
            let position = self.drinkPositionBySlug[String(decoding: name[..<dot], as: UTF8.self)]
        else {
            return .notFound
        }
        return .image(drink: position, size: size)
    }

    private func lookup(_ query: Bytes) -> Route {
        if let value = Self.parameter("i", in: query) {
            let id = Self.integer(value) ?? Int(Self.decode(value))
            return .lookupDrink(id.flatMap { self.catalogue.drinkPositionByID[$0] })
        }
        if let value = Self.parameter("iid", in: query) {
            let id = Self.integer(value) ?? Int(Self.decode(value))
            let count = self.catalogue.ingredients.count
            return .lookupIngredient(id.flatMap { (1...count).contains($0) ? $0 - 1 : nil })
        }
        return .noDrinks
    }

    private func filter(_ query: Bytes) -> Route {
        if let value = Self.parameter("c", in: query) {
            return .filterCategory(self.catalogue.categoryByKey[Catalogue.matchKey(Self.decode(value))])
        }
        if let value = Self.parameter("g", in: query) {
            return .filterGlass(self.catalogue.glassByKey[Catalogue.matchKey(Self.decode(value))])
        }
        if let value = Self.parameter("i", in: query) {
            return .filterIngredient(self.catalogue.ingredientByKey[Catalogue.matchKey(Self.decode(value))])
        }
        if let value = Self.parameter("a", in: query) {
            return .filterAlcoholic(self.catalogue.alcoholicByKey[Catalogue.matchKey(Self.decode(value))])
        }
        return .noDrinks
    }

    private func list(_ query: Bytes) -> Route {
        let routes: [(StaticString, Route)] = [
            ("c", .listCategories), ("g", .listGlasses), ("i", .listIngredients), ("a", .listAlcoholic),
        ]
        for (name, route) in routes {
            if let value = Self.parameter(name, in: query) {
                return value.elementsEqual("list".utf8) ? route : .noDrinks
            }
        }
        return .noDrinks
    }

    private func search(_ query: Bytes) -> Route {
        if let value = Self.parameter("s", in: query) {
            return .searchName(Catalogue.matchKey(Self.decode(value)))
        }
        if let value = Self.parameter("f", in: query) {
            let letter = Catalogue.matchKey(Self.decode(value))
            return letter.count == 1 ? .searchFirstLetter(letter) : .noDrinks
        }
        if let value = Self.parameter("i", in: query) {
            return .searchIngredient(self.catalogue.ingredientByKey[Catalogue.matchKey(Self.decode(value))])
        }
        return .noDrinks
    }

    /// The raw (still encoded) value of the first `name=` parameter in `query`.
    private static func parameter(_ name: StaticString, in query: Bytes) -> Bytes? {
        let key = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        var start = query.startIndex
        while start < query.endIndex {
            let end = query[start...].firstIndex(of: UInt8(ascii: "&")) ?? query.endIndex
            let pair = query[start..<end]
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")), pair[..<equals].elementsEqual(key) {
                return query[(equals + 1)..<end]
            }
            start = end + 1
        }
        return nil
    }

    /// A plain run of ASCII digits as an integer, without allocating; `nil` otherwise.
    private static func integer(_ bytes: Bytes) -> Int? {
        guard !bytes.isEmpty, bytes.count <= 18 else { return nil }
        var value = 0
        for byte in bytes {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return value
    }

    /// Percent-decodes a query value (`+` is a space); invalid escapes are kept as they are.
    static func decode(_ bytes: some Collection<UInt8>) -> String {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let high = bytes.index(after: index)
                if high != bytes.endIndex {
                    let low = bytes.index(after: high)
                    if low != bytes.endIndex, let hi = Self.hexValue(bytes[high]), let lo = Self.hexValue(bytes[low]) {
                        decoded.append(hi << 4 | lo)
                        index = bytes.index(after: low)
                        continue
                    }
                }
                decoded.append(byte)
            } else {
                decoded.append(byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
