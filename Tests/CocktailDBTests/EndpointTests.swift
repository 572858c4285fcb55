import BatchFetch
import Testing

@testable import CocktailDB

struct EndpointTests {
    private let api: CocktailDB

    init() throws {
        self.api = try CocktailDB(baseURL: "http://127.0.0.1:8080/api/json/v1/1/")
    }

    @Test func urlsHaveTheAPIsPathsAndQueries() {
        #expect(self.api.url(.list(.category)) == "http://127.0.0.1:8080/api/json/v1/1/list.php?c=list")
        #expect(self.api.url(.list(.alcoholic)) == "http://127.0.0.1:8080/api/json/v1/1/list.php?a=list")
        #expect(
            self.api.url(.filter(by: .glass, value: "Highball glass"))
                == "http://127.0.0.1:8080/api/json/v1/1/filter.php?g=Highball%20glass")
        #expect(self.api.url(.lookup(drink: "11007")) == "http://127.0.0.1:8080/api/json/v1/1/lookup.php?i=11007")
        #expect(self.api.url(.lookup(ingredient: "552")) == "http://127.0.0.1:8080/api/json/v1/1/lookup.php?iid=552")
        #expect(self.api.url(.search(firstLetter: "a")) == "http://127.0.0.1:8080/api/json/v1/1/search.php?f=a")
        #expect(self.api.url(.search(ingredient: "Vodka")) == "http://127.0.0.1:8080/api/json/v1/1/search.php?i=Vodka")
        #expect(self.api.url(.random) == "http://127.0.0.1:8080/api/json/v1/1/random.php")
    }

    @Test func queryValuesArePercentEncodedByRFC3986() {
        #expect(QueryEncoding.encode("Other / Unknown") == "Other%20%2F%20Unknown")
        #expect(QueryEncoding.encode("Punch / Party Drink") == "Punch%20%2F%20Party%20Drink")
        #expect(QueryEncoding.encode("a&b=c+d#e?") == "a%26b%3Dc%2Bd%23e%3F")
        #expect(QueryEncoding.encode("Café Crème") == "Caf%C3%A9%20Cr%C3%A8me")
        #expect(QueryEncoding.encode("A-Z_a.z~09") == "A-Z_a.z~09")
    }

    @Test func theKeySegmentIsFilledOrReplaced() throws {
        #expect(try CocktailDB().root == "https://www.thecocktaildb.com/api/json/v1/1/")
        #expect(
            try CocktailDB(baseURL: "http://h/api/json/v1/", apiKey: "9973533").root == "http://h/api/json/v1/9973533/")
        #expect(try CocktailDB(baseURL: "http://h/api/json/v1/1/", apiKey: "2").root == "http://h/api/json/v1/2/")
        #expect(try CocktailDB(baseURL: "http://h/api/json/v1/1").root == "http://h/api/json/v1/1/")
        #expect(try CocktailDB(baseURL: "http://h/proxy").root == "http://h/proxy/1/")
        #expect(throws: FetchError.self) { try CocktailDB(baseURL: "ftp://h/api/json/v1/") }
        #expect(throws: FetchError.self) { try CocktailDB(apiKey: "1/../x") }
    }

    @Test func invalidParametersAreRejectedBeforeSending() {
        let invalid: [Endpoint] = [
            .filter(by: .category, value: ""), .filter(by: .category, value: "a\nb"), .search(firstLetter: "ab"),
            .search(firstLetter: ""), .search(firstLetter: "%"), .lookup(drink: "abc"), .lookup(drink: ""),
            .search(name: "\u{7}"),
        ]
        for endpoint in invalid {
            #expect(throws: FetchError.self, "\(endpoint)") { try self.api.request(endpoint) }
        }
        #expect((try? self.api.request(.search(firstLetter: "7"))) != nil)
        #expect((try? self.api.request(.filter(by: .category, value: "Other / Unknown"))) != nil)
    }

    @Test func ingredientEndpointsUseTheIngredientsEnvelope() {
        #expect(Endpoint.lookup(ingredient: "1").envelopeKey == "ingredients")
        #expect(Endpoint.search(ingredient: "Gin").envelopeKey == "ingredients")
        #expect(Endpoint.search(name: "Gin").envelopeKey == "drinks")
    }
}
