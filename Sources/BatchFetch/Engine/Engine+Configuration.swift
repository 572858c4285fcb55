extension Engine {
    /// How an ``Engine`` fetches: limits, timeouts, protocol and retry behaviour.
    ///
    /// The defaults are safe for unknown servers: 64 transfers in flight, TLS verification on,
    /// only `http`/`https`, no redirects followed, bodies capped at 64 MiB, 3 retries with jittered
    /// backoff that honours `Retry-After`.
    public struct Configuration: Sendable {
        /// Transfers in flight at once. Enforced by how many easy handles are in the multi handle
        /// (not by libcurl's own queue, whose waiting time would count against ``timeout``).
        public var maxInFlight: Int = 64
        /// Connections to one host at once; 0 = no limit beyond ``maxInFlight``.
        /// (`CURLMOPT_MAX_HOST_CONNECTIONS`: transfers above it wait inside libcurl, and that wait
        /// counts against ``timeout``.)
        public var maxConnectionsPerHost: Int = 0
        /// Open connections in total; 0 = no limit beyond ``maxInFlight``.
        public var maxTotalConnections: Int = 0
        /// How long to wait for a connection to be established.
        public var connectTimeout: Duration = .seconds(10)
        /// An attempt that receives nothing for this long fails with ``FetchError/Kind/timeout``,
        /// waiting for the response included, while a slow download goes on as long as bytes come
        /// (curl's `--speed-limit 1 --speed-time`). libcurl checks the speed once a second over a
        /// few seconds' window, so it counts in whole seconds and a stall after fast bytes is seen
        /// a few seconds late. `nil` = no limit; ``lowSpeedLimit``, where set, replaces it.
        public var idleTimeout: Duration? = .seconds(30)
        /// How long one attempt may take in total, connect included (curl's `--max-time`); `nil`
        /// (the default) = no limit, so a large body over a slow link is not cut off midway.
        public var timeout: Duration? = nil
        /// Abort an attempt that stays below `bytesPerSecond` for `duration`; `nil` = never.
        public var lowSpeedLimit: LowSpeedLimit? = nil
        /// The largest body accepted; larger ones fail with ``FetchError/Kind/tooLarge``. Enforced
        /// on the decoded bytes as they arrive, so a compressed body cannot expand past it.
        public var maxBodyBytes: Int = 64 << 20
        /// The largest body accepted when bodies are saved to files (``bodyFolder``), where no
        /// body is held in memory: bounded, so that a server that never ends a body cannot fill the
        /// disk with it, and large enough for disk images and archives.
        public var maxSavedBodyBytes: Int = 8 << 30
        /// The HTTP version to ask for.
        public var httpVersion: HTTPVersionPreference = .http1_1
        /// The `Accept-Encoding` to send: `""` asks for every encoding libcurl can decode
        /// (gzip, deflate, br, zstd here) and decodes the body; `nil` sends none.
        public var acceptEncoding: String? = ""
        /// The `User-Agent` header.
        public var userAgent: String = "batchfetch/\(BatchFetch.version)"
        /// Header fields sent with every request (a request's own fields of the same name win).
        public var headers: [HeaderField] = []
        /// Verify TLS certificates and host names. Turning this off is for hosts you trust only.
        public var verifyTLS: Bool = true
        /// A PEM file of certificate authorities to trust instead of the system's bundle
        /// (`CURLOPT_CAINFO`, curl's `--cacert`): a private CA, without turning verification off.
        /// `nil` trusts the system's bundle. A file that cannot be read fails each HTTPS transfer
        /// with ``FetchError/Kind/tlsFailure``.
        public var caCertificateFile: String? = nil
        /// The proxy every request goes through (`CURLOPT_PROXY`, curl's `--proxy`):
        /// `http://host:port`, `socks5h://host:port`, …; `""` for none, whatever the environment
        /// says. `nil` (the default) leaves it to the environment, as curl does: `http_proxy`,
        /// `https_proxy`, `all_proxy` and `no_proxy`. A scheme not in ``proxySchemes`` is an
        /// invalid configuration.
        public var proxy: String? = nil
        /// Hosts reached directly, not through a proxy (`CURLOPT_NOPROXY`, curl's `--noproxy`): a
        /// comma-separated list of host names, domains (`example.com` covers its subdomains) and
        /// addresses, or `*` for every host. `nil` leaves it to the environment's `no_proxy`.
        public var noProxy: String? = nil
        /// Cookies to send, and whether the batch keeps the cookies servers set; `nil` = neither.
        public var cookies: Cookies? = nil
        /// Whether and how far to follow redirects; every hop is restricted to http and https.
        public var redirects: RedirectPolicy = .none
        /// When to retry.
        public var retry: RetryPolicy = RetryPolicy()
        /// Whether a host whose connects keep failing is found down (after one probe confirms it)
        /// and its remaining requests fail at once with ``FetchError/Kind/hostUnreachable``,
        /// unsent. Off, every request is sent and fails on its own: what a load test of one's own
        /// server wants.
        public var skipsDownHosts: Bool = true
        /// An optional rate limit on request starts (retries included).
        public var rateLimit: RateLimit? = nil
        /// Per-host rates and in-flight caps (``HostLimits``); `nil` = none.
        public var hostLimits: HostLimits? = nil
        /// Transfer identical requests (method, URL, headers, body) once: while one is in flight,
        /// later identical ones wait for it and share its result.
        public var deduplicate: Bool = true
        /// After a de-duplicated request completes, its result is replayed to later identical
        /// requests while it fits in this many bytes of bodies (oldest dropped first); 0 = only
        /// requests overlapping in time are shared.
        ///
        /// The default keeps the last ~450 results of 2 KB. At 8 MiB (~3,600 of them) the engine
        /// thread freed each evicted response long after touching it, cold in cache: W1 of
        /// scripts/bench (20,000 × 2.2 KB, no duplicates), 8 runs each, wall median 1.18 s at
        /// 8 MiB, 1.03 s at 1 MiB, 1.05 s with no replay cache.
        public var replayCacheBytes: Int = 1 << 20
        /// URLs longer than this are rejected before sending.
        public var maxURLLength: Int = 8192
        /// How many requests of a batch may be outstanding: admitted, queued, or completed and
        /// waiting for the consumer to take them; `nil` = `4 × maxInFlight`, growing to up to
        /// `16 ×` in batches read from a sequence while that many bodies of the mean size so far
        /// fit in 64 MiB (in input order, in ``reorderBufferBytes``). Bounds memory: results the
        /// consumer has taken count no longer, so a batch holds at most twice this many.
        ///
        /// It must leave room for a queue behind the transfers in flight: at `2 ×`, a consumer that
        /// a busy machine woke late left the engine polling with half its slots empty (on average
        /// 30 of 64 busy, 2 cores shared with the server); at `4 ×`, 60 of 64. Counting the results
        /// taken but not yet processed too (as before) starved the engine while the consumer
        /// worked through a large batch of 64 KB bodies.
        public var readAhead: Int? = nil
        /// In input order, how many requests may be read past the oldest result not yet yielded;
        /// `nil` = `64 × maxInFlight`.
        ///
        /// Every result after a slow request (a retry, a server's slow tail) waits for it. At
        /// `4 ×` the cap, a straggler among fast responses left the engine polling with a few
        /// transfers busy until it arrived; a wider window keeps the transfers going meanwhile, and
        /// ``reorderBufferBytes`` keeps its memory bounded when bodies are large.
        public var reorderWindow: Int? = nil
        /// In input order, how many body bytes the results waiting for an earlier one may hold
        /// before reading more requests pauses (until the earlier one arrives).
        public var reorderBufferBytes: Int = 128 << 20
        /// What a batch's iterator does when its consuming task is cancelled. `false` (the
        /// default): it ends at once, and results not yet taken are dropped. `true`: it stops the
        /// batch's transfers and still yields every result the engine already had, and for each
        /// request left unanswered below the highest index answered, a ``FetchError/interrupted``
        /// failure; in input order, every answered result then comes in its place. For a caller
        /// that must record every response that arrived, whatever stops it.
        public var yieldsAnsweredOnCancel: Bool = false
        /// Whether responses keep their bodies. `false` counts body bytes
        /// (``Response/bodyByteCount``, still held to ``maxBodyBytes``) and drops them as they
        /// arrive, as a caller that records only status and size wants: no copy, no memory held
        /// while a result waits for its turn. Ignored with a ``cache``, which stores bodies.
        public var keepsBodies: Bool = true
        /// A store to answer and revalidate requests from (an on-disk HTTP cache: the
        /// `BatchFetchCache` module's `HTTPCacheConfiguration`); `nil` (the default) = none, and
        /// every result's ``FetchResult/cache`` is `nil`.
        public var cache: (any ResponseStoreConfiguration)? = nil
        /// Rules each origin's requests must pass, read from a document fetched first (robots.txt:
        /// the `BatchFetchRobotsPolicy` module's); `nil` (the default) = none.
        public var originPolicy: (any OriginPolicy)? = nil

        /// A folder to save bodies in: each body streams into a temporary file there as it
        /// arrives and comes as ``Response/spooledBody`` (``Response/body``
        /// empty), held to ``maxSavedBodyBytes``; the consumer gives it its name (`BatchFetchFiles`). `nil` (the
        /// default) keeps bodies in memory. Ignored with a ``cache``, which stores bodies.
        public var bodyFolder: BodyFolder? = nil

        /// What the engine gathers about each transfer beyond its response, for
        /// ``FetchResult/details``; empty (the default) gathers nothing and costs nothing. Each kind
        /// costs a little on the engine thread (a few libcurl queries, TLS reads once per response),
        /// and a result that carries any costs one allocation more.
        public var details: TransferDetails.Kinds = []

        /// With ``TransferDetails/Kinds/exchanges``: each exchange's body hashed on the engine
        /// thread as it is kept (``Exchange/bodyHash``), where a WARC writer would otherwise hash
        /// it on its own thread, the slower stage. `nil` (the default) hashes nothing.
        public var exchangeBodyHash: Exchange.BodyHash.Algorithm? = nil

        /// Splits the last large downloads of a batch into byte ranges fetched over extra
        /// connections, as aria2c's `-s`/`-k` do: when slots are free and nothing waits for one,
        /// the download with the most bytes left (at least twice this many) gives the second half
        /// of them to a new connection, which asks for that range (`Range`, `If-Range`); the
        /// result is one response with the whole body. Only for GETs whose `200` has a length,
        /// `Accept-Ranges: bytes`, a validator and no content coding, with bodies kept in memory
        /// (no ``bodyFolder``, ``cache`` or exchanges). `nil` (the default) = never.
        public var splitMinimum: Int? = nil

        /// The default configuration.
        public init() {}

        /// ``splitMinimum`` where the configuration lets bodies be split: kept whole in memory.
        var effectiveSplitMinimum: Int? {
            guard let minimum = self.splitMinimum, minimum > 0, self.keepsBodies, self.cache == nil,
                self.bodyFolder == nil, !self.capturesExchanges
            else {
                return nil
            }
            return minimum
        }

        /// The folder bodies stream into, when they do.
        var spoolFolder: BodyFolder? {
            self.cache == nil ? self.bodyFolder : nil
        }

        /// The body limit that applies: ``maxSavedBodyBytes`` when bodies go to files.
        var effectiveMaxBodyBytes: Int {
            self.spoolFolder == nil ? self.maxBodyBytes : self.maxSavedBodyBytes
        }

        package var effectiveReadAhead: Int {
            max(self.readAhead ?? 4 * self.maxInFlight, 1)
        }

        var effectiveReorderWindow: Int {
            max(self.reorderWindow ?? 64 * self.maxInFlight, 1)
        }
    }

    /// The HTTP version an engine asks for.
    public enum HTTPVersionPreference: String, Sendable, Hashable, CaseIterable {
        /// HTTP/1.1 only.
        case http1_1
        /// HTTP/2 over TLS when the server offers it (ALPN), HTTP/1.1 otherwise (and over
        /// cleartext). Transfers to one host are multiplexed as streams over as few connections as
        /// the server allows: ``Configuration/maxInFlight`` then counts streams, not connections.
        case http2
        /// HTTP/2 without negotiation, also over cleartext (h2c, for servers known to speak it);
        /// multiplexed like ``http2``.
        ///
        /// libcurl before 8.0.0 breaks every request sent over an h2c connection it reuses, so
        /// there each `http://` request opens a connection of its own and closes it after
        /// (``BatchFetch/multiplexesCleartextHTTP2`` is then `false`); `https://` requests are
        /// multiplexed as with ``http2``.
        case http2PriorKnowledge
    }

    /// Whether redirects are followed.
    public enum RedirectPolicy: Sendable, Hashable {
        /// Return 3xx responses as they are.
        case none
        /// Follow up to this many redirects, then fail with ``FetchError/Kind/tooManyRedirects``.
        case follow(max: Int)
    }

    /// A token-bucket limit on request starts.
    public struct RateLimit: Sendable, Hashable {
        /// Average starts per second.
        public var requestsPerSecond: Double
        /// How many may start at once after a quiet period.
        public var burst: Int

        /// Creates a rate limit; `burst` defaults to 1 (evenly spaced starts).
        public init(requestsPerSecond: Double, burst: Int = 1) {
            self.requestsPerSecond = requestsPerSecond
            self.burst = max(1, burst)
        }
    }

    /// A minimum transfer speed.
    public struct LowSpeedLimit: Sendable, Hashable {
        /// Bytes per second below which the transfer counts as stalled.
        public var bytesPerSecond: Int
        /// How long it may stay stalled.
        public var duration: Duration

        /// Creates a low-speed limit.
        public init(bytesPerSecond: Int, duration: Duration) {
            self.bytesPerSecond = bytesPerSecond
            self.duration = duration
        }
    }
}

extension Engine.Configuration {
    /// The header fields every request carries: ``userAgent`` and ``acceptEncoding`` written out
    /// as fields, then ``headers``, whose fields of the same name replace them.
    ///
    /// libcurl 7.88 formats the headers of `CURLOPT_USERAGENT` and `CURLOPT_ACCEPT_ENCODING` through
    /// its printf twice for every request, at ~100 instructions a byte each pass; a field of
    /// `CURLOPT_HTTPHEADER` goes through once. Callgrind on the libcurl floor: 97.9k instructions a
    /// request with the two options, 92.1k with these fields. `CURLOPT_ACCEPT_ENCODING` stays set,
    /// so that libcurl still decodes what comes back; it skips its own header when the list has one.
    var fieldsSent: [HeaderField] {
        var fields: [HeaderField] = []
        if !self.userAgent.isEmpty {
            fields.append(HeaderField(name: "User-Agent", value: self.userAgent))
        }
        if let encoding = self.acceptEncoding,
            let value = encoding.isEmpty
                ? (self.capturesExchanges ? ContentDecoding.accepted : CurlGlobal.allContentEncodings) : encoding
        {
            fields.append(HeaderField(name: "Accept-Encoding", value: value))
        }
        return fields.overridden(by: self.headers)
    }

    /// Whether results carry their ``Exchange``s (``TransferDetails/Kinds/exchanges``).
    var capturesExchanges: Bool { self.details.contains(.exchanges) }

    /// The engine's header fields as the cache judges requests by them: ``headers``, and a
    /// `Cookie` field when the engine sends cookies, which no request's fields show. A request
    /// carrying a cookie is never answered from the cache nor stored in it.
    var fieldsTheCacheSees: [HeaderField] {
        self.cookies == nil ? self.headers : self.headers + [HeaderField(name: "Cookie", value: "")]
    }
}

extension Engine.Configuration {
    /// The schemes libcurl speaks to a proxy with; a proxy named without a scheme is spoken to in HTTP.
    public static let proxySchemes: Set<String> = ["http", "https", "socks4", "socks4a", "socks5", "socks5h"]

    /// Why `proxy` cannot be used, or `nil`: a scheme libcurl cannot speak to a proxy with
    /// (`ftp://`), which would otherwise fail every request alike. Names the scheme only, never
    /// the rest (which may hold a password).
    public static func problem(withProxy proxy: String) -> String? {
        guard let separator = proxy.range(of: "://") else {
            return nil
        }
        let scheme = proxy[..<separator.lowerBound].lowercased()
        guard !Self.proxySchemes.contains(scheme) else {
            return nil
        }
        return "the proxy's scheme '\(scheme)' is not one libcurl speaks to a proxy: give http, https, socks4, "
            + "socks4a, socks5 or socks5h"
    }
}
