import Testing

@testable import CocktailReplica

/// The drinks' JPEGs, without a network: validity, dimensions, determinism, sizes, entity tags.
struct ImageStoreTests {
    private static let catalogue = Result { try Catalogue() }

    private func drinks(_ count: Int) throws -> [Catalogue.Drink] {
        Array(try Self.catalogue.get().drinks.prefix(count))
    }

    private func bytes(_ store: ImageStore, _ drink: Catalogue.Drink, _ size: DrinkImageSize) -> [UInt8] {
        Array(store.image(slug: drink.imageSlug, size: size).body.readableBytesView)
    }

    @Test func everySizeIsABaselineJPEGWithItsDimensionsInSOF0() throws {
        let store = ImageStore(seed: Catalogue.defaultSeed, validators: true)
        for drink in try self.drinks(2) {
            for size in DrinkImageSize.allCases {
                let image = try JPEGInspector(self.bytes(store, drink, size))
                #expect(image.width == size.pixels && image.height == size.pixels, "\(size)")
                #expect(image.hasJFIF)
                #expect(image.markers == [0xE0, 0xFE, 0xDB, 0xC0, 0xC4, 0xDD, 0xDA])
                #expect(image.quantisationTables == [0, 1])
                #expect(
                    image.components == [
                        .init(id: 1, horizontal: 2, vertical: 2, quantisationTable: 0),
                        .init(id: 2, horizontal: 1, vertical: 1, quantisationTable: 1),
                        .init(id: 3, horizontal: 1, vertical: 1, quantisationTable: 1),
                    ])
                let side = (size.pixels + 15) / 16
                #expect(image.restartInterval == side)
                #expect(image.mcusDecoded == side * side)
                #expect(image.restartMarkers == side - 1)
                #expect(image.comment == "TheCocktailDB replica: \(drink.imageSlug).jpg\(size.pathSuffix)")
            }
        }
    }

    @Test func theInspectorRejectsTruncatedAndMisorderedScans() throws {
        let store = ImageStore(seed: Catalogue.defaultSeed, validators: true)
        let bytes = self.bytes(store, try self.drinks(1)[0], .small)
        #expect(throws: JPEGInspector.Failure.self) { try JPEGInspector(Array(bytes.dropLast(40))) }
        #expect(throws: JPEGInspector.Failure.self) { try JPEGInspector(Array(bytes.dropLast(2))) }
        var misordered = bytes
        let restart = try #require(misordered.indices.first { misordered[$0] == 0xFF && misordered[$0 + 1] == 0xD0 })
        misordered[restart + 1] = 0xD3
        #expect(throws: JPEGInspector.Failure.self) { try JPEGInspector(misordered) }
        var padded = bytes
        padded.insert(contentsOf: [0x12, 0x34], at: restart)
        #expect(throws: JPEGInspector.Failure.self) { try JPEGInspector(padded) }
        #expect(throws: Never.self) { try JPEGInspector(bytes) }
    }

    @Test func theSameSeedAndSlugGiveTheSameBytesAndAnotherSeedOthers() throws {
        let first = ImageStore(seed: 7, validators: true)
        let second = ImageStore(seed: 7, validators: true)
        let other = ImageStore(seed: 8, validators: true)
        for drink in try self.drinks(3) {
            for size in DrinkImageSize.allCases {
                let bytes = self.bytes(first, drink, size)
                expectBytes(self.bytes(second, drink, size), bytes, "\(drink.imageSlug) \(size)")
                expectBytes(self.bytes(first, drink, size), bytes, "\(drink.imageSlug) \(size) again")
                #expect(self.bytes(other, drink, size) != bytes)
            }
        }
    }

    @Test func everyDrinkHasItsOwnPictureAtEverySize() throws {
        let store = ImageStore(seed: Catalogue.defaultSeed, validators: true)
        let drinks = try Self.catalogue.get().drinks
        for size in DrinkImageSize.allCases {
            // The scan alone (after SOS), so that the slug in the COM segment does not make them differ.
            let scans = drinks.map { drink in
                let bytes = self.bytes(store, drink, size)
                let sos = bytes.indices.first { bytes[$0] == 0xFF && bytes[$0 + 1] == 0xDA } ?? 0
                return bytes[sos...]
            }
            #expect(Set(scans).count == drinks.count, "\(size)")
        }
    }

    @Test func fileSizesAreLikeTheRealAPIsAndShrinkWithTheSize() throws {
        let store = ImageStore(seed: Catalogue.defaultSeed, validators: true)
        let drinks = try self.drinks(120)
        let expected: [(DrinkImageSize, ClosedRange<Int>)] = [
            (.full, 25_000...62_000), (.large, 20_000...50_000), (.medium, 8_000...20_000), (.small, 2_000...5_000),
        ]
        var means: [Int] = []
        for (size, range) in expected {
            let sizes = drinks.map { self.bytes(store, $0, size).count }
            #expect(sizes.allSatisfy { range.contains($0) }, "\(size): \(sizes.min() ?? 0)...\(sizes.max() ?? 0)")
            // Four detail levels: sizes spread, as real photographs' do.
            #expect(Set(sizes.map { $0 / 4000 }).count > 2 || size == .small, "\(size)")
            means.append(sizes.reduce(0, +) / sizes.count)
        }
        #expect(means == means.sorted(by: >))
    }

    @Test func theFullImageAndLargeShowOnePictureAtTwoQualities() throws {
        let store = ImageStore(seed: Catalogue.defaultSeed, validators: true)
        for drink in try self.drinks(20) {
            let full = self.bytes(store, drink, .full)
            let large = self.bytes(store, drink, .large)
            #expect(full.count > large.count)
            #expect(full != large)
        }
    }

    @Test func entityTagsFollowTheBytes() throws {
        let store = ImageStore(seed: Catalogue.defaultSeed, validators: true)
        let drinks = try self.drinks(50)
        var tags: [String: [UInt8]] = [:]
        for drink in drinks {
            for size in DrinkImageSize.allCases {
                let document = store.document(slug: drink.imageSlug, size: size)
                let tag = try #require(document.entityTag)
                let body = Array(document.body.readableBytesView)
                #expect(tags.updateValue(body, forKey: tag) == nil, "two images share \(tag)")
                #expect(store.document(slug: drink.imageSlug, size: size).entityTag == tag)
                #expect(document.headers["Content-Type"] == ["image/jpeg"])
                #expect(document.headers["Content-Length"] == [String(body.count)])
                #expect(!document.isJSON)
            }
        }
        let untagged = ImageStore(seed: Catalogue.defaultSeed, validators: false)
        let document = untagged.document(slug: drinks[0].imageSlug, size: .small)
        #expect(document.entityTag == nil)
        #expect(document.headers["ETag"].isEmpty && document.headers["Last-Modified"].isEmpty)
    }

    @Test func theSlugIsTheThumbnailsFileNameWithoutExtension() throws {
        for drink in try self.drinks(50) {
            #expect(drink.thumbnail == Catalogue.publicImageBase + drink.imageSlug + ".jpg")
            #expect(drink.imageSlug.count == 16 && drink.imageSlug.allSatisfy { $0.isLowercase || $0.isNumber })
        }
    }
}
