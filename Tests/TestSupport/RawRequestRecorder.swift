import NIOCore
import NIOPosix
import Synchronization

/// A loopback server that keeps each request's head as the bytes that arrived and answers every
/// request with an empty 200, or the bytes it is given, closing the connection: for what an HTTP
/// parser would refuse to pass on (``TestHTTPServer``'s refuses raw non-ASCII bytes in a request
/// target, and its responses' header values are Strings, so never bytes that are not UTF-8).
package final class RawRequestRecorder: Sendable {
    let group: MultiThreadedEventLoopGroup
    let channel: any Channel
    package let port: Int
    let log = Mutex<[[UInt8]]>([])

    package var baseURL: String { "http://127.0.0.1:\(self.port)" }

    /// Each request's line and header fields, as sent, in arrival order.
    package var heads: [[UInt8]] { self.log.withLock { $0 } }

    /// Each request's first line, as sent.
    package var requestLines: [[UInt8]] {
        self.heads.map { head in Array(head.prefix { $0 != 0x0D && $0 != 0x0A }) }
    }

    private init(group: MultiThreadedEventLoopGroup, channel: any Channel) {
        self.group = group
        self.channel = channel
        self.port = channel.localAddress?.port ?? 0
    }

    /// The answer to every request unless another is given.
    package static let emptyResponse = Array(
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8)

    /// Runs `body` with a started recorder answering every request with `response` (status line,
    /// header fields and body, sent as they are), and always shuts it down.
    package static func with<T>(
        response: [UInt8] = RawRequestRecorder.emptyResponse, _ body: (RawRequestRecorder) async throws -> T
    ) async throws -> T {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let recorder: RawRequestRecorder
        do {
            let box = RecorderBox(response: response)
            let channel = try await ServerBootstrap(group: group)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .childChannelInitializer { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.addHandler(RawRequestHandler(box: box))
                    }
                }
                .bind(host: "127.0.0.1", port: 0)
                .get()
            recorder = RawRequestRecorder(group: group, channel: channel)
            box.recorder.withLock { $0 = recorder }
        } catch {
            try? await group.shutdownGracefully()
            throw error
        }
        do {
            let result = try await body(recorder)
            try await recorder.channel.close()
            try await group.shutdownGracefully()
            return result
        } catch {
            try? await recorder.channel.close()
            try? await group.shutdownGracefully()
            throw error
        }
    }
}

/// Lets connection handlers reach the recorder, which exists only once its channel is bound.
final class RecorderBox: Sendable {
    let recorder = Mutex<RawRequestRecorder?>(nil)
    let response: [UInt8]

    init(response: [UInt8]) {
        self.response = response
    }
}

/// Gathers one request head, records it, answers and closes.
final class RawRequestHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let box: RecorderBox
    private var received: [UInt8] = []

    init(box: RecorderBox) {
        self.box = box
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = self.unwrapInboundIn(data)
        self.received += buffer.readBytes(length: buffer.readableBytes) ?? []
        guard let end = self.endOfHead() else {
            return
        }
        let head = Array(self.received[..<end])
        self.box.recorder.withLock { $0 }?.log.withLock { $0.append(head) }
        context.writeAndFlush(self.wrapOutboundOut(ByteBuffer(bytes: self.box.response))).assumeIsolated().whenComplete
        {
            _ in
            context.close(promise: nil)
        }
    }

    /// Where the head ends (before its blank line), once it has all arrived.
    private func endOfHead() -> Int? {
        guard self.received.count >= 4 else {
            return nil
        }
        return (0...(self.received.count - 4)).first { self.received[$0..<$0 + 4].elementsEqual([13, 10, 13, 10]) }
    }
}
