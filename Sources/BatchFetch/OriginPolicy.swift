/// Rules that every request to an origin must pass, read from a document the engine fetches first:
/// how robots.txt (RFC 9309, the `BatchFetchRobotsPolicy` module) plugs into the engine without the
/// engine knowing robots.txt.
///
/// The first time a request for an origin comes up for a slot, the engine holds it (and every later
/// one of that origin) and sends the policy's ``preflight(for:)`` instead, through the same host
/// queue, rates, retries and health checks as any request, but with its body always kept and no
/// record of its own. What comes back goes to ``answered(_:hop:request:outcome:)``, which asks for
/// another hop (a redirect to follow) or gives the origin's ``OriginRules``; from then on each of
/// the origin's requests is checked with them as it comes up, and the held ones go on. Other
/// origins go on meanwhile.
///
/// Threading: every call on the engine thread; the policy may be read elsewhere (by whoever writes
/// records) and guards its own state.
public protocol OriginPolicy: AnyObject, Sendable {
    /// What decides `origin`'s rules (`scheme://host[:port]`: the host lower case, an
    /// international name in its ASCII form, the port only when not the scheme's default): a
    /// request to send first, or the rules themselves when the policy knows them already (kept
    /// from an earlier run); `nil` when the origin has none to read and every request of it goes.
    func preflight(for origin: String) -> OriginStep?
    /// What the preflight's hop number `hop` (0 for the first) brought: the next hop to send, or
    /// the origin's rules.
    func answered(_ origin: String, hop: Int, request: Request, outcome: Result<Response, FetchError>) -> OriginStep
    /// A preflight's exchanges, when the engine gathers them (``TransferDetails/Kinds/exchanges``):
    /// an archive keeps the preflight's requests too. Called just before ``answered(_:hop:request:outcome:)``.
    func keep(_ exchanges: [Exchange])
}

extension OriginPolicy {
    /// Keeps nothing: a policy that does not archive.
    public func keep(_ exchanges: [Exchange]) {}
}

/// What an ``OriginPolicy`` says before an origin's first request and after each preflight hop.
public enum OriginStep: Sendable {
    /// Send this request (the preflight, or a redirect of it).
    case send(Request)
    /// The origin's rules are known.
    case rules(any OriginRules)
}

/// One origin's rules, as its ``OriginPolicy`` read them.
///
/// Threading: asked on the engine thread, once for each request of the origin as it comes up.
public protocol OriginRules: Sendable {
    /// Why `request` is not sent (the result the request ends with, unsent), or `nil` when it may go.
    func refusal(of request: Request) -> FetchError?
    /// The least time between two request starts on the origin's host (robots.txt's
    /// `Crawl-delay`), on top of every other rate; `nil` for none.
    var startInterval: Duration? { get }
}

/// The origin an ``OriginPolicy`` is asked about for a URL.
public enum Origin {
    /// `url`'s origin as the engine names it: `scheme://host[:port]`, the scheme and host lower case,
    /// the host in its ASCII form, the port only when not the scheme's default.
    public static func of(_ url: String) -> String {
        Self.of(url, hostKey: HostKey.of(url))
    }

    static func of(_ url: String, hostKey: Substring) -> String {
        let scheme: String
        if url.hasPrefix("https:") {
            scheme = "https"
        } else if url.hasPrefix("http:") {
            scheme = "http"
        } else {
            scheme = url.prefix { $0 != ":" }.lowercased()
        }
        return scheme + "://" + hostKey
    }
}
