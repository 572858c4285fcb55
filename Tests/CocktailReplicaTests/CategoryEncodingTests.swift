import Foundation
import Testing

@testable import CocktailReplica

/// However a client encodes a category or ingredient name, the replica finds it.
struct CategoryEncodingTests {
    private static let coffeeTea = [
        "Coffee_/_Tea", "Coffee%20/%20Tea", "Coffee+/+Tea", "Coffee%20%2F%20Tea", "coffee_%2f_tea", "COFFEE+%2F+TEA",
    ]
    private static let otherUnknown = [
        "Other_/_Unknown", "Other%20/%20Unknown", "Other+/+Unknown", "Other%20%2F%20Unknown",
    ]

    @Test func everyEncodingOfASlashedCategoryRoutesToIt() throws {
        let catalogue = try Catalogue()
        let router = Router(catalogue: catalogue)
        let coffee = try #require(catalogue.categories.firstIndex { $0.name == "Coffee / Tea" })
        let other = try #require(catalogue.categories.firstIndex { $0.name == "Other / Unknown" })
        for encoded in Self.coffeeTea {
            #expect(
                router.route("/api/json/v1/1/filter.php?c=\(encoded)").route == .filterCategory(coffee), "\(encoded)")
        }
        for encoded in Self.otherUnknown {
            #expect(
                router.route("/api/json/v1/1/filter.php?c=\(encoded)").route == .filterCategory(other), "\(encoded)")
        }
        #expect(router.route("/api/json/v1/1/filter.php?c=Tea").route == .filterCategory(nil))
    }

    @Test func utf8NamesRouteWhetherPercentEncodedOrRaw() throws {
        let catalogue = try Catalogue()
        let router = Router(catalogue: catalogue)
        let cassis = try #require(catalogue.ingredients.firstIndex { $0.name == "Crème de cassis" })
        #expect(router.route("/api/json/v1/1/filter.php?i=Cr%C3%A8me%20de%20cassis").route == .filterIngredient(cassis))
        #expect(router.route("/api/json/v1/1/filter.php?i=crème_de_cassis").route == .filterIngredient(cassis))
        #expect(router.route("/api/json/v1/1/search.php?i=CR%C3%88ME+DE+CASSIS").route == .searchIngredient(cassis))
        #expect(Router.decode(Array("100%25+%zz%4".utf8)) == "100% %zz%4")
    }

    @Test func routesEveryEndpointAndAnyAPIKey() throws {
        let catalogue = try Catalogue()
        let router = Router(catalogue: catalogue)
        let position = try #require(catalogue.drinkPositionByID[16672])
        #expect(router.route("/api/json/v1/1/lookup.php?i=16672").route == .lookupDrink(position))
        #expect(router.route("/api/json/v1/9973/lookup.php?x=1&i=16672").route == .lookupDrink(position))
        #expect(router.route("/api/json/v1/1/lookup.php?i=16672").path == "/api/json/v1/1/lookup.php")
        #expect(router.route("/api/json/v1/1/lookup.php?i=abc").route == .lookupDrink(nil))
        #expect(router.route("/api/json/v1/1/lookup.php?iid=1").route == .lookupIngredient(0))
        #expect(router.route("/api/json/v1/1/list.php?g=list").route == .listGlasses)
        #expect(router.route("/api/json/v1/1/list.php?g=all").route == .noDrinks)
        #expect(router.route("/api/json/v1/1/search.php?f=A").route == .searchFirstLetter("a"))
        #expect(router.route("/api/json/v1/1/search.php?f=ab").route == .noDrinks)
        #expect(router.route("/api/json/v1/1/random.php").route == .random)
        #expect(router.route("/api/json/v1//random.php").route == .notFound)
        #expect(router.route("/api/json/v2/1/random.php").route == .notFound)
        #expect(router.route("/__replica/stats").route == .stats)
    }

    @Test(.enabled(if: Curl.isAvailable)) func liveClientsGetTheSameDrinksForEveryEncoding() async throws {
        try await ReplicaServer.withServer { server in
            let expected = try Fixtures.bytes("Golden/filter-category-coffee-tea.json")
            let results = try await Curl.fetch(Self.coffeeTea.map { server.url("filter.php?c=\($0)") })
            expectBytes(
                results.body, Array([[UInt8]](repeating: expected, count: Self.coffeeTea.count).joined()),
                "all encodings")
            let other = try await Curl.fetch(server.url("filter.php?c=Other+/+Unknown"))
            let decoded = try JSONDecoder().decode(DrinksEnvelope<StrictSummary>.self, from: Data(other.body))
            #expect(decoded.drinks?.map(\.id) == server.catalogue.categories[3].drinkIDs)
            let cassis = try await Curl.fetch(server.url("filter.php?i=Cr%C3%A8me%20de%20cassis"))
            expectBytes(cassis.body, try Fixtures.bytes("Golden/filter-ingredient-creme-de-cassis.json"), "cassis")
        }
    }
}
