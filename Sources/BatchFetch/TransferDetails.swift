import Foundation

/// What the engine learned about the transfer behind a result beyond its ``Response``: the
/// redirects it followed, the address and TLS session of its connection, the timings of a final
/// attempt that failed, and each attempt's outcome. Gathered only when asked for
/// (``Engine/Configuration/details``); a result carries it as ``FetchResult/details``.
///
/// Everything but ``attempts`` describes the final attempt. Results that shared another's transfer
/// (``FetchResult/sharedWith``) carry that transfer's details, as they carry its response.
///
/// Threading: the engine thread fills it in while the transfer runs and hands it over with the
/// result; from then on it is only read, on any thread.
public final class TransferDetails: @unchecked Sendable {
    /// Which details the engine gathers.
    public struct Kinds: OptionSet, Sendable, Hashable {
        public let rawValue: Int

        /// Creates a set of kinds from its bits.
        public init(rawValue: Int) {
            self.rawValue = rawValue
        }

        /// ``TransferDetails/redirects`` and ``TransferDetails/finalURL``.
        public static let redirects = Kinds(rawValue: 1 << 0)
        /// ``TransferDetails/remote``.
        public static let remote = Kinds(rawValue: 1 << 1)
        /// ``TransferDetails/tls``: read from the connection's TLS session as each response starts.
        public static let tls = Kinds(rawValue: 1 << 2)
        /// ``TransferDetails/timings``, for a final attempt that failed too (a response has its own).
        public static let timings = Kinds(rawValue: 1 << 3)
        /// ``TransferDetails/attempts``.
        public static let attempts = Kinds(rawValue: 1 << 4)
        /// ``TransferDetails/exchanges``: every request and response as they went over the wire,
        /// bodies included (content decoding is then the engine's, not libcurl's, and every
        /// redirect is followed hop by hop). For archives; not part of ``all``.
        public static let exchanges = Kinds(rawValue: 1 << 5)
        /// Every kind but ``exchanges``.
        public static let all: Kinds = [.redirects, .remote, .tls, .timings, .attempts]
    }

    /// One redirect followed: the URL that answered with it and its status.
    public struct Redirect: Sendable, Hashable {
        /// The URL requested (the request's own for the first hop; each later one as libcurl
        /// resolved the previous hop's `Location`).
        public var url: String
        /// The 3xx status it answered with.
        public var status: Int

        /// Creates a value (the engine does this; public for tests).
        public init(url: String, status: Int) {
            self.url = url
            self.status = status
        }
    }

    /// Where the final attempt's connection went.
    public struct Remote: Sendable, Hashable {
        /// The IP address connected to (`CURLINFO_PRIMARY_IP`).
        public var address: String
        /// The port connected to.
        public var port: Int
        /// The HTTP version the response came over; `nil` when none arrived.
        public var httpVersion: HTTPVersion?
        /// Whether the attempt reused a connection opened before (it opened none).
        public var reusedConnection: Bool

        /// Creates a value (the engine does this; public for tests).
        public init(address: String, port: Int, httpVersion: HTTPVersion?, reusedConnection: Bool) {
            self.address = address
            self.port = port
            self.httpVersion = httpVersion
            self.reusedConnection = reusedConnection
        }
    }

    /// The TLS session of the connection the final response came over.
    public struct TLS: Sendable, Hashable {
        /// The protocol version, as OpenSSL names it (`TLSv1.3`).
        public var version: String
        /// The cipher suite, as OpenSSL names it (`TLS_AES_256_GCM_SHA384`); empty when unknown.
        public var cipher: String
        /// When the server's certificate expires (its notAfter); `nil` when it sent none.
        public var certificateExpiry: Date?

        /// Creates a value (the engine does this; public for tests).
        public init(version: String, cipher: String, certificateExpiry: Date?) {
            self.version = version
            self.cipher = cipher
            self.certificateExpiry = certificateExpiry
        }
    }

    /// One attempt's outcome.
    public struct Attempt: Sendable, Hashable {
        /// The status that arrived, also when the attempt then failed (a timeout mid-body).
        public var status: Int?
        /// Why the attempt failed; `nil` when a response arrived whole, whatever its status.
        public var error: FetchError?
        /// The delay the server asked for (`Retry-After` on a 429, 503 or redirect).
        public var retryAfter: Duration?
        /// How long the attempt took (libcurl's total); `nil` when it never reached libcurl.
        public var time: Duration?

        /// Creates a value (the engine does this; public for tests).
        public init(status: Int?, error: FetchError?, retryAfter: Duration?, time: Duration?) {
            self.status = status
            self.error = error
            self.retryAfter = retryAfter
            self.time = time
        }
    }

    /// The redirects the final attempt followed, in order; empty when it followed none.
    public internal(set) var redirects: [Redirect] = []
    /// The URL of the final attempt's last response, or the one it failed at; `nil` when the
    /// redirects were not asked for.
    public internal(set) var finalURL: String?
    /// Where the final attempt connected; `nil` when libcurl names no address (the attempt
    /// connected nowhere: a name that did not resolve, a connection refused) or this was not
    /// asked for.
    public internal(set) var remote: Remote?
    /// The final response's TLS session; `nil` over plain HTTP, when libcurl's TLS library is not
    /// the OpenSSL this process loads, or when this was not asked for.
    public internal(set) var tls: TLS?
    /// The final attempt's timings, whether it succeeded or failed; `nil` when it never reached
    /// libcurl.
    public internal(set) var timings: Timings?
    /// Every exchange of every attempt, redirect hops included, in the order they happened (with
    /// ``Kinds/exchanges``); an attempt that got no response has none.
    public internal(set) var exchanges: [Exchange] = []
    /// Every attempt of the transfer, in order (with ``Kinds/attempts``).
    public var attempts: [Attempt] {
        self.attemptCount == 0 ? [] : [self.firstAttempt] + self.laterAttempts
    }

    /// The first attempt is kept in place and only retries in an array: most transfers make one
    /// attempt, and the engine thread then allocates nothing more than this box for it.
    private var firstAttempt = Attempt(status: nil, error: nil, retryAfter: nil, time: nil)
    private var laterAttempts: [Attempt] = []
    private var attemptCount = 0

    init() {}

    /// Adds an attempt's outcome (engine thread, before the result is handed over).
    func append(_ attempt: Attempt) {
        if self.attemptCount == 0 {
            self.firstAttempt = attempt
        } else {
            self.laterAttempts.append(attempt)
        }
        self.attemptCount += 1
    }

    /// Calls `body` with each attempt in order, without the array ``attempts`` builds.
    package func forEachAttempt(_ body: (Attempt) -> Void) {
        if self.attemptCount > 0 {
            body(self.firstAttempt)
            self.laterAttempts.forEach(body)
        }
    }
}
