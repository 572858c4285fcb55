import BatchFetch

/// Crawls the catalogue: lists a facet's values, fetches each value's drinks concurrently,
/// optionally every drink's full record, and emits the facets in list order as soon as each is
/// complete, while requests complete in any order.
///
/// Everything goes through one engine, so one concurrency cap, one rate limit and one retry
/// policy govern the whole crawl. Failures never vanish: a facet that cannot be completed is
/// emitted in its place with a ``CrawlFailure``.
public struct Crawler: Sendable {
    /// The client whose engine and API location the crawl uses.
    public let client: CocktailDBClient

    /// Creates a crawler.
    public init(client: CocktailDBClient) {
        self.client = client
    }

    /// Runs a crawl, calling `emit` with each facet in list order.
    ///
    /// When the task is cancelled on an engine whose configuration
    /// ``Engine/Configuration/yieldsAnsweredOnCancel`` is set, every facet that the responses
    /// already received complete, in list order, is still emitted before it stops; otherwise
    /// those waiting to be taken are dropped.
    ///
    /// - Throws: ``FetchError`` when the facet list itself cannot be fetched or does not match
    ///   the resumed facets (nothing can be crawled then); ``CrawlInterrupted`` when the task is
    ///   cancelled (facets already emitted are complete, and counted in its summary); whatever
    ///   `emit` throws.
    public func crawl(
        _ options: CrawlOptions,
        progress: CrawlProgress? = nil,
        emit: (FacetResult) async throws -> Void
    ) async throws -> CrawlSummary {
        var run = CrawlRun(
            options: options, api: self.client.api, engine: self.client.engine, progress: progress,
            observer: self.client.observer)
        do {
            let values = try await run.listValues()
            try Task.checkCancellation()
            let plan = try await run.fetchFacets(values)
            try await run.emitAll(plan, emit: emit)
            try Task.checkCancellation()
        } catch  where Task.isCancelled {
            // Whatever failed once the task was cancelled failed because of it (a list request
            // answered `cancelled`, an engine that stopped).
            throw CrawlInterrupted(summary: run.summary)
        }
        return run.summary
    }
}

/// What ``Crawler/crawl(_:progress:emit:)`` throws when its task is cancelled.
public struct CrawlInterrupted: Error, Sendable {
    /// What the crawl did before it stopped: the facets it emitted (each complete), the requests
    /// it made.
    public let summary: CrawlSummary
}

/// The per-facet data gathered before emitting.
struct FacetPlan {
    let index: Int
    let value: FacetValue
    /// The facet's list: its drinks' ids, in the API's order.
    var listedIDs: [String] = []
    /// The same drinks' summaries, kept only when they are the output (no `details`).
    var listed: [DrinkSummary] = []
    var sweepOnly: [Drink] = []
    var failure: CrawlFailure?
}

/// One crawl's mutable state; lives for one `crawl` call.
struct CrawlRun {
    let options: CrawlOptions
    let api: CocktailDB
    let engine: Engine
    let progress: CrawlProgress?
    var summary = CrawlSummary()
    let observer: (@Sendable (FetchResult) -> Void)?

    init(
        options: CrawlOptions, api: CocktailDB, engine: Engine, progress: CrawlProgress?,
        observer: (@Sendable (FetchResult) -> Void)? = nil
    ) {
        self.options = options
        self.api = api
        self.engine = engine
        self.observer = observer
        self.progress = progress
    }

    /// Step 1: the facet's values, checked against the resumed prefix.
    mutating func listValues() async throws -> [FacetValue] {
        let endpoint = Endpoint.list(self.options.facet)
        let request = try self.api.request(endpoint)
        let result = await self.engine.fetch(request)
        self.account(result)
        let items = try CocktailDBClient.decoder(for: endpoint).decodeList([String: String?].self, from: result)
        let values = items.compactMap {
            ($0[self.options.facet.listField] ?? nil).map { FacetValue(self.options.facet, $0) }
        }
        self.summary.facets = values.count
        let done = self.options.done
        guard done.count <= values.count, zip(done, values).allSatisfy({ $0 == $1.name }) else {
            throw FetchError(
                kind: .resumeMismatch,
                message: "the facets already done (\(done.prefix(3).joined(separator: ", "))…) are not the start of "
                    + "the server's \(self.options.facet.rawValue) list; refusing to append to a different crawl")
        }
        self.progress?.update { $0.facetsTotal = values.count - done.count }
        return values
    }

    /// Step 2: every remaining facet's drink list, and the completeness sweep.
    mutating func fetchFacets(_ values: [FacetValue]) async throws -> [FacetPlan] {
        let todo = values.enumerated().dropFirst(self.options.done.count)
        var plans = todo.map { FacetPlan(index: $0.offset, value: $0.element) }
        var requests: [Request] = []
        for plan in plans {
            requests.append(Request(self.api.url(.filter(by: self.options.facet, value: plan.value.name))))
        }
        let sweep = self.options.complete ? CrawlOptions.sweepLetters : []
        for letter in sweep {
            requests.append(Request(self.api.url(.search(firstLetter: letter))))
        }
        // Consumed as they arrive, in request order: every facet's list is in before the first
        // sweep result, so each sweep response is cut down to the drinks its facet's list lacks
        // and its body dropped at once (a full sweep is the whole catalogue).
        self.progress?.update { $0.requestsQueued += requests.count }
        var listedIDs: [String: Set<String>] = [:]
        var swept: [String: Drink] = [:]
        // Facets whose lists arrived, all before any that did not (results come in input order).
        var answered = 0
        for await result in self.engine.orderedResults(for: requests) {
            if result.error?.kind == .interrupted {
                break  // the run stopped before this one's answer: nothing after it can be emitted
            }
            self.account(result)
            let position = result.index
            if position < plans.count {
                answered += 1
                let endpoint = Endpoint.filter(by: self.options.facet, value: plans[position].value.name)
                do throws(FetchError) {
                    try endpoint.validate()
                    let response = try result.outcome.get()
                    if self.options.details {
                        plans[position].listedIDs = try CocktailDBClient.summaryIDs(from: response, endpoint: endpoint)
                    } else {
                        plans[position].listed = try CocktailDBClient.summaries(from: response, endpoint: endpoint)
                        plans[position].listedIDs = plans[position].listed.map(\.id)
                    }
                    if !sweep.isEmpty {
                        // Only the sweep asks which drinks a facet lists.
                        listedIDs[plans[position].value.name] = Set(plans[position].listedIDs)
                    }
                } catch {
                    plans[position].failure = CrawlFailure(
                        error, url: self.api.redacted(result.request.url), attempts: result.attempts)
                }
                continue
            }
            do throws(FetchError) {
                let letter = sweep[position - plans.count]
                let drinks = try CocktailDBClient.drinks(
                    from: try result.outcome.get(), endpoint: .search(firstLetter: letter))
                for drink in drinks {
                    let names = CrawlAssembly.facetValues(of: drink, facet: self.options.facet)
                    if names.contains(where: { listedIDs[$0]?.contains(drink.id) == false }) {
                        swept[drink.id] = drink
                    }
                }
            } catch {
                self.summary.sweepFailures.append("\(self.api.redacted(result.request.url)): \(error.message)")
            }
        }
        if Task.isCancelled {
            // Without lookups or a sweep a facet is complete once its list is in: those answered
            // are emitted, so a resumed crawl need not ask for them again.
            guard !self.options.details && sweep.isEmpty else {
                throw CancellationError()
            }
            return Array(plans.prefix(answered))
        }
        CrawlAssembly.addSweepOnly(swept, to: &plans, facet: self.options.facet)
        return plans
    }

    /// Step 3: full records (with `details`), then every facet emitted in list order.
    ///
    /// Each facet is a group of ``SharedItemGroups``: each distinct drink is looked up once, its
    /// record kept until the last facet that lists it is emitted, so memory stays bounded by the
    /// lookups in flight, not by the catalogue.
    mutating func emitAll(_ plans: [FacetPlan], emit: (FacetResult) async throws -> Void) async throws {
        var groups = SharedItemGroups<String, DrinkRecord>(
            expectedSlots: plans.reduce(0) { $0 + $1.listedIDs.count + $1.sweepOnly.count })
        for plan in plans {
            if self.options.details && plan.failure == nil {
                groups.addGroup(holding: plan.sweepOnly.map(\.id), listing: plan.listedIDs) {
                    DrinkRecord(plan.sweepOnly[$0])
                }
            } else {
                groups.addEmptyGroup()
            }
        }
        groups.finishPlanning()
        var failures: [Int: CrawlFailure] = [:]
        var nextFacet = 0
        func emitReady(upTo received: Int, _ run: inout CrawlRun) async throws {
            while nextFacet < plans.count && groups.lastLookup(of: nextFacet) <= received {
                let result = CrawlAssembly.result(
                    for: plans[nextFacet], group: groups.groups[nextFacet], details: run.options.details,
                    records: groups, failures: failures)
                run.record(result)
                try await emit(result)
                if plans[nextFacet].failure == nil {
                    groups.release(nextFacet)
                }
                nextFacet += 1
            }
        }
        try await emitReady(upTo: -1, &self)
        let lookupIDs = groups.lookups
        guard !lookupIDs.isEmpty else {
            return
        }
        let api = self.api
        let requests = lookupIDs.lazy.map { Request(api.url(.lookup(drink: $0))) }
        self.progress?.update { $0.requestsQueued += lookupIDs.count }
        var readerBuffers = DrinkRecordReader.Buffers()
        for await result in self.engine.orderedResults(for: requests) {
            if result.error?.kind == .interrupted {
                break  // the facet waiting for this lookup, and every one after it, stays unwritten
            }
            self.account(result)
            let id = lookupIDs[result.index]
            do throws(FetchError) {
                let found = try CocktailDBClient.records(
                    from: try result.outcome.get(), endpoint: .lookup(drink: id), buffers: &readerBuffers)
                guard let record = found.first(where: { $0.id == id }) else {
                    throw FetchError(
                        kind: .notFound, message: "drink \(id) is listed but lookup.php has no record of it")
                }
                groups.store(record, forLookup: result.index)
            } catch {
                failures[groups.slot(ofLookup: result.index)] = CrawlFailure(
                    error, url: api.redacted(result.request.url), attempts: result.attempts)
            }
            try await emitReady(upTo: result.index, &self)
        }
    }

    private mutating func account(_ result: FetchResult) {
        self.observer?(result)
        // A result another request's transfer answered sent nothing of its own.
        self.summary.requests += result.sharedWith == nil ? max(1, result.attempts) : 0
        self.summary.retries += max(0, result.attempts - 1)
        self.summary.bytes += result.response?.bodyByteCount ?? 0
        if let version = result.response?.httpVersion {
            self.summary.protocols[version.rawValue, default: 0] += 1
        }
        // A request failed when it got no response or a status the decoders refuse (a 404 is a
        // response, not a transport error, but the crawl cannot use it any more than a reset).
        let failed = result.response.map { !StatusPolicy.successful.accepts($0.status) } ?? true
        if failed {
            self.summary.failedRequests += 1
        }
        self.progress?.update {
            $0.requestsDone += 1
            $0.requestsQueued = max(0, $0.requestsQueued - 1)
            $0.errors += failed ? 1 : 0
        }
    }

    private mutating func record(_ result: FacetResult) {
        self.summary.emitted += 1
        self.summary.drinks += result.drinks.count
        if result.failure != nil {
            self.summary.failedFacets += 1
        }
        if result.sweepOnly > 0 {
            self.summary.sweepOnlyDrinks += result.sweepOnly
            self.summary.sweepOnlyByFacet[result.value.name] = result.sweepOnly
        }
        self.progress?.update { $0.facetsDone += 1 }
    }
}

extension FetchError.Kind {
    /// A listed item has no record.
    public static let notFound = FetchError.Kind(rawValue: "notFound")
    /// A resumed output does not belong to this crawl.
    public static let resumeMismatch = FetchError.Kind(rawValue: "resumeMismatch")
}
