internal import CCurl

/// Who follows a transfer's redirects: libcurl for a plain GET or HEAD, this handle for every
/// other request (see ``RedirectFollower`` for why), one hop at a time with libcurl's
/// `CURLOPT_FOLLOWLOCATION` off: each hop that ends on a redirect leaves the multi handle, is set
/// for the next hop's request and goes back in, within the same attempt.
extension CurlEasy {
    /// Chooses who follows `request`'s redirects, when the engine follows any.
    func follow(_ request: Request) {
        var libcurlFollows = false
        self.follower = nil
        if case .follow(let max) = self.configuration.redirects {
            // An archive keeps every hop's exchange, which libcurl's own following would hide.
            if RedirectFollower.isNeeded(for: request) || self.configuration.capturesExchanges {
                self.follower = RedirectFollower(request, maxRedirects: Swift.max(0, max))
            } else {
                libcurlFollows = true
            }
        }
        if libcurlFollows != self.libcurlFollows {
            _ = ccurl_easy_setopt_long(self.rawHandle, CURLOPT_FOLLOWLOCATION, libcurlFollows ? 1 : 0)
            self.libcurlFollows = libcurlFollows
        }
    }

    /// Looks at the hop that just completed: when it ended on a redirect this handle follows, sets
    /// the handle for the next hop; when it ended on one that cannot be followed (too many, a
    /// scheme other than http or https), keeps why for ``finish(queued:details:)``.
    /// - Returns: whether the handle is set for the next hop and goes back into the multi handle.
    func prepareNextHop() -> Bool {
        guard var follower = self.follower, follower.failure == nil, self.resultCode == CURLE_OK else {
            return false
        }
        defer { self.follower = follower }
        let h = self.rawHandle
        var status = 0
        _ = ccurl_easy_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        var text: UnsafeMutablePointer<CChar>? = nil
        let location =
            ccurl_easy_getinfo_string(h, CURLINFO_REDIRECT_URL, &text) == CURLE_OK
            ? text.map { String(cString: $0) } : nil
        let hopURL = follower.current.url
        switch follower.next(status: status, location: location) {
        case .done:
            return false
        case .tooMany:
            // libcurl's own words for the same stop.
            follower.failure = FetchError(
                curlCode: CURLE_TOO_MANY_REDIRECTS, detail: "Maximum (\(follower.maxRedirects)) redirects followed")
            return false
        case .refused(let scheme):
            self.receiver.pointee.trail?.followed(to: follower.lastLocation ?? "")
            follower.failure = FetchError(
                curlCode: CURLE_UNSUPPORTED_PROTOCOL, detail: "a redirect to a '\(scheme)' URL is not followed")
            return false
        case .follow:
            var connects = 0
            _ = ccurl_easy_getinfo_long(h, CURLINFO_NUM_CONNECTS, &connects)
            // Read before the next hop starts: libcurl keeps a finished hop's facts until then.
            let timings = self.timings(queued: .zero)
            if self.receiver.pointee.wire != nil {
                let body = self.receiver.pointee.takeBody()
                let tls = self.receiver.pointee.trail?.sessionVersion
                if let hop = self.receiver.pointee.wire?.exchange(
                    url: hopURL, body: body, handle: h, truncated: nil, tls: tls,
                    hash: self.configuration.exchangeBodyHash)
                {
                    self.receiver.pointee.wire?.hops.append(hop)
                }
            }
            self.receiver.pointee.trail?.followed(to: follower.current.url)
            self.receiver.pointee.resetForHop()
            self.upload.pointee.close()
            if let error = self.send(follower.current, removing: follower.removedFields) {
                follower.failure = error
                return false
            }
            follower.hopEnded(timings, newConnections: connects)
            return true
        }
    }

    /// The next hop could not start (``CurlMulti/add(_:)`` refused it): the transfer ends with `error`.
    func failHop(_ error: FetchError) {
        self.follower?.failure = error
    }
}
