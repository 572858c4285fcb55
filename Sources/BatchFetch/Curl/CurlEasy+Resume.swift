internal import CCurl
import Foundation

/// What a download that broke off had received, so that its retry asks only for the rest, as
/// `curl -C -` and aria2c do: `Range: bytes=N-`, checked by `If-Range` against the validator the
/// first response carried, so that a changed entity comes back whole rather than spliced.
struct ResumePoint {
    /// The bytes received so far, as sent: only bodies without a content coding are resumed, since
    /// libcurl hands over decoded bytes, whose count is no offset into the encoded entity.
    var body: Data
    /// `If-Range`'s value: the response's strong `ETag`, else its `Last-Modified`.
    let validator: String
    /// The first response's status (200), which the record of the completed download keeps.
    let status: Int

    /// The point to resume a GET from, given the status and header fields of the response that
    /// broke off after `body`; `nil` when it cannot be resumed safely.
    static func after(
        status: Int, headers: HTTPHeaders, body: Data, previous: ResumePoint?, resumed: Bool
    ) -> ResumePoint? {
        guard !body.isEmpty, status == 200 || (status == 206 && resumed) else {
            return nil
        }
        if Self.hasContentCoding(headers) {
            return nil
        }
        if headers["accept-ranges"]?.lowercased() == "none" {
            return nil
        }
        guard let validator = Self.validator(in: headers) ?? (resumed ? previous?.validator : nil) else {
            return nil
        }
        return ResumePoint(body: body, validator: validator, status: resumed ? (previous?.status ?? 200) : status)
    }

    /// `If-Range`'s value for a response: its strong `ETag`, else its `Last-Modified`; `nil` when
    /// it has neither (a weak ETag may not be used in If-Range, RFC 9110 §13.1.5).
    static func validator(in headers: HTTPHeaders) -> String? {
        let validator = headers["etag"].flatMap { $0.hasPrefix("W/") ? nil : $0 } ?? headers["last-modified"]
        guard let validator, !validator.isEmpty, !validator.utf8.contains(where: { $0 == 13 || $0 == 10 }) else {
            return nil
        }
        return validator
    }

    /// Whether the response has a content coding: libcurl hands over decoded bytes, whose count is
    /// no offset into the encoded entity a range names.
    static func hasContentCoding(_ headers: HTTPHeaders) -> Bool {
        guard let coding = headers["content-encoding"] else {
            return false
        }
        return !coding.isEmpty && coding.lowercased() != "identity"
    }

    /// Whether `value` (`Content-Range`) is a byte range that starts at `offset`.
    static func contentRange(_ value: String, startsAt offset: Int) -> Bool {
        let prefix = "bytes \(offset)-"
        return value.count > prefix.count && value.lowercased().hasPrefix(prefix)
    }
}

extension CurlEasy {
    /// Asks for the rest of `transfer`'s body when an earlier attempt left a ``ResumePoint``, and
    /// puts the bytes it had in the receiver; otherwise clears a range the handle's last transfer set.
    func setResume(_ transfer: Transfer) {
        let h = self.rawHandle
        if let part = transfer.part {
            self.setPartRange(part)
            return
        }
        guard let point = transfer.resume, transfer.request.method == .get, !transfer.request.hasBody,
            self.receiver.pointee.seed(point.body)
        else {
            transfer.resume = nil
            if self.usesRange {
                _ = ccurl_easy_setopt_string(h, CURLOPT_RANGE, nil)
                self.usesRange = false
            }
            return
        }
        _ = ccurl_easy_setopt_string(h, CURLOPT_RANGE, "\(point.body.count)-")
        self.usesRange = true
        let fields = transfer.request.headers + [HeaderField(name: "If-Range", value: point.validator)]
        self.setRequestHeaders(fields)
    }

    /// After an attempt that failed with `status` (0: none arrived): the point its retry may go on
    /// from, or `nil`, kept on the transfer.
    func keepResumePoint(status: Int, headers: HTTPHeaders, body: Data) {
        guard let transfer = self.transfer else {
            return
        }
        transfer.resume = ResumePoint.after(
            status: status, headers: headers, body: body, previous: transfer.resume,
            resumed: self.receiver.pointee.resumeAccepted)
    }
}

extension CurlEasy {
    /// Sends the default fields with `fields` over them, but those named in `removing`
    /// (lower-case); the default list itself when there are none.
    func setRequestHeaders(_ fields: [HeaderField], removing: Set<String> = []) {
        let h = self.rawHandle
        if fields.isEmpty && removing.isEmpty {
            if !self.usesDefaultHeaders {
                _ = ccurl_easy_setopt_slist(h, CURLOPT_HTTPHEADER, self.defaultHeaders.pointer)
                self.usesDefaultHeaders = true
                self.requestHeaders = nil
            }
        } else {
            var all = self.defaultFields.overridden(by: fields)
            if !removing.isEmpty {
                all.removeAll { removing.contains($0.name.lowercased()) }
            }
            // libcurl keeps the list's pointer: the handle holds the list until the next request.
            let list = CurlHeaderList(all)
            _ = ccurl_easy_setopt_slist(h, CURLOPT_HTTPHEADER, list.pointer)
            self.requestHeaders = list
            self.usesDefaultHeaders = false
        }
    }
}
