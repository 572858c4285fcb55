internal import CCurl
import Foundation

extension CurlEasy {
    /// Collects the outcome of the finished attempt and resets the handle for its next transfer.
    /// - Parameter details: where the transfer's details go, when the engine gathers them.
    /// - Returns: the response or error, the server's `Retry-After` header if it sent one, and how
    ///   many connections the attempt opened, whether it failed or not.
    func finish(queued: Duration, details: TransferDetails? = nil) -> (
        outcome: Result<Response, FetchError>, retryAfter: String?, newConnections: Int
    ) {
        defer { self.reset() }
        let h = self.rawHandle
        // Non-zero once a status line arrived, also when the transfer failed after it.
        var status = 0
        _ = ccurl_easy_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        var connects = 0
        _ = ccurl_easy_getinfo_long(h, CURLINFO_NUM_CONNECTS, &connects)
        connects += self.follower?.earlierConnections ?? 0
        let code = self.resultCode
        let timings = self.follower?.including(self.timings(queued: queued)) ?? self.timings(queued: queued)
        // A split download's part that stopped at its end, as planned, ended well.
        let cut = code == CURLE_WRITE_ERROR && self.receiver.pointee.part?.cut == true
        guard (code == CURLE_OK || cut) && self.follower?.failure == nil else {
            // A final status that arrived before the failure (a timeout mid-body, a body over the
            // limit, a file that could not be written, a redirect not followed) stays with the
            // error; an interim 1xx is none.
            let error = self.follower?.failure ?? self.failure(code)
            if let details {
                self.gather(
                    into: details, effectiveURL: self.follower?.lastLocation, newConnections: connects,
                    timings: timings)
            }
            var failure = FetchError(
                kind: error.kind, message: error.message, status: status >= 200 ? status : nil, snippet: error.snippet)
            failure.timedOutConnecting = error.timedOutConnecting
            let resumable = (error.kind == .timeout || error.kind == .transport) && (status == 200 || status == 206)
            let body = resumable || self.receiver.pointee.wire != nil ? self.receiver.pointee.takeBody() : Data()
            if let details, self.receiver.pointee.wire != nil {
                // A response cut short is archived as far as it came; a redirect not followed whole.
                self.keepExchanges(
                    in: details, lastBody: body,
                    truncated: code == CURLE_OK ? nil : Exchange.truncation(for: error.kind))
            }
            // Only a 200 (or a resumed 206) that broke off has bytes worth keeping: a failed
            // connect has no headers to parse.
            if resumable {
                self.keepResumePoint(
                    status: status, headers: HTTPHeaders(raw: Array(self.receiver.pointee.headers.buffer)), body: body)
            } else {
                self.transfer?.resume = nil
            }
            return (.failure(failure), nil, connects)
        }
        var effectiveURL = self.transfer?.request.url ?? ""
        if let follower = self.follower {
            effectiveURL = follower.current.url
        } else if case .follow = self.configuration.redirects {
            var redirects = 0
            _ = ccurl_easy_getinfo_long(h, CURLINFO_REDIRECT_COUNT, &redirects)
            var url: UnsafeMutablePointer<CChar>? = nil
            if redirects > 0, ccurl_easy_getinfo_string(h, CURLINFO_EFFECTIVE_URL, &url) == CURLE_OK, let url {
                effectiveURL = String(cString: url)
            }
        }
        var version = 0
        _ = ccurl_easy_getinfo_long(h, CURLINFO_HTTP_VERSION, &version)
        if let details {
            self.gather(into: details, effectiveURL: effectiveURL, newConnections: connects, timings: timings)
        }
        let headers = HTTPHeaders(raw: Array(self.receiver.pointee.headers.buffer))
        let retryAfter =
            (status == 429 || status == 503 || status >= 300 && status < 400) ? headers["retry-after"] : nil
        let spooled: SpooledBody?
        do throws(FetchError) {
            spooled = try self.receiver.pointee.finishSpool()
        } catch {
            return (.failure(FetchError(kind: error.kind, message: error.message, status: status)), nil, connects)
        }
        var body = self.receiver.pointee.takeBody()
        if let details, self.receiver.pointee.wire != nil {
            self.keepExchanges(in: details, lastBody: body, truncated: nil)
            switch ContentDecoding.decode(
                body, field: headers["content-encoding"], limit: self.configuration.effectiveMaxBodyBytes)
            {
            case .success(let decoded): body = decoded
            case .failure(let error):
                self.transfer?.resume = nil
                return (.failure(FetchError(kind: error.kind, message: error.message, status: status)), nil, connects)
            }
        }
        if self.receiver.pointee.resumeAccepted, status == 206 {
            // The rest of a download an earlier attempt began: the record is the whole entity's.
            status = self.transfer?.resume?.status ?? 200
        }
        self.transfer?.resume = nil
        let response = Response(
            status: status,
            headers: headers,
            body: body,
            spooledBody: spooled,
            bodyByteCount: body.count + self.receiver.pointee.discardedBytes + (spooled?.bytes ?? 0),
            effectiveURL: effectiveURL,
            attempts: self.transfer?.attempts ?? 1,
            timings: timings,
            httpVersion: Self.httpVersion(version),
            newConnections: connects
        )
        return (.success(response), retryAfter, connects)
    }

    /// Adds the attempt's exchanges to `details`: the hops before (redirects followed) and the last
    /// one, with `lastBody` as received, when its response began.
    private func keepExchanges(in details: TransferDetails, lastBody: Data, truncated: Exchange.Truncation?) {
        guard let wire = self.receiver.pointee.wire else {
            return
        }
        details.exchanges += wire.hops
        guard wire.hasResponse else {
            return
        }
        // A resumed download's earlier bytes came in an attempt archived before.
        let from = self.receiver.pointee.resumedFrom
        let body = from > 0 && from <= lastBody.count ? Data(lastBody.dropFirst(from)) : lastBody
        let url = self.follower?.current.url ?? self.transfer?.request.url ?? ""
        details.exchanges.append(
            wire.exchange(
                url: url, body: body, handle: self.rawHandle, truncated: truncated,
                tls: self.receiver.pointee.trail?.sessionVersion, hash: self.configuration.exchangeBodyHash))
    }

    /// Why the attempt failed with `code`: what this handle's receiver saw first (a body over the
    /// limit, a file not written, memory), else libcurl's code and error text.
    func failure(_ code: CURLcode) -> FetchError {
        if self.receiver.pointee.bodyExceededLimit {
            return FetchError(
                kind: .tooLarge,
                message:
                    "body larger than the configured maximum of "
                    + "\(self.configuration.effectiveMaxBodyBytes) bytes; raise it with --max-body")
        }
        if let failure = self.upload.pointee.failure {
            return failure
        }
        if let spool = self.receiver.pointee.spool, spool.failure != 0 {
            return spool.writeError
        }
        if self.receiver.pointee.part?.refused == true {
            return FetchError(
                kind: .transport, message: "the server answered a range of a split download with another range")
        }
        if self.receiver.pointee.resumeRefused {
            return FetchError(
                kind: .transport,
                message: "the server answered a resumed download with another range than the one asked for; "
                    + "it is retried from its first byte")
        }
        if self.receiver.pointee.outOfMemory {
            return FetchError(kind: .other, message: "out of memory receiving the response")
        }
        var error = FetchError(curlCode: code, detail: String(cString: self.errorBuffer))
        if code == CURLE_OPERATION_TIMEDOUT {
            var connected: curl_off_t = 0
            _ = ccurl_easy_getinfo_off_t(self.rawHandle, CURLINFO_CONNECT_TIME_T, &connected)
            error.timedOutConnecting = connected == 0
        }
        return error
    }
}
