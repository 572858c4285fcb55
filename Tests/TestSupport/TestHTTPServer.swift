import Dispatch
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 for the tests, in the manner of async-http-client's
/// `HTTPBin`: behaviour is chosen by the request path, and the server counts what it saw
/// (connections, requests in flight, arrivals per path, every request's head) so tests assert
/// from the server's side. It answers through NIO's HTTP/1.1 codec, which frames only what it is
/// given, so the fault routes still send what a well-behaved server would not: a body cut short,
/// one byte a second, headers and then nothing, invalid UTF-8, a body delimited by closing.
///
/// Routes:
/// - `/ok?size=N` — 200 with a JSON body of about N bytes (default 64)
/// - `/status/CODE` — that status, with a short body
/// - `/flaky?key=K&fail=N&status=S&retryAfter=R` — the first N requests for K get S (default 503,
///   with `Retry-After: R` when given), later ones 200
/// - `/throttle?key=K&after=R` — `/flaky?key=K&fail=1&status=429&retryAfter=R` (R default 1)
/// - `/redirect?to=URL&status=S` — S (default 302) to URL (to itself without `to`); `/loop` — 302
///   to itself
/// - `/bytes?n=N&mode=length|chunked|close` — N bytes, framed by Content-Length (the default),
///   chunked, or by closing the connection
/// - `/binary?n=N&seed=S&type=T` — N bytes of every value (never valid UTF-8), as T (image/jpeg)
/// - `/cut?n=N&seed=S&key=K&fail=F` — `/binary` with its full Content-Length but half its bytes
///   (those of seed S + 1), then a closed connection; with K and F, only K's first F requests
/// - `/delay?ms=N` — 200 after N ms
/// - `/hold?until=N&ms=M` — 200 once N `/ok` requests have arrived, or after M ms (default 10 s)
/// - `/doc?size=N&status=S&breaks=1` — a JSON document of about N bytes (``document(size:breaks:)``)
///   with status S (default 200); with `breaks=1` its tokens are separated by CR LF
/// - `/doc/NAME` — a prepared body that is broken in one way (``document(named:)``)
/// - `/hang` — never answers
/// - `/drip` — headers with `Content-Length: 64`, then one byte a second
/// - `/trickle?n=N&ms=M` — headers with `Content-Length: N` (default 10), then one byte every M ms
///   (default 500)
/// - `/headers-then-close` — headers with `Content-Length: 100`, then closes
/// - `/headers` — the request's header fields, one `name: value` per line
/// - `/typed?hex=HEX&type=T&type=T2` — the bytes HEX spells, one `Content-Type` per `type` (none without)
/// - `/request` — the request as JSON: `method`, `target`, `headers` (`[[name, value], …]`),
///   `body` (its first 64 KiB as text) and `bytes` (its whole size; any size is counted, and
///   only its first MiB kept, in ``Arrival/body``)
/// - `/set-cookie?cookie=C` — `/request`, with `Set-Cookie: C`
/// - `/cached?cc=V` — 200 with `Cache-Control: V` and `ETag: "v1"`, a body counting the requests
/// - `/robots.txt` — as ``robots`` says (``RobotsReply``: status, body, failures first, redirects,
///   delay), 404 without one
/// - `/gzip` — `{"compressed":true}`, gzip-encoded (`Content-Encoding: gzip`) when the request's
///   `Accept-Encoding` lists gzip, plain otherwise
package final class TestHTTPServer: Sendable {
    package struct Counters: Sendable {
        package var connectionsAccepted = 0
        package var connectionsClosed = 0
        package var requests = 0
        package var inFlight = 0
        package var maxInFlight = 0
        /// Arrival times (monotonic nanoseconds) per path, with `?key=K` where the request had a key.
        package var arrivals: [String: [UInt64]] = [:]
        package var flakyHits: [String: Int] = [:]
        /// Requests that carried an `Accept-Encoding` field.
        package var acceptingEncodings = 0
    }

    /// One request as it arrived.
    package struct Arrival: Sendable {
        package let target: String
        package let nanoseconds: UInt64
        /// The request line and header fields, one per line, as sent.
        package let head: String
        /// The body's first MiB, and its size.
        package let body: [UInt8]
        package let bodyBytes: Int
    }

    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    package let port: Int
    package let counters = Mutex(Counters())
    /// What `/robots.txt` answers (``RobotsReply``); `nil`: 404.
    package let robots = Mutex<RobotsReply?>(nil)
    private let log = Mutex<[Arrival]>([])
    private let refusals = Mutex<[String: UInt64]>([:])

    /// The loopback address it listens on.
    package let host: String
    package var baseURL: String { "http://\(self.host):\(self.port)" }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel, host: String) {
        self.group = group
        self.channel = channel
        self.host = host
        self.port = channel.localAddress?.port ?? 0
    }

    /// Starts a server on an ephemeral port of `host`, a loopback address (127.0.0.1 by default;
    /// all of 127.0.0.0/8 is loopback on Linux, so 127.0.0.2 and on are hosts of their own).
    package static func start(host: String = "127.0.0.1") async throws -> TestHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = ServerBox()
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        try channel.pipeline.syncOperations.addHandler(TestHTTPHandler(server: box))
                    }
                }
                .bind(host: host, port: 0)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let server = TestHTTPServer(group: group, channel: channel, host: host)
        box.server.withLock { $0 = server }
        return server
    }

    package func shutdown() async throws {
        try await self.channel.close()
        try await self.group.shutdownGracefully()
    }

    /// Runs `body` with a started server and always shuts it down.
    package static func with<T>(
        host: String = "127.0.0.1", _ body: (TestHTTPServer) async throws -> T
    ) async throws -> T {
        let server = try await TestHTTPServer.start(host: host)
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    package var snapshot: Counters { self.counters.withLock { $0 } }

    /// Every request so far, in arrival order.
    package var arrivals: [Arrival] { self.log.withLock { $0 } }

    /// When each `/flaky` or `/throttle` key's first refusal was written (monotonic nanoseconds).
    package var throttleTimes: [String: UInt64] { self.refusals.withLock { $0 } }

    func arrived(_ arrival: Arrival) {
        self.log.withLock { $0.append(arrival) }
    }

    func refused(_ key: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        self.refusals.withLock { times in
            if times[key] == nil {
                times[key] = now
            }
        }
    }
}

/// Lets handlers reach the server object, which exists only after the bind.
final class ServerBox: Sendable {
    let server = Mutex<TestHTTPServer?>(nil)
}
