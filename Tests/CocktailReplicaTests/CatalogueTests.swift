import Testing

@testable import CocktailReplica

/// The generated catalogue has the real API's shape and sizes.
struct CatalogueTests {
    @Test func scaleOneHasTheRealCategoriesAndAbout635Drinks() throws {
        let catalogue = try Catalogue()
        #expect(
            catalogue.categories.map(\.name) == [
                "Ordinary Drink", "Cocktail", "Shake", "Other / Unknown", "Cocoa", "Shot", "Coffee / Tea",
                "Homemade Liqueur", "Punch / Party Drink", "Beer", "Soft Drink",
            ]
        )
        #expect(catalogue.drinks.count == 635)
        #expect(catalogue.categories.map(\.drinkIDs.count).reduce(0, +) == 635)
        #expect(catalogue.categories.filter { $0.drinkIDs.count > 100 }.count == 3)
        #expect(catalogue.alcoholicFlags == ["Alcoholic", "Non alcoholic", "Optional alcohol"])
    }

    @Test func idsAreUniqueSparseDigitStringsMostlyFiveDigits() throws {
        let catalogue = try Catalogue()
        let ids = catalogue.drinks.map(\.id)
        #expect(Set(ids).count == ids.count)
        #expect(ids.allSatisfy { $0.allSatisfy(\.isASCII) && Int($0) != nil })
        let fiveDigit = ids.compactMap(Int.init).filter { (11000...17999).contains($0) }
        let sixDigit = ids.filter { $0.count == 6 }
        #expect(fiveDigit.count + sixDigit.count == ids.count)
        #expect(fiveDigit.count > ids.count * 3 / 4)
        #expect(!sixDigit.isEmpty)
    }

    @Test func drinksHaveTheRealFieldConventions() throws {
        let catalogue = try Catalogue()
        for drink in catalogue.drinks {
            #expect((1...12).contains(drink.components.count), "\(drink.id)")
            #expect(drink.thumbnail.hasPrefix("https://www.thecocktaildb.com/images/media/drink/"))
            #expect(catalogue.glasses.contains(drink.glass))
            #expect(catalogue.alcoholicFlags.contains(drink.alcoholic))
            if let date = drink.dateModified {
                #expect(date.wholeMatch(of: /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/) != nil, "\(date)")
            }
            for component in drink.components {
                #expect(catalogue.ingredient(named: component.ingredient) != nil)
            }
        }
        let measures = catalogue.drinks.flatMap(\.components).compactMap(\.measure)
        #expect(measures.allSatisfy { $0.hasSuffix(" ") })
        #expect(catalogue.drinks.contains { $0.instructions(in: "ZH-HANS") != nil })
        #expect(Set(catalogue.drinks.map(\.name)).count == catalogue.drinks.count)
    }

    @Test func categoryDrinksAreInFilterOrderByName() throws {
        let catalogue = try Catalogue()
        for category in catalogue.categories {
            let names = category.drinkIDs.compactMap { catalogue.drink(id: $0)?.name }
            #expect(names == names.sorted())
            #expect(catalogue.drinks(inCategory: category.name).map(\.id) == category.drinkIDs)
        }
        #expect(catalogue.drinks(inCategory: "coffee_/_tea").count == catalogue.categories[6].drinkIDs.count)
    }

    @Test func scaleMultipliesTheDrinksAndKeepsIDsUnique() throws {
        let catalogue = try Catalogue(scale: 10)
        #expect(catalogue.drinks.count == 6350)
        #expect(Set(catalogue.drinks.map(\.id)).count == 6350)
        #expect(try Catalogue(scale: 0.01).categories.allSatisfy { $0.drinkIDs.count == 1 || $0.drinkIDs.count == 2 })
    }

    @Test func legacyRateChangesOnlyTheLegacyFlags() throws {
        let plain = try Catalogue(seed: 3)
        let legacy = try Catalogue(seed: 3, legacyRate: 0.5)
        let flagged = legacy.drinks.filter(\.usesLegacyEmptyStrings).count
        #expect((200...435).contains(flagged))
        #expect(plain.drinks.map(\.name) == legacy.drinks.map(\.name))
        #expect(plain.drinks.map(\.components) == legacy.drinks.map(\.components))
        #expect(plain.drinks.allSatisfy { !$0.usesLegacyEmptyStrings })
    }
}
