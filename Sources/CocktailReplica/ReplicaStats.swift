import Foundation

/// What the replica has served so far: the body of `GET /__replica/stats`, and ``ReplicaServer/stats()``.
///
/// Tests assert caps, de-duplication and retries from the server's side with it. Requests to the
/// stats endpoint itself are not counted. A request counts as in flight from the moment its head
/// is received until its response's end is written (or the connection closes). Dictionary keys are
/// strings so that the JSON is an object: statuses as decimal strings (`"200"`), faults by
/// ``FaultKind`` raw value, URLs as the request target (path and query, as the client sent it).
public struct ReplicaStats: Codable, Sendable, Hashable {
    /// All counted requests.
    public var requests: Int
    /// Requests by path (without query).
    public var requestsByPath: [String: Int]
    /// Responses by status; resets (no response at all) are not counted here.
    public var responsesByStatus: [String: Int]
    /// Responses by path, then status.
    public var statusesByPath: [String: [String: Int]]
    /// Injected faults by kind.
    public var faults: [String: Int]
    /// TCP connections accepted since start.
    public var connectionsAccepted: Int
    /// TCP connections open now.
    public var connectionsOpen: Int
    /// Requests in flight now.
    public var requestsInFlight: Int
    /// The most requests that were in flight at once.
    public var maxRequestsInFlight: Int
    /// Requests by target (path and query, exactly as sent).
    public var requestsByURL: [String: Int]
    /// Requests that carried `If-None-Match` or `If-Modified-Since` (a cache revalidating).
    public var conditionalRequests: Int

    /// Creates empty stats.
    public init() {
        self.requests = 0
        self.requestsByPath = [:]
        self.responsesByStatus = [:]
        self.statusesByPath = [:]
        self.faults = [:]
        self.connectionsAccepted = 0
        self.connectionsOpen = 0
        self.requestsInFlight = 0
        self.maxRequestsInFlight = 0
        self.requestsByURL = [:]
        self.conditionalRequests = 0
    }

    /// How many times `target` (e.g. `/api/json/v1/1/lookup.php?i=11007`) was requested.
    public func requests(for target: String) -> Int {
        self.requestsByURL[target] ?? 0
    }

    /// How many responses had `status`.
    public func responses(withStatus status: Int) -> Int {
        self.responsesByStatus[String(status)] ?? 0
    }

    /// How many faults of `kind` were injected.
    public func faults(_ kind: FaultKind) -> Int {
        self.faults[kind.rawValue] ?? 0
    }

    /// The stats as the endpoint serves them: pretty-printed JSON with sorted keys.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
