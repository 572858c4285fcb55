import NIOCore
import NIOPosix

/// A bare TCP client: writes raw request bytes and collects every byte until the server closes.
///
/// For what curl hides: pipelined requests, a connection closed mid-body, a close with no reply.
enum RawHTTPClient {
    struct Outcome: Sendable {
        /// Everything the server sent.
        var bytes: [UInt8]
        /// Whether the server closed the connection (rather than our timeout).
        var closedByServer: Bool

        var text: String { String(decoding: self.bytes, as: UTF8.self) }
    }

    /// Connects to `127.0.0.1:port`, sends `request`, and reads until close or `timeout`.
    static func exchange(port: Int, request: String, timeout: TimeAmount = .seconds(5)) async throws -> Outcome {
        let group = MultiThreadedEventLoopGroup.singleton
        let promise = group.any().makePromise(of: Outcome.self)
        let channel = try await ClientBootstrap(group: group)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(promise: promise))
                }
            }
            .connect(host: "127.0.0.1", port: port)
            .get()
        let timer = channel.eventLoop.scheduleTask(in: timeout) {
            channel.pipeline.fireUserInboundEventTriggered(TimedOut())
            channel.close(promise: nil)
        }
        try await channel.writeAndFlush(ByteBuffer(string: request))
        let outcome = try await promise.futureResult.get()
        timer.cancel()
        return Outcome(bytes: outcome.bytes, closedByServer: outcome.closedByServer)
    }

    private struct TimedOut {}

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer

        private let promise: EventLoopPromise<Outcome>
        private var bytes: [UInt8] = []
        private var closingLocally = false

        init(promise: EventLoopPromise<Outcome>) {
            self.promise = promise
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = self.unwrapInboundIn(data)
            self.bytes += buffer.readBytes(length: buffer.readableBytes) ?? []
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if event is TimedOut {
                self.closingLocally = true
            }
            context.fireUserInboundEventTriggered(event)
        }

        func channelInactive(context: ChannelHandlerContext) {
            self.promise.succeed(Outcome(bytes: self.bytes, closedByServer: !self.closingLocally))
        }

        func errorCaught(context: ChannelHandlerContext, error: Error) {
            context.close(promise: nil)
        }
    }
}
