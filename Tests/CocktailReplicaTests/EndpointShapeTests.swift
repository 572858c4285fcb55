import Foundation
import Testing

@testable import CocktailReplica

/// Every endpoint's shape: strict models pinned to real-API-shaped samples, then the replica's
/// responses byte-compared with golden fixtures and decoded with the same models.
struct EndpointShapeTests {
    /// The golden table: request (relative to the base URL) and fixture name. Regenerating the
    /// fixtures uses this table too (see Fixtures/README.md).
    static let golden: [(url: String, fixture: String)] = [
        ("list.php?c=list", "list-categories.json"),
        ("list.php?g=list", "list-glasses.json"),
        ("list.php?i=list", "list-ingredients.json"),
        ("list.php?a=list", "list-alcoholic.json"),
        ("filter.php?c=Coffee_/_Tea", "filter-category-coffee-tea.json"),
        ("filter.php?g=Tiki_mug", "filter-glass-tiki-mug.json"),
        ("filter.php?i=Cr%C3%A8me_de_cassis", "filter-ingredient-creme-de-cassis.json"),
        ("filter.php?a=Optional_alcohol", "filter-alcoholic-optional.json"),
        ("filter.php?i=Unobtainium", "filter-ingredient-unknown.json"),
        ("lookup.php?i=16672", "lookup-drink-16672.json"),
        ("lookup.php?i=1", "lookup-drink-unknown.json"),
        ("lookup.php?iid=26", "lookup-ingredient-26.json"),
        ("lookup.php?iid=9999", "lookup-ingredient-unknown.json"),
        ("search.php?s=velvet", "search-name-velvet.json"),
        ("search.php?f=v", "search-first-letter-v.json"),
        ("search.php?i=vodka", "search-ingredient-vodka.json"),
    ]

    private let decoder = JSONDecoder()

    @Test func strictModelsDecodeTheRealShapedReferenceSamples() throws {
        let drink = try self.decoder.decode(
            DrinksEnvelope<StrictDrink>.self, from: Data(Fixtures.bytes("Reference/lookup-drink.json")))
        #expect(drink.drinks?.first?.value("strInstructionsDE") == "Zerdrücken, den Rest hinzufügen, rühren.")
        #expect(drink.drinks?.first?.value("strIngredient6") == nil)
        let legacy = try self.decoder.decode(
            DrinksEnvelope<StrictDrink>.self,
            from: Data(Fixtures.bytes("Reference/lookup-drink-legacy.json"))
        )
        #expect(legacy.drinks?.first?.value("strIngredient3") == "")
        let filter = try self.decoder.decode(
            DrinksEnvelope<StrictSummary>.self, from: Data(Fixtures.bytes("Reference/filter.json")))
        #expect(filter.drinks?.map(\.name) == ["9 1/2 Sample", "Café Sample"])
        let categories = try self.decoder.decode(
            DrinksEnvelope<ListItem<CategoryKey>>.self,
            from: Data(Fixtures.bytes("Reference/list-categories.json"))
        )
        #expect(categories.drinks?.map(\.value) == ["Ordinary Drink", "Coffee / Tea"])
        let glasses = try self.decoder.decode(
            DrinksEnvelope<ListItem<GlassKey>>.self, from: Data(Fixtures.bytes("Reference/list-glasses.json")))
        #expect(glasses.drinks?.count == 2)
        let ingredients = try self.decoder.decode(
            DrinksEnvelope<ListItem<IngredientKey>>.self,
            from: Data(Fixtures.bytes("Reference/list-ingredients.json"))
        )
        #expect(ingredients.drinks?.last?.value == "Crème de cassis")
        let flags = try self.decoder.decode(
            DrinksEnvelope<ListItem<AlcoholicKey>>.self,
            from: Data(Fixtures.bytes("Reference/list-alcoholic.json"))
        )
        #expect(flags.drinks?.count == 3)
        let ingredient = try self.decoder.decode(
            IngredientsEnvelope.self, from: Data(Fixtures.bytes("Reference/ingredient.json")))
        #expect(ingredient.ingredients?.first?.fields["strABV"] == .some("40"))
        let noneFound = try self.decoder.decode(
            NoneFoundEnvelope.self, from: Data(Fixtures.bytes("Reference/none-found.json")))
        #expect(noneFound.drinks == "None Found")
        let null = try self.decoder.decode(
            DrinksEnvelope<StrictDrink>.self, from: Data(Fixtures.bytes("Reference/null.json")))
        #expect(null.drinks == nil)
    }

    @Test func strictModelsRejectMissingAndExtraKeys() throws {
        let missing = Data(#"{"drinks":[{"strDrink":"A","idDrink":"1"}]}"#.utf8)
        #expect(throws: DecodingError.self) {
            try self.decoder.decode(DrinksEnvelope<StrictSummary>.self, from: missing)
        }
        let extra = Data(#"{"drinks":[{"strDrink":"A","strDrinkThumb":"t","idDrink":"1","x":null}]}"#.utf8)
        #expect(throws: DecodingError.self) { try self.decoder.decode(DrinksEnvelope<StrictSummary>.self, from: extra) }
    }

    @Test(.enabled(if: Curl.isAvailable)) func everyEndpointServesItsGoldenBytesAsJSON() async throws {
        try await ReplicaServer.withServer { server in
            for entry in Self.golden {
                let result = try await Curl.fetch(server.url(entry.url))
                #expect(result.exitCode == 0, "\(entry.url)")
                #expect(result.status == 200, "\(entry.url)")
                #expect(result.headers["content-type"] == "application/json", "\(entry.url)")
                #expect(result.headers["content-length"] == String(result.body.count), "\(entry.url)")
                expectBytes(result.body, try Fixtures.bytes("Golden/\(entry.fixture)"), entry.url)
            }
        }
    }

    @Test func goldenListsDecodeStrictlyAndMatchTheCatalogue() throws {
        let catalogue = try Catalogue()
        let categories = try self.decode(DrinksEnvelope<ListItem<CategoryKey>>.self, "list-categories.json")
        #expect(categories.drinks?.map(\.value) == catalogue.categories.map(\.name))
        let glasses = try self.decode(DrinksEnvelope<ListItem<GlassKey>>.self, "list-glasses.json")
        #expect(glasses.drinks?.map(\.value) == catalogue.glasses)
        let ingredients = try self.decode(DrinksEnvelope<ListItem<IngredientKey>>.self, "list-ingredients.json")
        #expect(catalogue.ingredients.count > 100)
        #expect(ingredients.drinks?.map(\.value) == catalogue.ingredients.prefix(100).map(\.name))
        let flags = try self.decode(DrinksEnvelope<ListItem<AlcoholicKey>>.self, "list-alcoholic.json")
        #expect(flags.drinks?.map(\.value) == ["Alcoholic", "Non alcoholic", "Optional alcohol"])
    }

    @Test func goldenFiltersDecodeStrictlyAndMatchTheCatalogue() throws {
        let catalogue = try Catalogue()
        let coffee = try self.decode(DrinksEnvelope<StrictSummary>.self, "filter-category-coffee-tea.json")
        let expected = catalogue.drinks(inCategory: "Coffee / Tea")
        #expect(coffee.drinks?.map(\.id) == expected.map(\.id))
        #expect(coffee.drinks?.map(\.name) == expected.map(\.name))
        #expect(coffee.drinks?.map(\.thumbnail) == expected.map(\.thumbnail))
        let cassis = try self.decode(DrinksEnvelope<StrictSummary>.self, "filter-ingredient-creme-de-cassis.json")
        for summary in cassis.drinks ?? [] {
            #expect(catalogue.drink(id: summary.id)?.components.contains { $0.ingredient == "Crème de cassis" } == true)
        }
        #expect((cassis.drinks ?? []).isEmpty == false)
        let optional = try self.decode(DrinksEnvelope<StrictSummary>.self, "filter-alcoholic-optional.json")
        #expect(optional.drinks?.allSatisfy { catalogue.drink(id: $0.id)?.alcoholic == "Optional alcohol" } == true)
        let tiki = try self.decode(DrinksEnvelope<StrictSummary>.self, "filter-glass-tiki-mug.json")
        #expect(tiki.drinks?.allSatisfy { catalogue.drink(id: $0.id)?.glass == "Tiki mug" } == true)
        let unknown = try self.decode(NoneFoundEnvelope.self, "filter-ingredient-unknown.json")
        #expect(unknown.drinks == "None Found")
    }

    @Test func goldenLookupsAndSearchesDecodeStrictlyAndMatchTheCatalogue() throws {
        let catalogue = try Catalogue()
        let lookup = try self.decode(DrinksEnvelope<StrictDrink>.self, "lookup-drink-16672.json")
        let drink = try #require(catalogue.drink(id: "16672"))
        #expect(lookup.drinks?.count == 1)
        #expect(lookup.drinks?.first?.matches(drink) == true)
        #expect(try self.decode(DrinksEnvelope<StrictDrink>.self, "lookup-drink-unknown.json").drinks == nil)
        let ingredient = try self.decode(IngredientsEnvelope.self, "lookup-ingredient-26.json")
        #expect(ingredient.ingredients?.first?.matches(catalogue.ingredients[25]) == true)
        #expect(try self.decode(IngredientsEnvelope.self, "lookup-ingredient-unknown.json").ingredients == nil)
        let velvet = try self.decode(DrinksEnvelope<StrictDrink>.self, "search-name-velvet.json")
        let names = velvet.drinks?.compactMap { $0.value("strDrink") } ?? []
        #expect(!names.isEmpty)
        #expect(names.allSatisfy { $0.lowercased().contains("velvet") })
        #expect(names == names.sorted())
        for record in velvet.drinks ?? [] {
            #expect(record.matches(try #require(catalogue.drink(id: record.value("idDrink") ?? ""))))
        }
        let letter = try self.decode(DrinksEnvelope<StrictDrink>.self, "search-first-letter-v.json")
        #expect(letter.drinks?.allSatisfy { $0.value("strDrink")?.lowercased().hasPrefix("v") == true } == true)
        let vodka = try self.decode(IngredientsEnvelope.self, "search-ingredient-vodka.json")
        #expect(vodka.ingredients?.first?.fields["strIngredient"] == .some("Vodka"))
    }

    @Test(.enabled(if: Curl.isAvailable)) func randomServesOneFullDrinkRecord() async throws {
        try await ReplicaServer.withServer { server in
            let result = try await Curl.fetch(server.url("random.php"))
            let envelope = try JSONDecoder().decode(DrinksEnvelope<StrictDrink>.self, from: Data(result.body))
            let record = try #require(envelope.drinks?.first)
            #expect(envelope.drinks?.count == 1)
            #expect(record.matches(try #require(server.catalogue.drink(id: record.value("idDrink") ?? ""))))
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func unknownEndpointsAndMissingParametersAreAnswered() async throws {
        try await ReplicaServer.withServer { server in
            let unknown = try await Curl.fetch(server.url("popular.php"))
            #expect(unknown.status == 404)
            #expect(unknown.headers["content-type"]?.hasPrefix("text/html") == true)
            let outside = try await Curl.fetch(
                server.baseURL.replacingOccurrences(of: "/api/json/v1/1/", with: "/index.html"))
            #expect(outside.status == 404)
            let missing = try await Curl.fetch(server.url("filter.php"))
            #expect(missing.status == 200)
            #expect(missing.bodyText == #"{"drinks":null}"#)
            let otherKey = try await Curl.fetch(
                server.baseURL.replacingOccurrences(of: "/1/", with: "/9973/") + "list.php?a=list")
            expectBytes(otherKey.body, try Fixtures.bytes("Golden/list-alcoholic.json"), "other key")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ fixture: String) throws -> T {
        try self.decoder.decode(type, from: Data(Fixtures.bytes("Golden/\(fixture)")))
    }
}
