import DequeModule

/// Recent final outcomes by request, replayed to later identical requests (the reference's
/// `share(replay: 1)`), bounded by the bytes of the bodies it holds; oldest entries go first.
///
/// Threading: engine thread only (a value type owned by the loop).
struct ReplayCache {
    private let limit: Int
    private var entries: [RequestKey: (outcome: Result<Response, FetchError>, attempts: Int, cost: Int)] = [:]
    private var order = Deque<RequestKey>()
    private var bytes = 0

    init(limit: Int) {
        self.limit = max(0, limit)
    }

    subscript(request: RequestKey) -> (Result<Response, FetchError>, Int)? {
        guard self.limit > 0, let entry = self.entries[request] else {
            return nil
        }
        return (entry.outcome, entry.attempts)
    }

    mutating func insert(_ request: RequestKey, outcome: Result<Response, FetchError>, attempts: Int) {
        guard self.limit > 0 else {
            return
        }
        if case .failure(let error) = outcome, error.kind == .cancelled {
            return
        }
        // A body in a file is not replayed: the cache would keep the temporaries of bodies nobody
        // names (a 404's) alive, on disk, until it evicts them.
        if case .success(let response) = outcome, response.spooledBody != nil {
            return
        }
        let bodyBytes = (try? outcome.get().body.count) ?? 0
        let cost = bodyBytes + request.request.url.utf8.count + 256
        guard cost <= self.limit else {
            return
        }
        while self.bytes + cost > self.limit, let oldest = self.order.popFirst() {
            self.bytes -= self.entries.removeValue(forKey: oldest)?.cost ?? 0
        }
        // One lookup for the insert. A request already held (the engine joins repeats to the
        // transfer in flight, so hardly ever) keeps its place in the order, with the newer outcome.
        if let previous = self.entries.updateValue((outcome, attempts, cost), forKey: request) {
            self.bytes += cost - previous.cost
        } else {
            self.order.append(request)
            self.bytes += cost
        }
    }
}
