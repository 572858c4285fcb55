/// The engine's side of an ``OriginPolicy``: which origins have their rules, which wait for their
/// preflight (and the requests held meanwhile), and the preflights themselves.
///
/// Threading: part of the state machine, on the engine thread.
struct OriginGate {
    /// What admission does with a request.
    enum Verdict {
        /// Send it.
        case go
        /// It waits for its origin's rules (the gate holds it).
        case held
        /// It waits, and this preflight must be queued first.
        case heldFor(Transfer)
        /// It ends unsent with this error.
        case refused(FetchError)
        /// The origin's rules became known without a preflight (the policy kept them): space the
        /// host's starts by this, then ask again.
        case ruled(interval: Duration?)
    }

    enum State {
        /// The preflight is under way; these requests wait for it, in the order they came up.
        case reading(held: [Transfer])
        case ready(any OriginRules)
    }

    let policy: any OriginPolicy
    private(set) var origins: [String: State] = [:]
    /// Where preflights' results would go: nobody takes them (a transfer with ``Transfer/preflight``
    /// goes back to the gate before delivery), but a transfer needs a waiter to stay alive in the queues.
    private let sink = ResultSink()

    init(policy: any OriginPolicy) {
        self.policy = policy
    }

    /// The last origin whose rules decided a request, by its host key and scheme: a list's
    /// requests mostly come in runs of one origin, which then cost no origin string or look-up.
    /// Rules, once ready, never change.
    private var last: (host: Substring, scheme: Substring, rules: any OriginRules)?

    /// What to do with `transfer` (not a preflight) now.
    mutating func admit(_ transfer: Transfer) -> Verdict {
        if let last = self.last, last.host == transfer.hostKey, transfer.request.url.hasPrefix(last.scheme) {
            return last.rules.refusal(of: transfer.request).map { .refused($0) } ?? .go
        }
        let origin = Self.origin(of: transfer)
        switch self.origins[origin] {
        case .ready(let rules):
            if let end = origin.range(of: "://")?.upperBound {
                self.last = (transfer.hostKey, Substring(origin[..<end]), rules)
            }
            return rules.refusal(of: transfer.request).map { .refused($0) } ?? .go
        case .reading(var held):
            // Out of the dictionary while it grows, so the array is not copied.
            self.origins[origin] = .reading(held: [])
            held.append(transfer)
            self.origins[origin] = .reading(held: held)
            return .held
        case nil:
            switch self.policy.preflight(for: origin) {
            case nil:
                self.origins[origin] = .ready(OpenRules())
                return .go
            case .rules(let rules):
                self.origins[origin] = .ready(rules)
                return .ruled(interval: rules.startInterval)
            case .send(let request):
                self.origins[origin] = .reading(held: [transfer])
                return .heldFor(self.preflight(request, origin: origin, hop: 0, submittedAt: transfer.submittedAt))
            }
        }
    }

    /// A preflight ended with `outcome`: the next hop to queue, or the origin's rules with the
    /// requests held for them (to go back to admission, in order) and the least interval between
    /// starts on its host.
    mutating func preflightEnded(_ transfer: Transfer, _ outcome: Result<Response, FetchError>) -> (
        next: Transfer?, released: [Transfer], interval: Duration?
    ) {
        guard let preflight = transfer.preflight else {
            return (nil, [], nil)
        }
        if let exchanges = transfer.details?.exchanges, !exchanges.isEmpty {
            self.policy.keep(exchanges)
        }
        switch self.policy.answered(preflight.origin, hop: preflight.hop, request: transfer.request, outcome: outcome) {
        case .send(let request):
            let next = self.preflight(
                request, origin: preflight.origin, hop: preflight.hop + 1, submittedAt: transfer.submittedAt)
            return (next, [], nil)
        case .rules(let rules):
            var released: [Transfer] = []
            if case .reading(let held) = self.origins[preflight.origin] {
                released = held
            }
            self.origins[preflight.origin] = .ready(rules)
            return (nil, released, rules.startInterval)
        }
    }

    /// Drops the held requests `drop` says to (their batch was given up); - Returns: them.
    mutating func dropHeld(where drop: (Transfer) -> Bool) -> [Transfer] {
        var dropped: [Transfer] = []
        for (origin, state) in self.origins {
            guard case .reading(let held) = state, !held.isEmpty else {
                continue
            }
            var kept: [Transfer] = []
            for transfer in held {
                if drop(transfer) {
                    dropped.append(transfer)
                } else {
                    kept.append(transfer)
                }
            }
            if kept.count != held.count {
                self.origins[origin] = .reading(held: kept)
            }
        }
        return dropped
    }

    /// Every request held, taken out of the gate (the engine shuts down).
    mutating func removeAllHeld() -> [Transfer] {
        self.dropHeld { _ in true }
    }

    /// How many requests wait for their origins' rules.
    var heldCount: Int {
        self.origins.values.reduce(0) { count, state in
            if case .reading(let held) = state {
                return count + held.count
            }
            return count
        }
    }

    private func preflight(_ request: Request, origin: String, hop: Int, submittedAt: UInt64) -> Transfer {
        let waiter = Waiter(sink: self.sink, index: -1, tag: nil, ticket: nil)
        let transfer = Transfer(request: request, hash: nil, waiter: waiter, submittedAt: submittedAt)
        transfer.preflight = Transfer.Preflight(origin: origin, hop: hop)
        return transfer
    }

    /// `transfer`'s origin (``Origin``), from the host key it found once.
    static func origin(of transfer: Transfer) -> String {
        Origin.of(transfer.request.url, hostKey: transfer.hostKey)
    }

    /// The rules of an origin whose policy reads nothing.
    private struct OpenRules: OriginRules {
        func refusal(of request: Request) -> FetchError? { nil }
        var startInterval: Duration? { nil }
    }
}
