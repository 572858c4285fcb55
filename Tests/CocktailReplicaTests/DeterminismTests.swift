import Foundation
import Testing

@testable import CocktailReplica

/// The same seed and scale give byte-identical responses, faults included.
struct DeterminismTests {
    private static let paths = [
        "list.php?c=list", "list.php?i=list", "filter.php?c=Cocktail", "filter.php?a=Alcoholic",
        "lookup.php?i=16672", "search.php?s=an", "random.php", "random.php",
    ]

    @Test func sameSeedAndScaleGiveEqualCataloguesAndOthersDiffer() throws {
        let first = try Catalogue(seed: 7, scale: 2)
        let second = try Catalogue(seed: 7, scale: 2)
        let other = try Catalogue(seed: 8, scale: 2)
        #expect(first.drinks == second.drinks)
        #expect(first.categories == second.categories)
        #expect(first.drinks != other.drinks)
    }

    @Test func sameSeedRendersByteIdenticalDocuments() throws {
        let catalogue = try Catalogue(seed: 99)
        let first = DocumentRenderer(catalogue: catalogue, resultCap: 100)
        let second = DocumentRenderer(catalogue: try Catalogue(seed: 99), resultCap: 100)
        let routes: [Route] = [
            .listCategories, .filterCategory(1), .lookupDrink(10), .searchName("a"), .listIngredients,
        ]
        for route in routes {
            #expect(first.render(route) == second.render(route), "\(route)")
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func twoServersWithTheSameSeedAnswerByteForByte() async throws {
        let faults = ReplicaFaults(failRate: 0.2, malformedRate: 0.2, wrongTypeRate: 0.1, emptyBodyRate: 0.1)
        let configuration = ReplicaConfiguration(seed: 4242, faults: faults)
        let first = try await self.responses(configuration)
        let second = try await self.responses(configuration)
        #expect(first == second)
        #expect(Set(first.map(\.status)).count > 1)  // some faults did happen
        var otherSeed = configuration
        otherSeed.seed = 4243
        #expect(try await self.responses(otherSeed) != first)
    }

    private struct Answer: Equatable {
        var status: Int
        var body: [UInt8]
    }

    private func responses(_ configuration: ReplicaConfiguration) async throws -> [Answer] {
        try await ReplicaServer.withServer(configuration) { server in
            var answers: [Answer] = []
            for path in Self.paths {
                let result = try await Curl.fetch(server.url(path))
                answers.append(Answer(status: result.status, body: result.body))
            }
            return answers
        }
    }
}
