import Foundation

/// Follows the redirects of a request that libcurl cannot redirect as RFC 9110 §15.4 asks, one
/// hop at a time, as curl's `--follow` does (curl 8.13 and later; the libcurl 7.88 this must run
/// on has no such mode).
///
/// libcurl's `CURLOPT_FOLLOWLOCATION` keeps a custom method (`CURLOPT_CUSTOMREQUEST`) on every
/// hop, so a DELETE answered with 303 would be sent as DELETE again, and where it does turn a POST
/// into a GET it still sends the request's own `Content-Type`. So every request but a plain GET or
/// HEAD is sent with `FOLLOWLOCATION` off, and its handle asks this value what the next hop is:
/// - 303: every method but HEAD becomes a GET, without body, `Content-Type` or `Content-Length`;
/// - 301 and 302: a POST becomes such a GET; any other method is sent again whole, body included;
/// - any other 3xx but 304 (307, 308, 300): the request is sent again whole.
///
/// As libcurl does, at most ``maxRedirects`` are followed, only to `http` and `https`, and the
/// credentials (`Authorization`, `Cookie`) go only to the first request's origin.
///
/// Threading: a value, held by its handle on the engine thread.
struct RedirectFollower {
    /// What to do with a response.
    enum Step: Equatable {
        /// Not a redirect to follow: the response is the transfer's.
        case done
        /// ``current`` is the next hop's request.
        case follow
        /// More redirects than allowed.
        case tooMany
        /// A redirect to a scheme batchfetch does not fetch.
        case refused(scheme: String)
    }

    /// Lower-case names of the fields that describe a body, left out once the body is.
    static let bodyFieldNames: Set<String> = ["content-type", "content-length"]
    /// Lower-case names of the fields that carry credentials, sent to the first origin only.
    static let credentialFieldNames: Set<String> = ["authorization", "cookie"]

    let original: Request
    let maxRedirects: Int
    /// The request of the hop being sent.
    private(set) var current: Request
    /// Lower-case names of the header fields (the engine's and the request's) the hop leaves out.
    private(set) var removedFields: Set<String> = []
    /// Redirects followed so far.
    private(set) var followed = 0
    /// The URL the last redirect pointed to, followed or refused; `nil` before any.
    private(set) var lastLocation: String?
    /// The earlier hops' timings, summed phase by phase (as libcurl sums them when it follows).
    private(set) var earlierTimings = Timings()
    /// Connections the earlier hops opened.
    private(set) var earlierConnections = 0
    /// Why the transfer stops at a redirect, once it does.
    var failure: FetchError?

    /// Whether libcurl's own following would send `request` wrong: anything but a GET or HEAD
    /// without a body.
    static func isNeeded(for request: Request) -> Bool {
        request.hasBody || (request.method != .get && request.method != .head)
    }

    init(_ request: Request, maxRedirects: Int) {
        self.original = request
        self.current = request
        self.maxRedirects = maxRedirects
    }

    /// Decides on a response with `status` whose `Location` resolved to `location`, and moves to
    /// the next hop when it is followed.
    mutating func next(status: Int, location: String?) -> Step {
        guard let location, status >= 300 && status < 400 && status != 304 else {
            return .done
        }
        guard self.followed < self.maxRedirects else {
            return .tooMany
        }
        self.lastLocation = location
        let scheme = location.prefix { $0 != ":" }.lowercased()
        guard scheme == "http" || scheme == "https" else {
            return .refused(scheme: scheme)
        }
        self.followed += 1
        let method = self.current.method
        let becomesGet = status == 303 ? method != .head : (status == 301 || status == 302) && method == .post
        self.current.url = location
        if becomesGet {
            self.current.method = .get
            self.current.body = nil
            self.current.bodyFile = nil
            self.current.headers.removeAll { Self.bodyFieldNames.contains($0.name.lowercased()) }
            self.removedFields.formUnion(Self.bodyFieldNames)
        }
        if let origin = Self.origin(of: location), origin == Self.origin(of: self.original.url) {
            self.removedFields.subtract(Self.credentialFieldNames)
        } else {
            self.removedFields.formUnion(Self.credentialFieldNames)
        }
        return .follow
    }

    /// Adds a finished hop's timings and connections to the earlier ones.
    mutating func hopEnded(_ timings: Timings, newConnections: Int) {
        self.earlierTimings = self.including(timings)
        self.earlierConnections += newConnections
    }

    /// `timings` (the last hop's) with the earlier hops' added, phase by phase.
    func including(_ timings: Timings) -> Timings {
        let e = self.earlierTimings
        return Timings(
            queued: timings.queued, nameLookup: e.nameLookup + timings.nameLookup, connect: e.connect + timings.connect,
            tlsHandshake: e.tlsHandshake + timings.tlsHandshake, preTransfer: e.preTransfer + timings.preTransfer,
            firstByte: e.firstByte + timings.firstByte, total: e.total + timings.total)
    }

    /// Scheme, host and port (the scheme's default when none is written), as libcurl compares them
    /// before sending credentials on; `nil` for what does not parse, which matches nothing.
    static func origin(of url: String) -> String? {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme?.lowercased(),
            let host = parts.host?.lowercased()
        else {
            return nil
        }
        let port = parts.port ?? (scheme == "https" ? 443 : 80)
        return "\(scheme)://\(host):\(port)"
    }
}
