import Foundation
import Testing

@testable import CocktailReplica

/// `/images/media/drink/<slug>.jpg[/small|/medium|/large]` over real HTTP (curl), and
/// `strDrinkThumb` naming the public host or, when asked, the replica.
struct ImageEndpointTests {
    @Test(.enabled(if: Curl.isAvailable)) func servesEverySizeAsAJPEGWithLengthAndValidators() async throws {
        try await ReplicaServer.withServer { server in
            let drink = server.catalogue.drinks[3]
            for size in DrinkImageSize.allCases {
                let url = server.imageURL(for: drink, size: size)
                #expect(url.hasSuffix("/images/media/drink/\(drink.imageSlug).jpg\(size.pathSuffix)"))
                let result = try await Curl.fetch(url)
                #expect(result.status == 200)
                #expect(result.headers["content-type"] == "image/jpeg")
                #expect(result.headers["content-length"] == String(result.body.count))
                #expect(result.headers["last-modified"] == Validators.lastModified)
                let image = try JPEGInspector(result.body)
                #expect(image.width == size.pixels && image.height == size.pixels)
                expectBytes(result.body, server.imageBytes(for: drink, size: size), "\(size)")
                let tag = try #require(result.headers["etag"])
                let again = try await Curl.fetch(url, arguments: ["-H", "If-None-Match: \(tag)"])
                #expect(again.status == 304)
                #expect(again.body.isEmpty)
            }
            #expect(server.stats().responses(withStatus: 200) == 4)
            #expect(server.stats().responses(withStatus: 304) == 4)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func twoServersWithTheSameSeedServeTheSameBytes() async throws {
        let configuration = ReplicaConfiguration(seed: 77, scale: 0.1)
        let paths = try Catalogue(seed: 77, scale: 0.1).drinks.prefix(4).flatMap { drink in
            DrinkImageSize.allCases.map { Catalogue.imagePath + drink.imageSlug + ".jpg" + $0.pathSuffix }
        }
        func fetchAll() async throws -> [[UInt8]] {
            try await ReplicaServer.withServer(configuration) { server in
                let root = server.imageBaseURL.dropLast(Catalogue.imagePath.count)
                let result = try await Curl.fetch(paths.map { root + $0 })
                #expect(result.statuses == Array(repeating: 200, count: paths.count))
                return result.bodies
            }
        }
        let first = try await fetchAll()
        let second = try await fetchAll()
        #expect(first.count == paths.count)
        #expect(first == second)
        #expect(Set(first).count == paths.count)
    }

    @Test(.enabled(if: Curl.isAvailable)) func unknownSlugsAndSizesAre404() async throws {
        try await ReplicaServer.withServer { server in
            let slug = server.catalogue.drinks[0].imageSlug
            let names = [
                "zzzzzz1500000000.jpg", "zzzzzz1500000000.jpg/small", "\(slug).jpg/huge", "\(slug).jpg/small/",
                "\(slug).jpg/", "\(slug).png", "\(slug)", "\(slug).jpgx", ".jpg", "\(slug).jpg/Small",
            ]
            let result = try await Curl.fetch(names.map { server.imageBaseURL + $0 })
            #expect(result.statuses == Array(repeating: 404, count: names.count))
            #expect(result.contentTypes.allSatisfy { $0.hasPrefix("text/html") })
            // A query is ignored, as a static file server does.
            let withQuery = try await Curl.fetch(server.imageURL(for: server.catalogue.drinks[0]) + "?v=2")
            #expect(withQuery.status == 200)
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func headGivesTheHeadersWithoutTheBody() async throws {
        try await ReplicaServer.withServer { server in
            let drink = server.catalogue.drinks[0]
            let head = try await Curl.fetch(server.imageURL(for: drink, size: .medium), arguments: ["--head"])
            #expect(head.exitCode == 0)
            #expect(head.status == 200)
            #expect(head.headers["content-type"] == "image/jpeg")
            #expect(head.headers["content-length"] == String(server.imageBytes(for: drink, size: .medium).count))
            #expect(head.headers["etag"] != nil)
            // curl --head writes the headers as the body; a raw exchange shows nothing follows them.
            let path = server.imageURL(for: drink, size: .medium).drop { $0 != "/" }.dropFirst(2).drop { $0 != "/" }
            let raw = try await RawHTTPClient.exchange(
                port: server.port, request: "HEAD \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(raw.closedByServer)
            #expect(raw.text.hasPrefix("HTTP/1.1 200 OK\r\n"))
            #expect(raw.text.hasSuffix("\r\n\r\n"))
            #expect(!raw.bytes.contains(0xFF))
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func thumbnailsNameThePublicHostByDefault() async throws {
        try await ReplicaServer.withServer { server in
            let drink = server.catalogue.drinks[0]
            let record = try await Curl.fetch(server.url("lookup.php?i=\(drink.id)"))
            let escaped = drink.thumbnail.replacingOccurrences(of: "/", with: "\\/")
            #expect(record.bodyText.contains("\"strDrinkThumb\":\"\(escaped)\""))
            #expect(server.thumbnailURL(for: drink) == drink.thumbnail)
            #expect(drink.thumbnail.hasPrefix("https://www.thecocktaildb.com/images/media/drink/"))
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func thumbnailsNameTheReplicaWhenSelfHosted() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(selfHostedImages: true)) { server in
            #expect(server.imageBaseURL == "http://127.0.0.1:\(server.port)/images/media/drink/")
            let drink = server.catalogue.drinks[0]
            let own = "http://127.0.0.1:\(server.port)/images/media/drink/\(drink.imageSlug).jpg"
            #expect(server.thumbnailURL(for: drink) == own)
            let record = try await Curl.fetch(server.url("lookup.php?i=\(drink.id)"))
            let decoded = try JSONDecoder().decode(DrinksEnvelope<StrictDrink>.self, from: Data(record.body))
            #expect(decoded.drinks?.first?.value("strDrinkThumb") == own)
            let category = drink.category.replacingOccurrences(of: " ", with: "_")
            let list = try await Curl.fetch(server.url("filter.php?c=\(category)"))
            let summaries = try JSONDecoder().decode(DrinksEnvelope<StrictSummary>.self, from: Data(list.body))
            let thumbnails = try #require(summaries.drinks).map(\.thumbnail)
            #expect(thumbnails.allSatisfy { $0.hasPrefix(server.imageBaseURL) && $0.hasSuffix(".jpg") })
            let image = try await Curl.fetch(own)
            #expect(image.status == 200 && image.headers["content-type"] == "image/jpeg")
        }
    }

    @Test(.enabled(if: Curl.isAvailable)) func everyThumbnailOfACrawlResolvesWhenSelfHosted() async throws {
        let configuration = ReplicaConfiguration(resultCap: 0, selfHostedImages: true)
        try await ReplicaServer.withServer(configuration) { server in
            var thumbnails: [String] = []
            for category in server.catalogue.categories {
                let name = category.name.replacingOccurrences(of: " ", with: "_")
                let list = try await Curl.fetch(server.url("filter.php?c=\(name)"))
                let summaries = try JSONDecoder().decode(DrinksEnvelope<StrictSummary>.self, from: Data(list.body))
                thumbnails += try #require(summaries.drinks).map(\.thumbnail)
            }
            #expect(thumbnails.count == 635)
            #expect(Set(thumbnails) == Set(server.catalogue.drinks.map { server.imageURL(for: $0) }))
            var resolved = 0
            for start in stride(from: 0, to: thumbnails.count, by: 160) {
                let batch = Array(thumbnails[start..<min(start + 160, thumbnails.count)])
                let result = try await Curl.fetch(batch, arguments: ["--max-time", "60"])
                #expect(result.exitCode == 0)
                for (index, body) in result.bodies.enumerated() {
                    let ok = result.statuses[index] == 200 && result.contentTypes[index] == "image/jpeg"
                    #expect(ok, "\(batch[index])")
                    #expect(body.starts(with: [0xFF, 0xD8]) && body.suffix(2) == [0xFF, 0xD9], "\(batch[index])")
                    resolved += ok ? 1 : 0
                }
            }
            #expect(resolved == 635)
            #expect(server.stats().responses(withStatus: 200) == 635 + server.catalogue.categories.count)
        }
    }
}
