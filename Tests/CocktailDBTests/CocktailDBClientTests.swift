import BatchFetch
import CocktailReplica
import Foundation
import Testing

@testable import CocktailDB

/// The client against the replica, in-process: what comes back must be what the replica generated.
@Suite(.serialized)
struct CocktailDBClientTests {
    private func withClient<T: Sendable>(
        _ configuration: ReplicaConfiguration = ReplicaConfiguration(),
        _ body: @Sendable (CocktailDBClient, ReplicaServer) async throws -> T
    ) async throws -> T {
        try await ReplicaServer.withServer(configuration) { server in
            try await withEngine { engine in
                let client = CocktailDBClient(engine: engine, api: try CocktailDB(baseURL: server.baseURL))
                return try await body(client, server)
            }
        }
    }

    @Test func categoriesAndTheirDrinksMatchTheCatalogue() async throws {
        try await self.withClient { client, server in
            let categories = try await client.categories()
            #expect(categories.map(\.name) == server.catalogue.categories.map(\.name))
            #expect(categories.map(\.name).contains("Other / Unknown"))
            for category in categories {
                let drinks = try await client.drinks(in: category)
                let expected = try #require(server.catalogue.categories.first { $0.name == category.name })
                #expect(drinks.map(\.id) == Array(expected.drinkIDs.prefix(100)), "\(category.name)")
            }
        }
    }

    @Test func summariesReadFastAgreeWithJSONDecoder() async throws {
        try await self.withClient { client, server in
            for category in try await client.categories() {
                let endpoint = Endpoint.filter(by: .category, value: category.name)
                let response = try await client.engine.fetch(try client.api.request(endpoint)).outcome.get()
                let fast = try CocktailDBClient.summaries(from: response, endpoint: endpoint)
                let decoded = try CocktailDBClient.decoder(for: endpoint).decodeList(DrinkSummary.self, from: response)
                #expect(fast == decoded, "\(category.name)")
                #expect(!fast.isEmpty)
            }
        }
        let endpoint = Endpoint.filter(by: .category, value: "Shot")
        let reply = { (body: String) in
            Response(
                status: 200, headers: HTTPHeaders([("Content-Type", "application/json")]), body: Data(body.utf8),
                effectiveURL: "http://127.0.0.1/x")
        }
        let escaped = #"{"drinks":[{"strDrink":"Caf\u00e9 \/ Tea","strDrinkThumb":null,"idDrink":"7"}]}"#
        #expect(
            try CocktailDBClient.summaries(from: reply(escaped), endpoint: endpoint)
                == [DrinkSummary(id: "7", name: "Café / Tea", thumbnail: nil)])
        #expect(try CocktailDBClient.summaries(from: reply(#"{"drinks":"None Found"}"#), endpoint: endpoint).isEmpty)
        #expect(try CocktailDBClient.summaries(from: reply(#"{"drinks":null}"#), endpoint: endpoint).isEmpty)
        // Without idDrink the fast path steps aside and JSONDecoder reports the missing key.
        #expect(throws: FetchError.self) {
            try CocktailDBClient.summaries(from: reply(#"{"drinks":[{"strDrink":"A"}]}"#), endpoint: endpoint)
        }
    }

    @Test func aDrinkRecordMatchesTheCatalogue() async throws {
        try await self.withClient { client, server in
            for expected in server.catalogue.drinks.prefix(20) {
                let drink = try #require(try await client.drink(id: expected.id))
                #expect(drink.name == expected.name)
                #expect(drink.category == expected.category)
                #expect(drink.glass == expected.glass)
                #expect(drink.ingredients.map(\.name) == expected.components.map(\.ingredient))
                #expect(
                    drink.ingredients.allSatisfy {
                        $0.measure.map { $0 == $0.trimmingCharacters(in: .whitespaces) } ?? true
                    })
            }
        }
    }

    @Test func everySearchDecodesTheSameOnTheFastPathAsWithJSONDecoder() async throws {
        try await ReplicaServer.withServer { server in
            try await withEngine { engine in
                for letter in ["a", "m", "s", "1"] {
                    let result = await engine.fetch(Request(server.url("search.php?f=\(letter)")))
                    let response = try result.outcome.get()
                    let fast = try CocktailDBClient.drinks(from: response, endpoint: .search(firstLetter: letter))
                    let slow = try Envelope("drinks").decodeList(Drink.self, from: response.body)
                    #expect(fast == slow, "search.php?f=\(letter)")
                }
            }
        }
    }

    @Test func nothingFoundIsNilOrEmptyNotAnError() async throws {
        try await self.withClient { client, _ in
            let missing = try await client.drink(id: "1")
            let noMatch = try await client.search(name: "zzzzqqqq")
            let noneFound = try await client.drinks(with: FacetValue(.ingredient, "No Such Ingredient"))
            #expect(missing == nil)
            #expect(noMatch == [])
            #expect(noneFound == [])
        }
    }

    @Test func searchesGlassesAndRandomWork() async throws {
        try await self.withClient { client, server in
            let byLetter = try await client.search(firstLetter: "b")
            #expect(byLetter.allSatisfy { $0.name.lowercased().hasPrefix("b") })
            #expect(byLetter.count == server.catalogue.drinks.filter { $0.name.lowercased().hasPrefix("b") }.count)
            let glasses = try await client.glasses()
            #expect(glasses.map(\.name) == server.catalogue.glasses)
            let random = try await client.random()
            #expect(random != nil)
            let ingredient = try #require(server.catalogue.ingredients.first)
            let detail = try await client.ingredient(id: ingredient.id)
            #expect(detail?.name == ingredient.name)
        }
    }

    @Test func serverFaultsBecomeTypedErrors() async throws {
        var configuration = ReplicaConfiguration()
        configuration.faults.wrongTypeRate = 1
        try await self.withClient(configuration) { client, _ in
            do throws(FetchError) {
                _ = try await client.categories()
                Issue.record("an HTML response was accepted")
            } catch {
                #expect(error.kind == .wrongContentType)
            }
        }
    }
}
