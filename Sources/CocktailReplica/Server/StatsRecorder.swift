import Synchronization

/// Counts requests, responses, faults and connections for ``ReplicaStats``, and owns the throttle.
///
/// Thread-safe: one `Mutex`, held for a few dictionary updates per request. The per-target counter
/// doubles as the attempt number that fault decisions hash, which is why the throttle lives here too
/// (one lock acquisition per request start).
final class StatsRecorder: Sendable {
    private struct State {
        var requests = 0
        var requestsByPath: [String: Int] = [:]
        var responsesByStatus: [Int: Int] = [:]
        var statusesByPath: [String: [Int: Int]] = [:]
        var faults: [FaultKind: Int] = [:]
        var connectionsAccepted = 0
        var connectionsOpen = 0
        var inFlight = 0
        var maxInFlight = 0
        var requestsByURL: [String: Int] = [:]
        var conditionalRequests = 0
        var throttle: ThrottleWindow?
    }

    /// What the start of a request learned.
    struct Admission {
        /// How many earlier requests had the same target (0 for the first).
        var attempt: Int
        /// Whether the throttle refused this request.
        var throttled: Bool
        /// Seconds until the throttle admits requests again.
        var retryAfterSeconds: Int
    }

    private let state: Mutex<State>

    init(throttle: Int?) {
        var state = State()
        state.throttle = throttle.map(ThrottleWindow.init(limit:))
        self.state = Mutex(state)
    }

    func connectionOpened() {
        self.state.withLock { state in
            state.connectionsAccepted += 1
            state.connectionsOpen += 1
        }
    }

    func connectionClosed() {
        self.state.withLock { $0.connectionsOpen -= 1 }
    }

    /// Counts a request whose head arrived; `now` is monotonic nanoseconds (for the throttle);
    /// `conditional` when it carried `If-None-Match` or `If-Modified-Since`.
    func begin(target: String, path: String, now: UInt64, conditional: Bool = false) -> Admission {
        self.state.withLock { state in
            state.requests += 1
            if conditional {
                state.conditionalRequests += 1
            }
            state.requestsByPath[path, default: 0] += 1
            // One hash of the target: bump in place when present.
            var attempt = 0
            if let index = state.requestsByURL.index(forKey: target) {
                attempt = state.requestsByURL.values[index]
                state.requestsByURL.values[index] = attempt + 1
            } else {
                state.requestsByURL[target] = 1
            }
            state.inFlight += 1
            state.maxInFlight = max(state.maxInFlight, state.inFlight)
            var admission = Admission(attempt: attempt, throttled: false, retryAfterSeconds: 0)
            if var throttle = state.throttle {
                admission.throttled = !throttle.admit(nowNanoseconds: now)
                admission.retryAfterSeconds = throttle.secondsUntilNextWindow(nowNanoseconds: now)
                state.throttle = throttle
            }
            return admission
        }
    }

    /// Counts the end of a request: its status (`nil` when no response was sent) and fault.
    func finish(path: String, status: Int?, fault: FaultKind?) {
        self.state.withLock { state in
            state.inFlight -= 1
            if let status {
                state.responsesByStatus[status, default: 0] += 1
                state.statusesByPath[path, default: [:]][status, default: 0] += 1
            }
            if let fault {
                state.faults[fault, default: 0] += 1
            }
        }
    }

    /// A consistent copy of every counter.
    func snapshot() -> ReplicaStats {
        self.state.withLock { state in
            var stats = ReplicaStats()
            stats.requests = state.requests
            stats.requestsByPath = state.requestsByPath
            stats.responsesByStatus = Dictionary(
                uniqueKeysWithValues: state.responsesByStatus.map { (String($0.key), $0.value) }
            )
            stats.statusesByPath = state.statusesByPath.mapValues { statuses in
                Dictionary(uniqueKeysWithValues: statuses.map { (String($0.key), $0.value) })
            }
            stats.faults = Dictionary(uniqueKeysWithValues: state.faults.map { ($0.key.rawValue, $0.value) })
            stats.connectionsAccepted = state.connectionsAccepted
            stats.connectionsOpen = state.connectionsOpen
            stats.requestsInFlight = state.inFlight
            stats.maxRequestsInFlight = state.maxInFlight
            stats.requestsByURL = state.requestsByURL
            stats.conditionalRequests = state.conditionalRequests
            return stats
        }
    }
}
