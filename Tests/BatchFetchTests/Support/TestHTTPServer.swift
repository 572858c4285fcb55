import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import Synchronization

/// A real HTTP/1.1 server on 127.0.0.1 for the engine's tests, in the manner of async-http-client's
/// `HTTPBin`: behaviour is chosen by the request path, and the server counts what it saw
/// (connections, requests in flight, arrivals per path) so tests assert from the server's side.
///
/// Routes:
/// - `/ok?size=N` — 200 with a JSON body of about N bytes (default 64)
/// - `/status/CODE` — that status, with a short body
/// - `/flaky?key=K&fail=N&status=S&retryAfter=R` — the first N requests for K get S (default 503,
///   with `Retry-After: R` when given), later ones 200
/// - `/redirect?to=URL` — 302 to URL (to itself without `to`)
/// - `/bytes?n=N&chunked=1` — N bytes, chunked (no Content-Length) when asked
/// - `/delay?ms=N` — 200 after N ms
/// - `/hold?until=N&ms=M` — 200 once N `/ok` requests have arrived, or after M ms (default 10 s)
/// - `/doc?size=N&status=S&breaks=1` — a JSON document of about N bytes (``document(size:breaks:)``)
///   with status S (default 200); with `breaks=1` its tokens are separated by CR LF
/// - `/hang` — never answers
/// - `/headers` — the request's header fields, one `name: value` per line
/// - `/cached?cc=V` — 200 with `Cache-Control: V` and `ETag: "v1"`, a body counting the requests
/// - `/gzip` — `{"compressed":true}`, gzip-encoded (`Content-Encoding: gzip`) when the request's
///   `Accept-Encoding` lists gzip, plain otherwise
final class TestHTTPServer: Sendable {
    struct Counters: Sendable {
        var connectionsAccepted = 0
        var connectionsClosed = 0
        var requests = 0
        var inFlight = 0
        var maxInFlight = 0
        var arrivals: [String: [UInt64]] = [:]
        var flakyHits: [String: Int] = [:]
        /// Requests that carried an `Accept-Encoding` field.
        var acceptingEncodings = 0
    }

    /// `{"compressed":true}` as gzip (RFC 1952) made it.
    static let gzippedJSON: [UInt8] = [
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0xff, 0xab, 0x56, 0x4a, 0xce, 0xcf, 0x2d, 0x28, 0x4a,
        0x2d, 0x2e, 0x4e, 0x4d, 0x51, 0xb2, 0x2a, 0x29, 0x2a, 0x4d, 0xad, 0x05, 0x00, 0xf1, 0xea, 0x39, 0x95, 0x13,
        0x00, 0x00, 0x00,
    ]

    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    let port: Int
    let counters = Mutex(Counters())

    var baseURL: String { "http://127.0.0.1:\(self.port)" }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.group = group
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    /// Starts a server on an ephemeral loopback port.
    static func start() async throws -> TestHTTPServer {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let box = ServerBox()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(TestHTTPHandler(server: box))
                }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
        let server = TestHTTPServer(group: group, channel: channel)
        box.server.withLock { $0 = server }
        return server
    }

    func shutdown() async throws {
        try await self.channel.close()
        try await self.group.shutdownGracefully()
    }

    var snapshot: Counters { self.counters.withLock { $0 } }

    /// Runs `body` with a started server and always shuts it down.
    static func with<T>(_ body: (TestHTTPServer) async throws -> T) async throws -> T {
        let server = try await TestHTTPServer.start()
        do {
            let result = try await body(server)
            try await server.shutdown()
            return result
        } catch {
            try? await server.shutdown()
            throw error
        }
    }
}

/// Lets handlers reach the server object, which exists only after the bind.
final class ServerBox: Sendable {
    let server = Mutex<TestHTTPServer?>(nil)
}

private final class TestHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let box: ServerBox
    private var head: HTTPRequestHead?

    init(server: ServerBox) {
        self.box = server
    }

    private func counters<T: Sendable>(_ body: (inout TestHTTPServer.Counters) -> T) -> T? {
        self.box.server.withLock { $0 }?.counters.withLock { body(&$0) }
    }

    func channelActive(context: ChannelHandlerContext) {
        _ = self.counters { $0.connectionsAccepted += 1 }
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        _ = self.counters { $0.connectionsClosed += 1 }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.head = head
        case .body:
            break
        case .end:
            guard let head = self.head else {
                return
            }
            self.head = nil
            self.handle(context: context, head: head)
        }
    }

    private func handle(context: ChannelHandlerContext, head: HTTPRequestHead) {
        let now = DispatchTime.now().uptimeNanoseconds
        let components = URLComponents(string: head.uri)
        let path = components?.path ?? head.uri
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        _ = self.counters { c in
            c.requests += 1
            c.inFlight += 1
            c.maxInFlight = max(c.maxInFlight, c.inFlight)
            c.arrivals[path + (query["key"].map { "?key=" + $0 } ?? ""), default: []].append(now)
            c.acceptingEncodings += head.headers.contains(name: "Accept-Encoding") ? 1 : 0
        }
        let loop = context.eventLoop.assumeIsolated()
        switch path {
        case "/ok":
            let size = Int(query["size"] ?? "") ?? 64
            let filler = String(repeating: "x", count: max(0, size - 11))
            self.respond(context: context, status: .ok, body: "{\"data\":\"\(filler)\"}", type: "application/json")
        case let p where p.hasPrefix("/status/"):
            let code = Int(p.dropFirst("/status/".count)) ?? 500
            self.respond(context: context, status: HTTPResponseStatus(statusCode: code), body: "status \(code)")
        case "/flaky":
            let key = query["key"] ?? ""
            let fail = Int(query["fail"] ?? "") ?? 1
            let hits =
                self.counters { c -> Int in
                    c.flakyHits[key, default: 0] += 1
                    return c.flakyHits[key, default: 0]
                } ?? 0
            if hits <= fail {
                var extra: [(String, String)] = []
                if let retryAfter = query["retryAfter"] {
                    extra.append(("Retry-After", retryAfter))
                }
                let status = Int(query["status"] ?? "") ?? 503
                self.respond(
                    context: context, status: HTTPResponseStatus(statusCode: status), body: "try later", headers: extra)
            } else {
                self.respond(
                    context: context, status: .ok, body: "{\"ok\":true,\"hits\":\(hits)}", type: "application/json")
            }
        case "/redirect":
            self.respond(
                context: context, status: .found, body: "", headers: [("Location", query["to"] ?? "/redirect")])
        case "/bytes":
            let count = Int(query["n"] ?? "") ?? 0
            self.respondBytes(context: context, count: count, chunked: query["chunked"] == "1")
        case "/binary":
            // Every byte value, so never valid UTF-8: what a JPEG or a ZIP looks like to a text decoder.
            let count = Int(query["n"] ?? "") ?? 1000
            let seed = Int(query["seed"] ?? "") ?? 0
            self.respondBinary(context: context, count: count, seed: seed, type: query["type"] ?? "image/jpeg")
        case "/cut":
            // `/binary` cut short: its full Content-Length, half its bytes (those of seed + 1), then
            // the connection closed. With `key` and `fail`, only that key's first `fail` requests.
            let count = Int(query["n"] ?? "") ?? 1000
            let seed = Int(query["seed"] ?? "") ?? 0
            let fail = Int(query["fail"] ?? "") ?? Int.max
            let key = "cut:" + (query["key"] ?? "")
            let hits =
                self.counters { c -> Int in
                    c.flakyHits[key, default: 0] += 1
                    return c.flakyHits[key, default: 0]
                } ?? 0
            let cut = hits <= fail
            self.respondBinary(
                context: context, count: count, seed: cut ? seed + 1 : seed, type: "image/jpeg",
                cutAt: cut ? count / 2 : nil)
        case "/delay":
            let ms = Int64(query["ms"] ?? "") ?? 100
            loop.scheduleTask(in: .milliseconds(ms)) {
                self.respond(context: context, status: .ok, body: "{\"delayed\":\(ms)}", type: "application/json")
            }
        case "/hold":
            let until = Int(query["until"] ?? "") ?? 0
            let deadline = now + UInt64(Int(query["ms"] ?? "") ?? 10_000) * 1_000_000
            self.hold(context: context, until: until, deadline: deadline)
        case "/doc":
            let size = Int(query["size"] ?? "") ?? 64
            let status = Int(query["status"] ?? "") ?? 200
            self.respond(
                context: context, status: HTTPResponseStatus(statusCode: status),
                body: TestHTTPServer.document(size: size, breaks: query["breaks"] == "1"), type: "application/json")
        case "/hang":
            break
        case "/cached":
            let count = self.counters { $0.arrivals["/cached"]?.count ?? 0 } ?? 0
            self.respond(
                context: context, status: .ok, body: "{\"served\":\(count)}", type: "application/json",
                headers: [("Cache-Control", query["cc"] ?? ""), ("ETag", "\"v1\"")])
        case "/gzip":
            let accepted = head.headers["Accept-Encoding"].joined(separator: ",").lowercased()
            if accepted.contains("gzip") {
                self.respond(
                    context: context, status: .ok, body: ByteBuffer(bytes: TestHTTPServer.gzippedJSON),
                    type: "application/json", headers: [("Content-Encoding", "gzip")])
            } else {
                self.respond(context: context, status: .ok, body: "{\"compressed\":true}", type: "application/json")
            }
        case "/headers":
            let lines = head.headers.map { "\($0.name.lowercased()): \($0.value)" }.joined(separator: "\n")
            self.respond(context: context, status: .ok, body: lines)
        default:
            self.respond(context: context, status: .notFound, body: "not found")
        }
    }

    /// Answers once `until` `/ok` requests have arrived or at `deadline`, checking every 2 ms.
    private func hold(context: ChannelHandlerContext, until: Int, deadline: UInt64) {
        let served = self.counters { $0.arrivals["/ok"]?.count ?? 0 } ?? 0
        if served >= until || DispatchTime.now().uptimeNanoseconds >= deadline {
            self.respond(context: context, status: .ok, body: "{\"held\":\(served)}", type: "application/json")
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(2)) {
            self.hold(context: context, until: until, deadline: deadline)
        }
    }

    private func respond(
        context: ChannelHandlerContext,
        status: HTTPResponseStatus,
        body: String,
        type: String = "text/plain",
        headers extra: [(String, String)] = []
    ) {
        self.respond(context: context, status: status, body: ByteBuffer(string: body), type: type, headers: extra)
    }

    private func respond(
        context: ChannelHandlerContext,
        status: HTTPResponseStatus,
        body: ByteBuffer,
        type: String,
        headers extra: [(String, String)]
    ) {
        var headers = HTTPHeaders([("Content-Type", type), ("Content-Length", String(body.readableBytes))])
        for (name, value) in extra {
            headers.add(name: name, value: value)
        }
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        self.end(context: context)
    }

    /// `count` bytes of every value from `seed` on; with `cutAt`, only that many, then a closed connection.
    private func respondBinary(context: ChannelHandlerContext, count: Int, seed: Int, type: String, cutAt: Int? = nil) {
        let start = UInt8(truncatingIfNeeded: seed)
        let body = (0..<(cutAt ?? count)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(start)) }
        let headers = NIOHTTP1.HTTPHeaders([("Content-Type", type), ("Content-Length", "\(count)")])
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
            promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        guard cutAt != nil else {
            self.end(context: context)
            return
        }
        _ = self.counters { $0.inFlight -= 1 }
        context.flush()
        context.close(promise: nil)
    }

    private func respondBytes(context: ChannelHandlerContext, count: Int, chunked: Bool) {
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream")])
        if chunked {
            headers.add(name: "Transfer-Encoding", value: "chunked")
        } else {
            headers.add(name: "Content-Length", value: String(count))
        }
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
            promise: nil)
        var remaining = count
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 64 * 1024)
        while remaining > 0 {
            let n = min(remaining, chunk.readableBytes)
            context.write(
                self.wrapOutboundOut(.body(.byteBuffer(chunk.getSlice(at: 0, length: n) ?? chunk))), promise: nil)
            remaining -= n
        }
        self.end(context: context)
    }

    private func end(context: ChannelHandlerContext) {
        _ = self.counters { $0.inFlight -= 1 }
        context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
    }
}

extension TestHTTPServer {
    /// The body of `/doc`: an object whose values (a number, strings, `null`, a nested list) add
    /// up to at least `size` bytes; with `breaks`, CR LF between its tokens.
    static func document(size: Int, breaks: Bool) -> String {
        let gap = breaks ? "\r\n" : ""
        var items: [String] = []
        var length = 0
        while length < size {
            let item = "{\(gap)\"n\":\(items.count),\(gap)\"name\":\"drink \(items.count)\",\"note\":null}"
            items.append(item)
            length += item.utf8.count + 1
        }
        return "{\"size\":\(size),\(gap)\"items\":[\(items.joined(separator: ",\(gap)"))]\(gap)}"
    }
}
