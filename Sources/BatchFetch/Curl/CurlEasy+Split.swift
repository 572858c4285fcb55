internal import CCurl
import Foundation

extension CurlEasy {
    /// Sets a split download's helper to ask for its part's range (`Range`, checked by `If-Range`
    /// against the parent's validator), and its receiver to check the answer and stop at the
    /// part's end.
    func setPartRange(_ part: SplitPart) {
        let download = part.download
        let last = part.end - 1
        _ = ccurl_easy_setopt_string(self.rawHandle, CURLOPT_RANGE, "\(part.start)-\(last)")
        self.usesRange = true
        let fields = part.transfer.request.headers + [HeaderField(name: "If-Range", value: download.validator)]
        self.setRequestHeaders(fields)
        self.receiver.pointee.part = PartWatch(
            stopAt: part.end - part.start, expectedRange: "bytes \(part.start)-\(last)/\(download.length)",
            checked: false)
    }

    /// Ends the part this handle receives at `end` (an offset in the whole body).
    func cutPart(at end: Int, from start: Int) {
        if self.receiver.pointee.part == nil {
            self.receiver.pointee.part = PartWatch(stopAt: end - start, expectedRange: nil, checked: true)
        } else {
            self.receiver.pointee.part?.stopAt = end - start
        }
    }

    /// Lets the part this handle receives go on to its response's end (its split was undone).
    func uncutPart() {
        self.receiver.pointee.part = nil
    }

    /// Whether the part this handle receives has already stopped at its end.
    var partIsCut: Bool { self.receiver.pointee.part?.cut == true }

    /// Body bytes received so far, and whether a helper's answer was checked (the first bytes came).
    var partProgress: (received: Int, checked: Bool) {
        let receiver = self.receiver.pointee
        return (receiver.body.count, receiver.part?.checked ?? true)
    }

    /// What the response being received says of splitting its body: its length and validator,
    /// when it is a `200` that came without a redirect, has a known length, accepts byte ranges,
    /// has a validator and no content coding; `nil` otherwise. Read from its head once.
    func splitFacts() -> SplitFacts? {
        if let facts = self.receiver.pointee.splitFacts {
            return facts
        }
        let facts = self.readSplitFacts()
        self.receiver.pointee.splitFacts = .some(facts)
        return facts
    }

    private func readSplitFacts() -> SplitFacts? {
        let h = self.rawHandle
        var status = 0
        var redirects = 0
        var length: curl_off_t = -1
        _ = ccurl_easy_getinfo_long(h, CURLINFO_RESPONSE_CODE, &status)
        _ = ccurl_easy_getinfo_long(h, CURLINFO_REDIRECT_COUNT, &redirects)
        _ = ccurl_easy_getinfo_off_t(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length)
        guard status == 200, redirects == 0, self.follower == nil, length > 0 else {
            return nil
        }
        let headers = HTTPHeaders(raw: Array(self.receiver.pointee.headers.buffer))
        guard !ResumePoint.hasContentCoding(headers), headers["accept-ranges"]?.lowercased() == "bytes",
            let validator = ResumePoint.validator(in: headers)
        else {
            return nil
        }
        return SplitFacts(length: Int(length), validator: validator)
    }
}
