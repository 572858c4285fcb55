import BatchFetch
import Foundation

/// TheCocktailDB over a batchfetch ``Engine``: every call is one request through the engine, so
/// its concurrency cap, rate limit and retry policy govern them all; decoding happens here, on
/// the caller's task.
///
/// Every method throws ``FetchError``: transport failures as the engine reports them, then the
/// decoding pipeline's (status, content type, envelope, model). "Nothing found" (`null`,
/// `"None Found"`) is an empty list or `nil`, never an error.
public struct CocktailDBClient: Sendable {
    /// The engine requests go through.
    public let engine: Engine
    /// Where the API lives.
    public let api: CocktailDB
    /// Sees every result a crawl receives, in the crawl's task, e.g. to archive its exchanges.
    public let observer: (@Sendable (FetchResult) -> Void)?

    /// Creates a client.
    public init(engine: Engine, api: CocktailDB, observer: (@Sendable (FetchResult) -> Void)? = nil) {
        self.engine = engine
        self.api = api
        self.observer = observer
    }

    /// Every category, in the API's order.
    public func categories() async throws(FetchError) -> [Category] {
        try await self.values(of: .category)
    }

    /// Every glass.
    public func glasses() async throws(FetchError) -> [FacetValue] {
        try await self.values(of: .glass)
    }

    /// Every value of a facet (`list.php?c=list` and siblings).
    public func values(of facet: Facet) async throws(FetchError) -> [FacetValue] {
        let response = try await self.response(.list(facet))
        let items = try Self.decoder(for: .list(facet)).decodeList([String: String?].self, from: response)
        return items.compactMap { item in
            (item[facet.listField] ?? nil).map { FacetValue(facet, $0) }
        }
    }

    /// The drinks of a category (`filter.php?c=`).
    public func drinks(in category: Category) async throws(FetchError) -> [DrinkSummary] {
        try await self.drinks(with: FacetValue(.category, category.name))
    }

    /// The drinks served in a glass.
    public func drinks(withGlass glass: FacetValue) async throws(FetchError) -> [DrinkSummary] {
        try await self.drinks(with: FacetValue(.glass, glass.name))
    }

    /// The drinks with a facet value (`filter.php`).
    public func drinks(with value: FacetValue) async throws(FetchError) -> [DrinkSummary] {
        let endpoint = Endpoint.filter(by: value.facet, value: value.name)
        return try Self.summaries(from: try await self.response(endpoint), endpoint: endpoint)
    }

    /// A drink's full record, or `nil` when there is no such drink.
    public func drink(id: String) async throws(FetchError) -> Drink? {
        let endpoint = Endpoint.lookupDrink(id)
        return try Self.drinks(from: try await self.response(endpoint), endpoint: endpoint).first
    }

    /// An ingredient's record, or `nil`.
    public func ingredient(id: String) async throws(FetchError) -> IngredientDetail? {
        let endpoint = Endpoint.lookupIngredient(id)
        return try Self.decoder(for: endpoint).decodeList(
            IngredientDetail.self, from: try await self.response(endpoint)
        )
        .first
    }

    /// Drinks whose name contains `name`.
    public func search(name: String) async throws(FetchError) -> [Drink] {
        let endpoint = Endpoint.searchByName(name)
        return try Self.drinks(from: try await self.response(endpoint), endpoint: endpoint)
    }

    /// Drinks whose name starts with `firstLetter`.
    public func search(firstLetter: String) async throws(FetchError) -> [Drink] {
        let endpoint = Endpoint.searchByFirstLetter(firstLetter)
        return try Self.drinks(from: try await self.response(endpoint), endpoint: endpoint)
    }

    /// One random drink.
    public func random() async throws(FetchError) -> Drink? {
        try Self.drinks(from: try await self.response(.random), endpoint: .random).first
    }

    /// The drink records of a response, read directly from the validated bytes (records are flat;
    /// decoding each through `JSONDecoder` capped crawls) with `JSONDecoder` as the fallback
    /// for shapes the fast path does not read.
    public static func drinks(from response: Response, endpoint: Endpoint) throws(FetchError) -> [Drink] {
        guard let slice = try Self.decoder(for: endpoint).list(in: response) else {
            return []
        }
        return try Self.drinks(in: slice)
    }

    /// The drink records of a response as ``DrinkRecord``s, written straight from the validated
    /// bytes (a crawl's lookups: ~1.7 KB each, re-encoded at the scanner's speed rather than
    /// through ~50 `String`s and a `Dictionary`); records in another shape go through ``Drink``,
    /// with its errors.
    public static func records(from response: Response, endpoint: Endpoint) throws(FetchError) -> [DrinkRecord] {
        var buffers = DrinkRecordReader.Buffers()
        return try Self.records(from: response, endpoint: endpoint, buffers: &buffers)
    }

    /// ``records(from:endpoint:)`` with reader buffers the caller keeps from one response to the
    /// next (a crawl's lookups).
    static func records(
        from response: Response, endpoint: Endpoint, buffers: inout DrinkRecordReader.Buffers
    ) throws(FetchError) -> [DrinkRecord] {
        let decoder = Self.decoder(for: endpoint)
        if endpoint.envelopeKey == "drinks" {
            try decoder.status.check(response)
            try decoder.contentType.check(response)
            if let records = response.body.withUnsafeBytes({ DrinkRecord.records(document: $0, buffers: &buffers) }) {
                return records
            }
        }
        guard let slice = try decoder.list(in: response) else {
            return []
        }
        if slice.kind == .array, let records = slice.withUnsafeBytes({ DrinkRecord.records(in: $0) }) {
            return records
        }
        return try Self.drinks(in: slice).map(DrinkRecord.init)
    }

    private static func drinks(in slice: JSONSlice) throws(FetchError) -> [Drink] {
        let objects: [[String: String?]]
        do throws(FetchError) {
            objects = try FlatJSON.objects(in: slice)
        } catch {
            return try slice.decode([Drink].self)
        }
        var drinks: [Drink] = []
        drinks.reserveCapacity(objects.count)
        for fields in objects {
            drinks.append(try Drink(fields: fields))
        }
        return drinks
    }

    /// The drink summaries of a `filter.php` response, read from the validated bytes (three
    /// `String`s per drink, no dictionary); `JSONDecoder` (and its error) for anything the fast
    /// path does not read, including a summary without `idDrink` or `strDrink`.
    public static func summaries(from response: Response, endpoint: Endpoint) throws(FetchError) -> [DrinkSummary] {
        guard let slice = try Self.decoder(for: endpoint).list(in: response) else {
            return []
        }
        if slice.kind == .array, let summaries = slice.withUnsafeBytes({ DrinkSummary.summaries(in: $0) }) {
            return summaries
        }
        return try slice.decode([DrinkSummary].self)
    }

    /// The ids of the drinks of a `filter.php` response: ``summaries(from:endpoint:)``'s, with
    /// its errors, without reading names and thumbnails (a crawl with full records uses none).
    public static func summaryIDs(from response: Response, endpoint: Endpoint) throws(FetchError) -> [String] {
        guard let slice = try Self.decoder(for: endpoint).list(in: response) else {
            return []
        }
        if slice.kind == .array, let ids = slice.withUnsafeBytes({ DrinkSummary.ids(in: $0) }) {
            return ids
        }
        return try slice.decode([DrinkSummary].self).map(\.id)
    }

    /// The decoding pipeline for an endpoint: 2xx, JSON, content under its envelope key.
    public static func decoder(for endpoint: Endpoint) -> ResponseDecoder {
        // Built once: a crawl decodes a response per drink, too many to parse the key path for each.
        switch endpoint.envelopeKey {
        case "drinks": Self.drinksDecoder
        case "ingredients": Self.ingredientsDecoder
        case let key: ResponseDecoder(envelope: Envelope(key))
        }
    }

    private static let drinksDecoder = ResponseDecoder(envelope: Envelope("drinks"))
    private static let ingredientsDecoder = ResponseDecoder(envelope: Envelope("ingredients"))

    private func response(_ endpoint: Endpoint) async throws(FetchError) -> Response {
        let request = try self.api.request(endpoint)
        let result = await self.engine.fetch(request)
        self.observer?(result)
        return try result.outcome.get()
    }
}
