import Foundation
import NIOCore
import NIOHTTP1

extension TestHTTPHandler {
    /// `/typed`: the bytes `hex` spells, with one `Content-Type` field per `type` item, in order
    /// (none without), for what a record makes of a declared type and charset, or of two types.
    func respondTyped(context: ChannelHandlerContext, items: [URLQueryItem]) {
        let hex = Array((items.first { $0.name == "hex" }?.value ?? "").utf8)
        var body: [UInt8] = []
        var index = 0
        while index + 1 < hex.count,
            let byte = UInt8(String(decoding: hex[index...index + 1], as: UTF8.self), radix: 16)
        {
            body.append(byte)
            index += 2
        }
        var headers = NIOHTTP1.HTTPHeaders()
        for item in items where item.name == "type" {
            headers.add(name: "Content-Type", value: item.value ?? "")
        }
        headers.add(name: "Content-Length", value: String(body.count))
        context.write(
            self.wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: .ok, headers: headers))),
            promise: nil)
        context.write(self.wrapOutboundOut(.body(.byteBuffer(ByteBuffer(bytes: body)))), promise: nil)
        self.end(context: context)
    }
}
