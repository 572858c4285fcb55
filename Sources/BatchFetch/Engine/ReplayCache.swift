import DequeModule

/// Which finished transfers stay in the engine's request table to answer later identical
/// requests (as RxSwift's `share(replay: 1)` replays), bounded by the bytes of their bodies; the oldest
/// go first.
///
/// The table is the state machine's (``EngineLoop/StateMachine/byRequest``): a finished transfer
/// kept for replay stays where it was found while in flight, so keeping and replaying it hash
/// nothing more. This type keeps the order and the bytes, and the outcome on the transfer.
///
/// Threading: engine thread only (a value type owned by the loop).
struct ReplayCache {
    private let limit: Int
    private var order = Deque<Entry>()
    private var bytes = 0

    /// A kept transfer, with what evicting it needs, so that evicting does not touch it (it was
    /// finished hundreds of requests ago: cold in cache).
    struct Entry {
        let transfer: Transfer
        /// Its request's hash, its key in the table.
        let hash: Int
        /// What it counts against the limit.
        let cost: Int
    }

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    /// What keeping `outcome` of `request` counts against the limit, or `nil` when it is not kept:
    /// no cache, a cancellation, a body in a file, or more than the whole limit.
    func cost(of outcome: Result<Response, FetchError>, request: Request) -> Int? {
        guard self.limit > 0 else {
            return nil
        }
        let bodyBytes: Int
        switch outcome {
        case .failure(let error):
            guard error.kind != .cancelled else {
                return nil
            }
            bodyBytes = 0
        case .success(let response):
            // A body in a file is not replayed: the cache would keep the temporaries of bodies
            // nobody names (a 404's) alive, on disk, until it evicts them.
            guard response.spooledBody == nil else {
                return nil
            }
            bodyBytes = response.body.count
        }
        let cost = bodyBytes + request.url.utf8.count + 256
        return cost <= self.limit ? cost : nil
    }

    /// Removes and returns the oldest kept transfer while keeping `cost` more bytes would pass the
    /// limit; `nil` once it fits. The caller takes it out of the table.
    mutating func evict(toFit cost: Int) -> Entry? {
        guard self.bytes + cost > self.limit, let oldest = self.order.popFirst() else {
            return nil
        }
        self.bytes -= oldest.cost
        return oldest
    }

    /// Keeps `transfer`, finished with `outcome`, for replay; make room first with ``evict(toFit:)``.
    mutating func keep(_ transfer: Transfer, outcome: Result<Response, FetchError>, hash: Int, cost: Int) {
        transfer.replayOutcome = outcome
        self.order.append(Entry(transfer: transfer, hash: hash, cost: cost))
        self.bytes += cost
    }
}
