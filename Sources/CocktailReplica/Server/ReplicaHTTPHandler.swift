import NIOCore
import NIOHTTP1

/// Serves one connection: routes each request, applies its fault plan, writes the response.
///
/// Runs on the channel's event loop only (NIO's threading contract for handlers), so its state
/// needs no lock. `HTTPServerPipelineHandler` sits in front of it, so requests arrive one at a time
/// even when a client pipelines: the next one is delivered once this one's `.end` is written.
final class ReplicaHTTPHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    /// The request being answered.
    private struct Exchange {
        var path: String
        var version: HTTPVersion
        var keepAlive: Bool
        var isHead: Bool
        /// `false` for the stats endpoint, which is never counted.
        var counted: Bool
        /// The request's `If-None-Match`, if any.
        var ifNoneMatch: String? = nil
        /// The request's `If-Modified-Since`, if any.
        var ifModifiedSince: String? = nil
    }

    private let core: ReplicaCore
    private var requestHead: HTTPRequestHead?
    private var exchange: Exchange?
    private var isOpen = true
    /// The previous request's path, reused while a keep-alive client asks the same endpoint
    /// (saves allocating the stats key per request).
    private var lastPath = ""

    init(core: ReplicaCore) {
        self.core = core
    }

    func channelActive(context: ChannelHandlerContext) {
        self.core.stats.connectionOpened()
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        self.isOpen = false
        // A request cut short by the client (or by a reset fault) must not stay "in flight".
        self.finish(status: nil, fault: nil)
        self.core.stats.connectionClosed()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch self.unwrapInboundIn(data) {
        case .head(let head):
            self.requestHead = head
        case .body:
            break
        case .end:
            guard let head = self.requestHead else { return }
            self.requestHead = nil
            self.handle(head, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        context.close(promise: nil)
    }

    private func handle(_ head: HTTPRequestHead, context: ChannelHandlerContext) {
        let (route, path) = self.core.router.route(head.uri)
        var exchange = Exchange(
            path: "",
            version: head.version,
            keepAlive: head.isKeepAlive,
            isHead: head.method == .HEAD,
            counted: false
        )
        if route == .stats {
            self.exchange = exchange
            self.serveStats(context: context)
            return
        }
        if path != self.lastPath {
            self.lastPath = String(path)
        }
        exchange.path = self.lastPath
        exchange.counted = true
        exchange.ifNoneMatch = head.headers.first(name: "if-none-match")
        exchange.ifModifiedSince = head.headers.first(name: "if-modified-since")
        self.exchange = exchange
        let now = self.core.throttles ? NIODeadline.now().uptimeNanoseconds : 0
        let admission = self.core.stats.begin(
            target: head.uri, path: exchange.path, now: now,
            conditional: exchange.ifNoneMatch != nil || exchange.ifModifiedSince != nil)
        let plan =
            self.core.planner.isTrivial
            ? FaultPlan.normal
            : self.core.planner.plan(target: head.uri.utf8, attempt: admission.attempt, throttled: admission.throttled)
        let resolved =
            route == .random
            ? Route.lookupDrink(self.core.randomDrinkPosition(target: head.uri, attempt: admission.attempt))
            : route
        guard plan.delayMilliseconds > 0 else {
            self.respond(route: resolved, plan: plan, admission: admission, context: context)
            return
        }
        context.eventLoop.assumeIsolated().scheduleTask(in: .milliseconds(Int64(plan.delayMilliseconds))) {
            guard self.isOpen else { return }
            self.respond(route: resolved, plan: plan, admission: admission, context: context)
        }
    }

    private func respond(
        route: Route,
        plan: FaultPlan,
        admission: StatsRecorder.Admission,
        context: ChannelHandlerContext
    ) {
        let json = Document.jsonContentType
        let html = "text/html; charset=UTF-8"
        var status = 200
        var contentType = json
        var body: ByteBuffer
        var document: Document?
        if route == .notFound {
            (status, contentType, body) = (404, html, FaultPages.notFound)
        } else if route == .robots {
            let text = self.core.configuration.robotsTxt
            (status, contentType) = text == nil ? (404, html) : (200, "text/plain; charset=utf-8")
            body = text.map { ByteBuffer(string: $0) } ?? FaultPages.notFound
        } else {
            let found = self.document(for: route)
            (document, contentType, body) = (found, found.contentType, found.body)
        }
        var fault = plan.fault
        if let planned = fault, planned.isJSONSpecific, let document, !document.isJSON {
            // Broken JSON, a CDN's HTML page and an empty 200 are quirks of the API's documents;
            // an image gets the rest (reset, truncate, errors, 429, slow) and is otherwise served whole.
            fault = nil
        }
        switch fault {
        case nil:
            if let document, let tag = document.entityTag, let exchange = self.exchange,
                Validators.notModified(
                    ifNoneMatch: exchange.ifNoneMatch, ifModifiedSince: exchange.ifModifiedSince, entityTag: tag,
                    lastModified: Validators.lastModified)
            {
                self.sendNotModified(entityTag: tag, context: context)
            } else if let document {
                self.send(document, context: context)
            } else {
                self.send(status: status, contentType: contentType, body: body, fault: nil, context: context)
            }
        case .reset:
            self.finish(status: nil, fault: .reset)
            context.close(promise: nil)
        case .fail, .failFirst:
            let page = FaultPages.errorPage(status: plan.status)
            self.send(status: plan.status, contentType: html, body: page, fault: plan.fault, context: context)
        case .throttle:
            let retryAfter = FaultPages.retryAfter(
                seconds: admission.retryAfterSeconds,
                format: self.core.configuration.faults.retryAfterFormat
            )
            let page = FaultPages.errorPage(status: 429)
            self.send(
                status: 429,
                contentType: html,
                body: page,
                extraHeaders: [("Retry-After", retryAfter)],
                fault: .throttle,
                context: context
            )
        case .malformed:
            self.send(
                status: status, contentType: contentType, body: FaultPages.malformed(body), fault: .malformed,
                context: context)
        case .wrongType:
            self.send(status: 200, contentType: html, body: FaultPages.wrongType, fault: .wrongType, context: context)
        case .emptyBody:
            self.send(status: 200, contentType: json, body: ByteBuffer(), fault: .emptyBody, context: context)
        case .truncate:
            self.truncate(status: status, contentType: contentType, body: body, context: context)
        case .slow:
            self.drip(status: status, contentType: contentType, body: body, context: context)
        }
    }

    /// The JSON document or the image `route` names (`.random` resolved, not `.notFound`).
    private func document(for route: Route) -> Document {
        if case .image(let position, let size) = route {
            return self.core.images.document(slug: self.core.catalogue.drinks[position].imageSlug, size: size)
        }
        return self.core.documents.document(for: route)
    }

    private func serveStats(context: ChannelHandlerContext) {
        let stats = self.core.stats.snapshot()
        if let data = try? stats.jsonData() {
            self.send(
                status: 200, contentType: "application/json", body: ByteBuffer(bytes: data), fault: nil,
                context: context)
        } else {
            self.send(
                status: 500, contentType: "text/plain", body: ByteBuffer(string: "stats failed\n"), fault: nil,
                context: context)
        }
    }

    private func responseHead(
        status: Int,
        contentType: String,
        contentLength: Int,
        extraHeaders: [(String, String)] = []
    ) -> HTTPResponseHead? {
        guard let exchange = self.exchange else { return nil }
        var headers = HTTPHeaders([("Content-Type", contentType), ("Content-Length", String(contentLength))])
        if !exchange.keepAlive {
            headers.add(name: "Connection", value: "close")
        }
        for (name, value) in extraHeaders {
            headers.add(name: name, value: value)
        }
        return HTTPResponseHead(
            version: exchange.version, status: HTTPResponseStatus(statusCode: status), headers: headers)
    }

    private func send(
        status: Int,
        contentType: String,
        body: ByteBuffer,
        extraHeaders: [(String, String)] = [],
        fault: FaultKind?,
        context: ChannelHandlerContext
    ) {
        guard let exchange = self.exchange,
            let head = self.responseHead(
                status: status,
                contentType: contentType,
                contentLength: body.readableBytes,
                extraHeaders: extraHeaders
            )
        else { return }
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        if !exchange.isHead && body.readableBytes > 0 {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        }
        self.end(status: status, fault: fault, keepAlive: exchange.keepAlive, context: context)
    }

    /// The hot path: a cached document with its prebuilt headers.
    private func send(_ document: Document, context: ChannelHandlerContext) {
        guard let exchange = self.exchange else { return }
        var head = document.keepAliveHead
        if exchange.version != .http1_1 || !exchange.keepAlive {
            var headers = document.headers
            if !exchange.keepAlive {
                headers.add(name: "Connection", value: "close")
            }
            head = HTTPResponseHead(version: exchange.version, status: .ok, headers: headers)
        }
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        if !exchange.isHead {
            context.write(self.wrapOutboundOut(.body(.byteBuffer(document.body))), promise: nil)
        }
        self.end(status: 200, fault: nil, keepAlive: exchange.keepAlive, context: context)
    }

    /// `304 Not Modified`: the validators again and no body (RFC 9110 §15.4.5), so a cache can
    /// refresh its stored headers.
    private func sendNotModified(entityTag: String, context: ChannelHandlerContext) {
        guard let exchange = self.exchange else { return }
        var headers = HTTPHeaders([("ETag", entityTag), ("Last-Modified", Validators.lastModified)])
        if !exchange.keepAlive {
            headers.add(name: "Connection", value: "close")
        }
        let head = HTTPResponseHead(version: exchange.version, status: .notModified, headers: headers)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        self.end(status: 304, fault: nil, keepAlive: exchange.keepAlive, context: context)
    }

    /// Writes `.end`, after counting the request as finished: writing `.end` may synchronously
    /// deliver the next pipelined request, which must find this exchange closed.
    private func end(status: Int, fault: FaultKind?, keepAlive: Bool, context: ChannelHandlerContext) {
        self.finish(status: status, fault: fault)
        if keepAlive {
            context.writeAndFlush(self.wrapOutboundOut(.end(nil)), promise: nil)
        } else {
            let channel = context.channel
            context.writeAndFlush(self.wrapOutboundOut(.end(nil))).whenComplete { _ in
                channel.close(promise: nil)
            }
        }
    }

    private func truncate(status: Int, contentType: String, body: ByteBuffer, context: ChannelHandlerContext) {
        guard let head = self.responseHead(status: status, contentType: contentType, contentLength: body.readableBytes)
        else { return }
        let isHead = self.exchange?.isHead ?? false
        self.finish(status: status, fault: .truncate)
        context.write(self.wrapOutboundOut(.head(head)), promise: nil)
        let part = body.getSlice(at: body.readerIndex, length: body.readableBytes / 2) ?? ByteBuffer()
        let channel = context.channel
        let written = context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(isHead ? ByteBuffer() : part))))
        written.whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    private func drip(status: Int, contentType: String, body: ByteBuffer, context: ChannelHandlerContext) {
        guard let exchange = self.exchange,
            let head = self.responseHead(status: status, contentType: contentType, contentLength: body.readableBytes)
        else { return }
        context.writeAndFlush(self.wrapOutboundOut(.head(head)), promise: nil)
        let pieces = exchange.isHead ? 0 : min(8, body.readableBytes)
        let total = Int64(self.core.configuration.faults.slowMilliseconds)
        let interval = TimeAmount.milliseconds(pieces == 0 ? total : total / Int64(pieces))
        self.dripNext(body: body, piecesLeft: pieces, interval: interval, status: status, context: context)
    }

    private func dripNext(
        body: ByteBuffer,
        piecesLeft: Int,
        interval: TimeAmount,
        status: Int,
        context: ChannelHandlerContext
    ) {
        context.eventLoop.assumeIsolated().scheduleTask(in: interval) {
            guard self.isOpen, let exchange = self.exchange else { return }
            guard piecesLeft > 0 else {
                self.end(status: status, fault: .slow, keepAlive: exchange.keepAlive, context: context)
                return
            }
            var rest = body
            let size = (rest.readableBytes + piecesLeft - 1) / piecesLeft
            if let piece = rest.readSlice(length: size) {
                context.writeAndFlush(self.wrapOutboundOut(.body(.byteBuffer(piece))), promise: nil)
            }
            if piecesLeft == 1 {
                self.end(status: status, fault: .slow, keepAlive: exchange.keepAlive, context: context)
            } else {
                self.dripNext(
                    body: rest, piecesLeft: piecesLeft - 1, interval: interval, status: status, context: context)
            }
        }
    }

    /// Closes the current exchange once: counts it (unless it is the stats endpoint's) and clears it.
    private func finish(status: Int?, fault: FaultKind?) {
        guard let exchange = self.exchange else { return }
        self.exchange = nil
        if exchange.counted {
            self.core.stats.finish(path: exchange.path, status: status, fault: fault)
        }
    }
}
