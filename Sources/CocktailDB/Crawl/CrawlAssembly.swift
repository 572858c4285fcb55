import BatchFetch

/// The pure parts of a crawl: where sweep-only drinks go, and what a facet's result is.
enum CrawlAssembly {
    /// Adds every swept drink that its facet's (capped) list did not include to the facet its
    /// record names, after the listed drinks, in id order, so output stays deterministic.
    static func addSweepOnly(_ swept: [String: Drink], to plans: inout [FacetPlan], facet: Facet) {
        guard !swept.isEmpty else {
            return
        }
        var positions: [String: Int] = [:]
        for (position, plan) in plans.enumerated() where plan.failure == nil {
            positions[plan.value.name] = position
        }
        var listed: [Int: Set<String>] = [:]
        for drink in swept.values.sorted(by: { idPrecedes($0.id, $1.id) }) {
            for name in Self.facetValues(of: drink, facet: facet) {
                guard let position = positions[name] else {
                    continue
                }
                if listed[position] == nil {
                    listed[position] = Set(plans[position].listedIDs)
                }
                if listed[position]?.contains(drink.id) == false {
                    plans[position].sweepOnly.append(drink)
                    listed[position]?.insert(drink.id)
                }
            }
        }
    }

    /// The values of `facet` a record names (one, or several ingredients).
    static func facetValues(of drink: Drink, facet: Facet) -> [String] {
        switch facet {
        case .category: drink.category.map { [$0] } ?? []
        case .glass: drink.glass.map { [$0] } ?? []
        case .alcoholic: drink.alcoholic.map { [$0] } ?? []
        case .ingredient: drink.ingredients.map(\.name)
        }
    }

    /// Numeric order for digit ids (shorter first), plain order otherwise.
    static func idPrecedes(_ a: String, _ b: String) -> Bool {
        a.utf8.count != b.utf8.count ? a.utf8.count < b.utf8.count : a < b
    }

    /// The facet's result from its plan and the records fetched so far, by the slots its group
    /// names (with `details` only).
    static func result(
        for plan: FacetPlan, group: SharedItemGroups<String, DrinkRecord>.Group, details: Bool,
        records: SharedItemGroups<String, DrinkRecord>, failures: [Int: CrawlFailure]
    ) -> FacetResult {
        if let failure = plan.failure {
            return FacetResult(index: plan.index, value: plan.value, drinks: [], sweepOnly: 0, failure: failure)
        }
        var drinks: [CrawlDrink] = []
        drinks.reserveCapacity(plan.listedIDs.count + plan.sweepOnly.count)
        if details {
            for (id, slot) in zip(plan.listedIDs, group.listed) {
                guard let record = records[slot] else {
                    let failure =
                        failures[slot]
                        ?? CrawlFailure(kind: .notFound, message: "no record for drink \(id)", url: "", attempts: 0)
                    return FacetResult(index: plan.index, value: plan.value, drinks: [], sweepOnly: 0, failure: failure)
                }
                drinks.append(.record(record))
            }
            for (drink, slot) in zip(plan.sweepOnly, group.held) {
                drinks.append(.record(records[slot] ?? DrinkRecord(drink)))
            }
        } else {
            for summary in plan.listed {
                drinks.append(.summary(summary))
            }
            for drink in plan.sweepOnly {
                drinks.append(.summary(DrinkSummary(id: drink.id, name: drink.name, thumbnail: drink.thumbnail)))
            }
        }
        return FacetResult(
            index: plan.index, value: plan.value, drinks: drinks, sweepOnly: plan.sweepOnly.count, failure: nil)
    }
}
