import DequeModule

/// What a batch iterator has received from the engine and not yet handed out, the one home of
/// the steps every batch takes between the engine and its consumer: results of requests the
/// cache let through are completed (stored, revalidated, counted), put back into input order
/// when the batch asks for it (``ResultOrder``), and queued.
///
/// Both iterators (``FetchResults`` over a sequence, ``AsyncFetchResults`` over an async input)
/// keep one; only how requests reach the engine differs between them.
struct ReceivedResults {
    /// Results ready to be handed out, in the batch's order.
    private(set) var ready = Deque<FetchResult>()
    /// Input order; `nil` for completion order.
    private(set) var order: ResultOrder?
    /// The highest index of a result received that is not ``FetchError/interrupted``; -1 before one.
    private(set) var lastAnswered = -1
    /// The engine's response store, if any: the engine thread answers from it (see
    /// ``EngineLoop``); the results of the requests it let through are completed here.
    let store: (any ResponseStore)?

    init(engine: Engine, orderWindow: Int?) {
        self.order = orderWindow.map { ResultOrder(window: $0, byteBudget: engine.configuration.reorderBufferBytes) }
        self.store = engine.store
    }

    /// Takes results from the engine, in any order.
    mutating func receive(_ results: consuming [FetchResult]) {
        if let store = self.store {
            self.insert(store.complete(results))
        } else {
            self.insert(results)
        }
    }

    /// Queues results that need no cache completion, in their turn. Each result is moved into the
    /// queue, not copied (a copy retains every reference it holds and dropping the original
    /// releases them again), so the caller should hold no other reference to the array.
    mutating func insert(_ results: consuming [FetchResult]) {
        var results = results
        for result in results where result.index > self.lastAnswered && result.error?.kind != .interrupted {
            self.lastAnswered = result.index
        }
        if self.order == nil {
            // Popped from the back, which moves each one out; reversed first to keep their order.
            results.reverse()
            while let result = results.popLast() {
                self.ready.append(result)
            }
        } else {
            // Mutated through the optional in place: a copy would copy the reorder slots.
            self.order?.insert(&results, readyInto: &self.ready)
        }
    }

    /// Takes the last results of a batch that stopped early: every answered one, and the
    /// `interrupted` ones below the highest index answered (those after it are dropped); in input
    /// order, everything that waited is then released in its place, a gap (a request whose result
    /// never came) as `interrupted` too. Nothing waits for an earlier result after this.
    mutating func receiveLast(_ results: consuming [FetchResult]) {
        var results = results
        for result in results where result.index > self.lastAnswered && result.error?.kind != .interrupted {
            self.lastAnswered = result.index
        }
        let last = self.lastAnswered
        results.removeAll { $0.index > last && $0.error?.kind == .interrupted }
        self.receive(results)
        self.order?.flush(into: &self.ready) { index in
            FetchResult(index: index, request: Request(""), outcome: .failure(.interrupted), attempts: 0)
        }
    }

    mutating func popFirst() -> FetchResult? {
        self.ready.popFirst()
    }

    mutating func removeAll() {
        self.ready.removeAll()
    }

    /// The result of a request refused before it reached the engine (an invalid URL), as the
    /// store counts it (the store never sees it).
    static func refusal(
        of request: Request, index: Int, error: FetchError, store: (any ResponseStore)?
    ) -> FetchResult {
        let result = FetchResult(index: index, request: request, outcome: .failure(error), attempts: 0)
        return store?.refused(result) ?? result
    }
}
