import NIOCore
import NIOHTTP1

/// `/resumable`: a download that breaks off once, and answers `Range` as servers do.
extension TestHTTPHandler {
    /// `size` bytes (`text/plain`). The first request for `key` gets `Content-Length: size`, the
    /// first `cut` bytes and a closed connection. Later ones with `Range: bytes=N-` get `206` and
    /// the rest when `If-Range` matches the entity's validator (or is absent), the whole entity
    /// otherwise. `validator`: `etag` (default), `weak`, `lm` (Last-Modified) or `none`;
    /// `changed=1`: the ETag differs after the first request; `skew=N`: ranges start N bytes early.
    func resumable(context: ChannelHandlerContext, head: HTTPRequestHead, query: [String: String]) {
        let size = Int(query["size"] ?? "") ?? 200_000
        let cut = Int(query["cut"] ?? "") ?? size / 2
        let key = "resumable:" + (query["key"] ?? "")
        let hits =
            self.box.server.withLock { $0 }?.counters.withLock { c -> Int in
                c.flakyHits[key, default: 0] += 1
                return c.flakyHits[key, default: 0]
            } ?? 0
        let etag = query["changed"] == "1" && hits > 1 ? "\"v2\"" : "\"v1\""
        var headers = HTTPHeaders([("Content-Type", "text/plain"), ("Accept-Ranges", "bytes")])
        let validator: String?
        switch query["validator"] ?? "etag" {
        case "weak": validator = "W/" + etag
        case "lm": validator = "Tue, 03 Nov 2026 10:00:00 GMT"
        case "none": validator = nil
        default: validator = etag
        }
        if let validator {
            headers.add(
                name: validator.hasPrefix("\"") || validator.hasPrefix("W/") ? "ETag" : "Last-Modified",
                value: validator)
        }
        var start = 0
        var status = HTTPResponseStatus.ok
        if let range = head.headers["Range"].first, range.hasPrefix("bytes="), range.hasSuffix("-"),
            let from = Int(range.dropFirst(6).dropLast()), from < size
        {
            let condition = head.headers["If-Range"].first
            if condition == nil || condition == validator {
                // `skew=N`: a faulty server that sends its range N bytes early.
                start = max(0, from - (Int(query["skew"] ?? "") ?? 0))
                status = .partialContent
                headers.add(name: "Content-Range", value: "bytes \(start)-\(size - 1)/\(size)")
            }
        }
        let end = hits == 1 ? min(cut, size) : size
        headers.add(name: "Content-Length", value: String(size - start))
        var body = ByteBuffer()
        body.writeBytes((start..<end).map(TestHTTPServer.resumableByte))
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
            promise: nil)
        if hits == 1 {
            _ = self.box.server.withLock { $0 }?.counters.withLock { $0.inFlight -= 1 }
            self.writeAndClose(.body(.byteBuffer(body)), context: context)
            return
        }
        context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        self.end(context: context)
    }
}

extension TestHTTPServer {
    /// Byte `i` of `/resumable`'s entity: letters in a cycle of 23, so a splice at a wrong offset
    /// shows.
    package static func resumableByte(_ i: Int) -> UInt8 { UInt8(ascii: "a") + UInt8(i % 23) }
}
