internal import CCurl
import Foundation

/// What an ``Exchange`` needs beyond what ``CurlReceiver`` keeps for the response: the request
/// head and body as sent (libcurl hands them over only to its debug callback) and the response's
/// status line and header lines as received. Present only when the engine gathers exchanges
/// (``TransferDetails/Kinds/exchanges``).
///
/// Threading: engine thread only, inside its handle's ``CurlReceiver``.
struct WireCapture {
    private var requestHead = RawBytes()
    private var requestBody = RawBytes()
    private var responseHead = RawBytes()
    private var sentAt: Date?
    /// The exchanges of the attempt's earlier hops (redirects this handle followed).
    var hops: [Exchange] = []

    /// Whether a response's status line has arrived on this hop.
    var hasResponse: Bool { self.responseHead.count > 0 }

    /// What the debug callback hands over: the request head (`CURLINFO_HEADER_OUT`, in one piece
    /// or several) and body (`CURLINFO_DATA_OUT`); the rest is libcurl's commentary.
    mutating func debug(_ type: curl_infotype, _ data: UnsafeRawPointer, count: Int) {
        switch type {
        case CURLINFO_HEADER_OUT:
            // A head after a complete one is the request sent again (libcurl resends on a reused
            // connection the server had closed): only the last one went through.
            if self.hasResponse || self.requestHead.endsWithBlankLine {
                self.requestHead.removeAll()
                self.requestBody.removeAll()
                self.responseHead.removeAll()
            }
            if self.sentAt == nil {
                self.sentAt = Date()
            }
            _ = self.requestHead.append(data, count: count)
        case CURLINFO_DATA_OUT:
            _ = self.requestBody.append(data, count: count)
        default:
            break
        }
    }

    /// One response header line as received. A status line starts the head anew, so an interim
    /// `100 Continue` is not kept.
    mutating func received(_ line: UnsafeRawPointer, count: Int, isStatusLine: Bool) -> Bool {
        if isStatusLine {
            self.responseHead.removeAll()
        }
        return self.responseHead.append(line, count: count)
    }

    /// This hop as an exchange with `body` (as received), read from `handle` where it came from;
    /// its body hashed with `hash`, when given.
    func exchange(
        url: String, body: Data, handle: UnsafeMutableRawPointer, truncated: Exchange.Truncation?, tls: String? = nil,
        hash: Exchange.BodyHash.Algorithm?
    ) -> Exchange {
        var address: String?
        var text: UnsafeMutablePointer<CChar>? = nil
        if ccurl_easy_getinfo_string(handle, CURLINFO_PRIMARY_IP, &text) == CURLE_OK, let text, text[0] != 0 {
            address = String(cString: text)
        }
        // The URL as libcurl sent it (an international host in its ASCII form), which this hop's
        // handle was given, with redirects followed hop by hop.
        var sentURL = url
        text = nil
        if ccurl_easy_getinfo_string(handle, CURLINFO_EFFECTIVE_URL, &text) == CURLE_OK, let text, text[0] != 0 {
            sentURL = String(cString: text)
        }
        var version = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        var exchange = Exchange(
            url: sentURL, date: self.sentAt ?? Date(), requestHead: Data(self.requestHead.buffer),
            requestBody: Data(self.requestBody.buffer), responseHead: Data(self.responseHead.buffer), body: body,
            address: address, httpVersion: CurlEasy.httpVersion(version), truncated: truncated, tlsVersion: tls)
        exchange.bodyHash = hash.map { Exchange.BodyHash($0, of: body, head: exchange.responseHead) }
        return exchange
    }

    /// Ready for the next hop; the earlier hops' exchanges are kept.
    mutating func resetForHop() {
        self.requestHead.removeAll()
        self.requestBody.removeAll()
        self.responseHead.removeAll()
        self.sentAt = nil
    }

    /// Ready for the next transfer; the memory of the heads is kept for it.
    mutating func reset() {
        self.resetForHop()
        self.hops.removeAll()
    }

    mutating func deallocate() {
        self.requestHead.deallocate()
        self.requestBody.deallocate()
        self.responseHead.deallocate()
        self.hops = []
    }
}

extension RawBytes {
    /// Whether the bytes end with an empty line (CRLF CRLF): a whole message head.
    fileprivate var endsWithBlankLine: Bool {
        let b = self.buffer
        return b.count >= 4 && b[b.count - 4] == 13 && b[b.count - 3] == 10 && b[b.count - 2] == 13
            && b[b.count - 1] == 10
    }
}

/// libcurl's debug callback (`CURLOPT_DEBUGFUNCTION`), with the handle's receiver as its data.
func curlDebug(
    _ handle: UnsafeMutableRawPointer, _ type: curl_infotype, _ data: UnsafeMutablePointer<CChar>, _ size: Int,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    guard let context, size > 0 else {
        return 0
    }
    context.assumingMemoryBound(to: CurlReceiver.self).pointee.wire?.debug(type, data, count: size)
    return 0
}
