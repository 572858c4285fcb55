import Foundation
import NIOCore
import NIOHTTP1
import Synchronization

/// Serves ``TestHTTPServer``'s routes on one connection.
final class TestHTTPHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    let box: ServerBox
    private var head: HTTPRequestHead?
    /// The request body's first ``keptBodyBytes``, and how many bytes it had in all: a body of
    /// gigabytes is counted, not held.
    private var body: [UInt8] = []
    private var bodyBytes = 0
    static let keptBodyBytes = 1 << 20

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
            self.body = []
            self.bodyBytes = 0
        case .body(let buffer):
            self.bodyBytes += buffer.readableBytes
            let room = Self.keptBodyBytes - self.body.count
            if room > 0 {
                // Copied as one block: byte by byte, a debug build took seconds per MiB.
                buffer.withUnsafeReadableBytes { self.body.append(contentsOf: $0.prefix(room)) }
            }
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
        self.box.server.withLock { $0 }?.arrived(
            TestHTTPServer.Arrival(
                target: head.uri, nanoseconds: now, head: Self.text(of: head), body: self.body,
                bodyBytes: self.bodyBytes))
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
            self.flaky(
                context: context, key: query["key"] ?? "", fail: Int(query["fail"] ?? "") ?? 1,
                status: Int(query["status"] ?? "") ?? 503, retryAfter: query["retryAfter"])
        case "/throttle":
            self.flaky(
                context: context, key: query["key"] ?? "", fail: 1, status: 429, retryAfter: query["after"] ?? "1")
        case "/redirect", "/loop":
            let status = HTTPResponseStatus(statusCode: Int(query["status"] ?? "") ?? 302)
            self.respond(context: context, status: status, body: "", headers: [("Location", query["to"] ?? path)])
        case "/bytes":
            let count = Int(query["n"] ?? "") ?? 0
            self.respondBytes(
                context: context, count: count, framing: Framing(rawValue: query["mode"] ?? "") ?? .length)
        case "/echo":
            self.respond(context: context, status: .ok, body: query["text"] ?? "", type: query["type"] ?? "text/plain")
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
            var ms = Int64(query["ms"] ?? "") ?? 100
            if let key = query["once"] {
                // Only the first request with this key waits: a run stopped while it waited,
                // then resumed, gets its answer at once.
                let hits =
                    self.counters { c -> Int in
                        c.flakyHits["delay:" + key, default: 0] += 1
                        return c.flakyHits["delay:" + key, default: 0]
                    } ?? 1
                ms = hits > 1 ? 0 : ms
            }
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
        case let p where p.hasPrefix("/doc/"):
            self.respond(
                context: context, status: .ok,
                body: ByteBuffer(bytes: TestHTTPServer.document(named: String(p.dropFirst(5)))),
                type: "application/json", headers: [])
        case "/hang":
            break
        case "/drip":
            self.drip(context: context, remaining: 64)
        case "/trickle":
            let every = Int64(query["ms"] ?? "") ?? 500
            self.drip(context: context, remaining: Int(query["n"] ?? "") ?? 10, every: .milliseconds(every))
        case "/resumable":
            self.resumable(context: context, head: head, query: query)
        case "/headers-then-close":
            self.headersThenClose(context: context, contentLength: 100)
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
        case "/brotli":
            self.respond(
                context: context, status: .ok, body: ByteBuffer(bytes: TestHTTPServer.brotliJSON),
                type: "application/json", headers: [("Content-Encoding", "br")])
        case "/typed":
            self.respondTyped(context: context, items: components?.queryItems ?? [])
        case "/headers":
            let lines = head.headers.map { "\($0.name.lowercased()): \($0.value)" }.joined(separator: "\n")
            self.respond(context: context, status: .ok, body: lines)
        case "/request":
            self.respond(context: context, status: .ok, body: self.echo(head), type: "application/json")
        case "/robots.txt":
            self.robots(context: context, query: query)
        case "/set-cookie":
            self.respond(
                context: context, status: .ok, body: self.echo(head), type: "application/json",
                headers: [("Set-Cookie", query["cookie"] ?? "")])
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

    func respond(
        context: ChannelHandlerContext,
        status: HTTPResponseStatus,
        body: String,
        type: String = "text/plain",
        headers extra: [(String, String)] = []
    ) {
        self.respond(context: context, status: status, body: ByteBuffer(string: body), type: type, headers: extra)
    }

    func respond(
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

    /// Ends the response; with `closing`, closes the connection once the response has left.
    func end(context: ChannelHandlerContext, closing: Bool = false) {
        _ = self.counters { $0.inFlight -= 1 }
        if closing {
            self.writeAndClose(.end(nil), context: context)
        } else {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        }
    }

    /// Writes `part`, then closes the connection once it has left.
    func writeAndClose(_ part: HTTPServerResponsePart, context: ChannelHandlerContext) {
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(self.wrapOutboundOut(part), promise: written)
        written.futureResult.assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    /// The request as JSON: `method`, `target`, `headers` (`[[name, value], …]` in order),
    /// `body` (its first 64 KiB as text, invalid UTF-8 repaired: the server's log has more) and
    /// `bytes` (its size).
    private func echo(_ head: HTTPRequestHead) -> String {
        let object: [String: Any] = [
            "method": head.method.rawValue, "target": head.uri,
            "headers": head.headers.map { [$0.name, $0.value] },
            "body": String(decoding: self.body.prefix(1 << 16), as: UTF8.self), "bytes": self.bodyBytes,
        ]
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self)
    }

    /// The request line and header fields, one per line, as the client sent them.
    private static func text(of head: HTTPRequestHead) -> String {
        let fields = head.headers.map { "\($0.name): \($0.value)" }
        return (["\(head.method.rawValue) \(head.uri) \(head.version)"] + fields).joined(separator: "\r\n")
    }
}
