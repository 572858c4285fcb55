import NIOCore
import NIOHTTP1

/// What ``TestHTTPServer`` answers at `/robots.txt` (``TestHTTPServer/robots``); without one, 404.
package struct RobotsReply: Sendable {
    /// What the requests after the failing ones get.
    package var status = 200
    package var body: [UInt8] = []
    /// The first `failures` requests get `failStatus` (with `Retry-After: retryAfter` when given),
    /// or a reset connection when `failStatus` is 0.
    package var failures = 0
    package var failStatus = 503
    package var retryAfter: String?
    /// Redirects before the file: `/robots.txt` → `/robots.txt?hop=1` → … → the file at hop N.
    package var redirects = 0
    /// Where the first request is redirected to instead (another server's robots.txt), when set.
    package var movedTo: String?
    /// How long each answer waits, in milliseconds.
    package var delayMilliseconds: Int64 = 0

    package init(status: Int = 200, text: String = "") {
        self.status = status
        self.body = Array(text.utf8)
    }

    package init(status: Int = 200, bytes: [UInt8]) {
        self.status = status
        self.body = bytes
    }
}

extension TestHTTPHandler {
    /// `/robots.txt` as the server's ``RobotsReply`` says.
    func robots(context: ChannelHandlerContext, query: [String: String]) {
        guard let server = self.box.server.withLock({ $0 }), let reply = server.robots.withLock({ $0 }) else {
            self.respond(context: context, status: .notFound, body: "not found")
            return
        }
        let hits =
            server.counters.withLock { c -> Int in
                c.flakyHits["robots", default: 0] += 1
                return c.flakyHits["robots", default: 0]
            }
        let answer = {
            if hits <= reply.failures {
                guard reply.failStatus != 0 else {
                    context.close(promise: nil)
                    return
                }
                let extra = reply.retryAfter.map { [("Retry-After", $0)] } ?? []
                self.respond(
                    context: context, status: HTTPResponseStatus(statusCode: reply.failStatus), body: "try later",
                    headers: extra)
                return
            }
            if let moved = reply.movedTo {
                self.respond(context: context, status: .movedPermanently, body: "", headers: [("Location", moved)])
                return
            }
            let hop = Int(query["hop"] ?? "") ?? 0
            if hop < reply.redirects {
                self.respond(
                    context: context, status: .movedPermanently, body: "",
                    headers: [("Location", "/robots.txt?hop=\(hop + 1)")])
                return
            }
            self.respond(
                context: context, status: HTTPResponseStatus(statusCode: reply.status),
                body: ByteBuffer(bytes: reply.body), type: "text/plain", headers: [])
        }
        guard reply.delayMilliseconds > 0 else {
            answer()
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(reply.delayMilliseconds)) { answer() }
    }
}
