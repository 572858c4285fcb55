import Dispatch
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// An HTTP/1.1 server on 127.0.0.1 that misbehaves on purpose. It speaks raw bytes (no HTTP codec),
/// so it can send what a real codec would refuse to: a body cut short, a body one byte a second,
/// headers and then nothing, invalid UTF-8. Behaviour is chosen by the path; every request's
/// arrival is timestamped so tests assert from the server's side.
///
/// Routes (query `n` is a byte count):
/// - `/ok` — 200 `{"ok":true}`
/// - `/doc/NAME` — 200 `application/json` with a prepared body: `nonjson`, `truncated`, `deep`
///   (10,000 nested arrays), `badutf8`, `empty`, `good`
/// - `/big?n=N&mode=length|close|chunked` — N bytes with Content-Length, delimited by close, or chunked
/// - `/hang` — reads the request, never answers
/// - `/drip` — headers with `Content-Length: 64`, then one byte a second
/// - `/headers-then-close` — headers with `Content-Length: 100`, then closes
/// - `/redirect?to=URL` — 302 to URL; `/loop` — 302 to itself
/// - `/throttle?key=K&after=VALUE` — the first request for K gets 429 with `Retry-After: VALUE`, later ones 200
final class HostileServer: Sendable {
    struct Arrival: Sendable {
        let target: String
        let nanoseconds: UInt64
        /// The request line and header fields, as sent.
        let head: String
    }

    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    let port: Int
    private let log = Mutex<[Arrival]>([])
    private let throttled = Mutex<[String: UInt64]>([:])

    var baseURL: String { "http://127.0.0.1:\(self.port)" }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.group = group
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    /// Every request so far, in arrival order.
    var arrivals: [Arrival] { self.log.withLock { $0 } }

    /// When each throttled key's 429 was written (monotonic nanoseconds).
    var throttleTimes: [String: UInt64] { self.throttled.withLock { $0 } }

    static func with<T>(_ body: (HostileServer) async throws -> T) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let shared = SharedBox()
        let channel: any Channel
        do {
            channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.backlog, value: 256)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RawHandler(server: shared))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        let server = HostileServer(group: group, channel: channel)
        shared.set(server)
        do {
            let result = try await body(server)
            try? await channel.close()
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await channel.close()
            try? await group.shutdownGracefully()
            throw error
        }
    }

    fileprivate func arrived(_ target: String, head: String) -> UInt64 {
        let now = DispatchTime.now().uptimeNanoseconds
        self.log.withLock { $0.append(Arrival(target: target, nanoseconds: now, head: head)) }
        return now
    }

    /// Whether this is the first request for `key` (then its 429 time is recorded).
    fileprivate func throttleFirst(_ key: String) -> Bool {
        self.throttled.withLock { times in
            guard times[key] == nil else {
                return false
            }
            times[key] = DispatchTime.now().uptimeNanoseconds
            return true
        }
    }

    /// The prepared bodies of `/doc/NAME`.
    static func document(_ name: String) -> [UInt8] {
        switch name {
        case "nonjson": Array("<html><body>Service Unavailable</body></html>".utf8)
        case "truncated": Array(#"{"drinks":[{"idDrink":"1","strDrink":"Mar"#.utf8)
        case "deep":
            Array(#"{"drinks":"#.utf8) + Array(repeating: UInt8(ascii: "["), count: 10_000)
                + Array(repeating: UInt8(ascii: "]"), count: 10_000) + [UInt8(ascii: "}")]
        case "badutf8": Array(#"{"drinks":[{"strDrink":""#.utf8) + [0xFF, 0xFE, 0xC3] + Array(#""}]}"#.utf8)
        case "empty": []
        default: Array(#"{"drinks":[{"idDrink":"1","strDrink":"Margarita"}]}"#.utf8)
        }
    }
}

private final class SharedBox: Sendable {
    private let box = Mutex<HostileServer?>(nil)

    func set(_ server: HostileServer) {
        self.box.withLock { $0 = server }
    }

    var server: HostileServer? { self.box.withLock { $0 } }
}

private final class RawHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let shared: SharedBox
    private var pending: [UInt8] = []
    private var busy = false

    init(server: SharedBox) {
        self.shared = server
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = self.unwrapInboundIn(data)
        self.pending.append(contentsOf: buffer.readBytes(length: buffer.readableBytes) ?? [])
        self.serveNext(context: context)
    }

    private func serveNext(context: ChannelHandlerContext) {
        guard !self.busy, let end = Self.headEnd(self.pending) else {
            return
        }
        let head = String(decoding: self.pending[..<end], as: UTF8.self)
        self.pending.removeSubrange(..<(end + 4))
        let target = head.split(separator: " ", maxSplits: 2).dropFirst().first.map(String.init) ?? "/"
        guard let server = self.shared.server else {
            context.close(promise: nil)
            return
        }
        _ = server.arrived(target, head: head)
        self.busy = true
        self.serve(target: target, server: server, context: context)
    }

    private static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else {
            return nil
        }
        for index in 0...(bytes.count - 4)
        where bytes[index] == 13 && bytes[index + 1] == 10 && bytes[index + 2] == 13 && bytes[index + 3] == 10 {
            return index
        }
        return nil
    }

    private func serve(target: String, server: HostileServer, context: ChannelHandlerContext) {
        let components = URLComponents(string: target)
        let path = components?.path ?? target
        var query: [String: String] = [:]
        for item in components?.queryItems ?? [] {
            query[item.name] = item.value ?? ""
        }
        switch path {
        case "/ok":
            self.respond(context, status: "200 OK", body: Array(#"{"ok":true}"#.utf8))
        case let p where p.hasPrefix("/doc/"):
            self.respond(context, status: "200 OK", body: HostileServer.document(String(p.dropFirst(5))))
        case "/big":
            self.big(context, count: Int(query["n"] ?? "") ?? 0, mode: query["mode"] ?? "length")
        case "/hang":
            break
        case "/drip":
            self.write(context, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 64\r\n\r\n")
            self.drip(context, remaining: 64)
        case "/headers-then-close":
            self.write(context, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n")
            context.close(promise: nil)
        case "/redirect":
            self.respond(context, status: "302 Found", body: [], extra: "Location: \(query["to"] ?? "/redirect")\r\n")
        case "/loop":
            self.respond(context, status: "302 Found", body: [], extra: "Location: /loop\r\n")
        case "/throttle":
            if server.throttleFirst(query["key"] ?? "") {
                self.respond(
                    context, status: "429 Too Many Requests", body: Array("slow down".utf8),
                    extra: "Retry-After: \(query["after"] ?? "1")\r\n", type: "text/plain")
            } else {
                self.respond(context, status: "200 OK", body: Array(#"{"ok":true}"#.utf8))
            }
        default:
            self.respond(context, status: "404 Not Found", body: Array("not found".utf8), type: "text/plain")
        }
    }

    private func write(_ context: ChannelHandlerContext, _ text: String) {
        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(string: text)), promise: nil)
    }

    private func respond(
        _ context: ChannelHandlerContext, status: String, body: [UInt8], extra: String = "",
        type: String = "application/json"
    ) {
        var bytes = Array(
            "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.count)\r\n\(extra)\r\n".utf8)
        bytes += body
        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: bytes)), promise: nil)
        self.busy = false
        self.serveNext(context: context)
    }

    private func big(_ context: ChannelHandlerContext, count: Int, mode: String) {
        let chunk = [UInt8](repeating: UInt8(ascii: "a"), count: 64 * 1024)
        switch mode {
        case "chunked":
            self.write(context, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n")
        case "close":
            self.write(context, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
        default:
            self.write(context, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: \(count)\r\n\r\n")
        }
        var remaining = count
        while remaining > 0 {
            let n = min(remaining, chunk.count)
            var piece: [UInt8] = []
            if mode == "chunked" {
                piece += Array((String(n, radix: 16) + "\r\n").utf8)
            }
            piece += chunk[..<n]
            if mode == "chunked" {
                piece += Array("\r\n".utf8)
            }
            context.write(self.wrapOutboundOut(ByteBuffer(bytes: piece)), promise: nil)
            remaining -= n
        }
        if mode == "chunked" {
            context.write(self.wrapOutboundOut(ByteBuffer(string: "0\r\n\r\n")), promise: nil)
        }
        context.flush()
        if mode == "close" {
            context.close(promise: nil)
        } else {
            self.busy = false
        }
    }

    private func drip(_ context: ChannelHandlerContext, remaining: Int) {
        guard remaining > 0, context.channel.isActive else {
            return
        }
        let loop = context.eventLoop.assumeIsolated()
        loop.scheduleTask(in: .seconds(1)) {
            self.write(context, " ")
            self.drip(context, remaining: remaining - 1)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
