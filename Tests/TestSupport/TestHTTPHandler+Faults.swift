import NIOCore
import NIOHTTP1

/// The routes that misbehave: refusals, bodies in every framing, and responses that stall or stop.
extension TestHTTPHandler {
    /// How `/bytes` delimits its body.
    enum Framing: String {
        /// `Content-Length`.
        case length
        /// `Transfer-Encoding: chunked`, 64 KiB a chunk.
        case chunked
        /// Neither: an HTTP/1.0 response whose body ends when the server closes the connection.
        case close
    }

    /// The first `fail` requests for `key` get `status` (with `Retry-After: retryAfter` when
    /// given), later ones 200; the first refusal's time is recorded.
    func flaky(context: ChannelHandlerContext, key: String, fail: Int, status: Int, retryAfter: String?) {
        let server = self.box.server.withLock { $0 }
        let hits =
            server?.counters.withLock { c -> Int in
                c.flakyHits[key, default: 0] += 1
                return c.flakyHits[key, default: 0]
            } ?? 0
        if hits <= fail {
            server?.refused(key)
            let extra = retryAfter.map { [("Retry-After", $0)] } ?? []
            self.respond(
                context: context, status: HTTPResponseStatus(statusCode: status), body: "try later", headers: extra)
        } else {
            self.respond(
                context: context, status: .ok, body: "{\"ok\":true,\"hits\":\(hits)}", type: "application/json")
        }
    }

    /// `count` bytes of `a`, delimited by `framing`.
    func respondBytes(context: ChannelHandlerContext, count: Int, framing: Framing) {
        var headers = HTTPHeaders([("Content-Type", "application/octet-stream")])
        var version = HTTPVersion.http1_1
        switch framing {
        case .length: headers.add(name: "Content-Length", value: String(count))
        case .chunked: headers.add(name: "Transfer-Encoding", value: "chunked")
        case .close:
            // NIO's encoder frames an HTTP/1.1 body without a length as chunked; HTTP/1.0 it leaves alone.
            version = .http1_0
            headers.add(name: "Connection", value: "close")
        }
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: version, status: .ok, headers: headers))),
            promise: nil)
        var remaining = count
        let chunk = ByteBuffer(repeating: UInt8(ascii: "a"), count: 64 * 1024)
        while remaining > 0 {
            let n = min(remaining, chunk.readableBytes)
            context.write(
                self.wrapOutboundOut(.body(.byteBuffer(chunk.getSlice(at: 0, length: n) ?? chunk))), promise: nil)
            remaining -= n
        }
        self.end(context: context, closing: framing == .close)
    }

    /// Headers promising 64 bytes, then one byte a second.
    func drip(context: ChannelHandlerContext, remaining: Int, every interval: TimeAmount = .seconds(1)) {
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", String(remaining))])
        context.writeAndFlush(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
            promise: nil)
        self.dripByte(context: context, remaining: remaining, every: interval)
    }

    private func dripByte(context: ChannelHandlerContext, remaining: Int, every interval: TimeAmount) {
        guard context.channel.isActive else {
            return
        }
        guard remaining > 0 else {
            self.end(context: context)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(string: " ")))), promise: nil)
            self.dripByte(context: context, remaining: remaining - 1, every: interval)
        }
    }

    /// Headers promising `contentLength` bytes, then the connection closes.
    func headersThenClose(context: ChannelHandlerContext, contentLength: Int) {
        let headers = HTTPHeaders([("Content-Type", "application/json"), ("Content-Length", String(contentLength))])
        self.writeAndClose(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers)), context: context)
    }
}
