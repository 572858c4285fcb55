internal import CCurl
internal import CSSL
import Foundation

/// What each response of one transfer said as its status line arrived, kept for
/// ``TransferDetails``: the redirects followed and the TLS session the last response came over.
///
/// libcurl follows a GET's or HEAD's redirects itself (`CURLOPT_FOLLOWLOCATION`) and hands the
/// header callback every response's status line, interim and redirect ones included; the
/// redirects of other requests are followed hop by hop by their handle (``RedirectFollower``),
/// which tells the trail each time (``followed(to:)``). While a response's status line is
/// handed over, `CURLINFO_EFFECTIVE_URL` is that response's URL (libcurl moves it to the next hop
/// only when it follows), and the transfer still holds its connection, whose SSL object is gone
/// once the transfer ends. So both are read there, once per response, and only when asked for.
///
/// Threading: engine thread only, inside its handle's ``CurlReceiver``.
package struct ResponseTrail {
    let kinds: TransferDetails.Kinds
    /// The responses before the last that were redirects: status, and URL (`nil` for the request's own).
    private(set) var hops: [(url: String?, status: Int)] = []
    /// Final responses (not 1xx) so far.
    private var responses = 0
    private var lastStatus = 0
    /// The last response's URL, `nil` while it is the request's own.
    private var lastURL: String?
    /// The last response's TLS session, when it came over TLS.
    private(set) var session: cssl_session_facts?

    /// A trail gathering `kinds`; `nil` when there is nothing to gather.
    init?(_ kinds: TransferDetails.Kinds) {
        guard !kinds.isEmpty else {
            return nil
        }
        self.kinds = kinds
    }

    /// A status line arrived (`HTTP/…`, CRLF included): a new response starts.
    mutating func statusLine(_ line: UnsafePointer<UInt8>, count: Int, handle: UnsafeMutableRawPointer) {
        let status = Self.status(of: UnsafeBufferPointer(start: line, count: count))
        // An interim response (100 Continue, 103 Early Hints) is no hop; the final one follows it.
        guard status >= 200 || status == 0 else {
            return
        }
        if self.kinds.contains(.redirects) {
            if self.responses > 0 && self.lastStatus >= 300 && self.lastStatus < 400 {
                self.hops.append((self.lastURL, self.lastStatus))
            }
            if self.responses > 0 {
                self.lastURL = Self.string(handle, CURLINFO_EFFECTIVE_URL)
            }
            self.responses += 1
            self.lastStatus = status
        }
        if self.kinds.contains(.tls) {
            self.session =
                Self.readsOpenSSL ? ccurl_openssl_session(handle).map { cssl_session_facts_of($0) } : nil
        }
    }

    /// The response that just ended was a redirect that batchfetch follows itself, to `url`
    /// (``RedirectFollower``), or would have followed had it been allowed: it is a hop, and the
    /// next response, the first of the next hop's request, is `url`'s.
    mutating func followed(to url: String) {
        guard self.kinds.contains(.redirects), self.responses > 0 else {
            return
        }
        self.hops.append((self.lastURL, self.lastStatus))
        self.lastURL = url
        self.responses = 0
        self.lastStatus = 0
    }

    /// The last TLS version and cipher names made into Strings, by the address of libssl's static
    /// text: most transfers repeat them, and a name past 15 bytes would cost an allocation each.
    private var versionName: (text: UnsafePointer<CChar>, name: String)?
    private var cipherName: (text: UnsafePointer<CChar>, name: String)?

    /// Fills `details` with what the finished attempt left: its redirects, where it connected, its
    /// TLS session and its timings, each when asked for (the timings always: they are at hand).
    ///
    /// - Parameters:
    ///   - effectiveURL: the final response's URL, `nil` when the attempt failed (read here then).
    ///   - newConnections: how many connections the attempt opened: none means it reused one.
    mutating func gather(
        into details: TransferDetails, handle: UnsafeMutableRawPointer, requestURL: String, effectiveURL: String?,
        newConnections: Int, timings: Timings
    ) {
        details.timings = timings
        if self.kinds.contains(.redirects) {
            let finalURL = effectiveURL ?? Self.string(handle, CURLINFO_EFFECTIVE_URL) ?? requestURL
            var hops = self.hops
            // A transfer that failed after libcurl took a redirect (to a scheme it refuses, a host
            // that does not answer) has moved its URL on: that redirect is a hop too, so that the
            // list leads to the final URL as it does after a success.
            if self.responses > 0 && self.lastStatus >= 300 && self.lastStatus < 400
                && finalURL != (self.lastURL ?? requestURL)
            {
                hops.append((self.lastURL, self.lastStatus))
            }
            details.redirects = hops.map { TransferDetails.Redirect(url: $0.url ?? requestURL, status: $0.status) }
            details.finalURL = finalURL
        }
        if self.kinds.contains(.remote) {
            details.remote = Self.remote(handle, newConnections: newConnections)
        }
        if self.kinds.contains(.tls) {
            details.tls = self.session.map { self.tls($0) }
        }
    }

    private static func remote(_ handle: UnsafeMutableRawPointer, newConnections: Int) -> TransferDetails.Remote? {
        guard let address = Self.string(handle, CURLINFO_PRIMARY_IP), !address.isEmpty else {
            return nil
        }
        var port = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_PRIMARY_PORT, &port)
        var version = 0
        _ = ccurl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        return TransferDetails.Remote(
            address: address, port: port, httpVersion: version == 0 ? nil : CurlEasy.httpVersion(version),
            reusedConnection: newConnections == 0)
    }

    private mutating func tls(_ session: cssl_session_facts) -> TransferDetails.TLS {
        let expiry = session.has_not_after != 0 ? Date(timeIntervalSince1970: Double(session.not_after)) : nil
        return TransferDetails.TLS(
            version: Self.name(session.version, cached: &self.versionName),
            cipher: Self.name(session.cipher, cached: &self.cipherName), certificateExpiry: expiry)
    }

    private static func name(
        _ text: UnsafePointer<CChar>?, cached: inout (text: UnsafePointer<CChar>, name: String)?
    ) -> String {
        guard let text else {
            return ""
        }
        if let cached, cached.text == text {
            return cached.name
        }
        let name = String(cString: text)
        cached = (text, name)
        return name
    }

    private static func string(_ handle: UnsafeMutableRawPointer, _ info: CURLINFO) -> String? {
        var text: UnsafeMutablePointer<CChar>? = nil
        guard ccurl_easy_getinfo_string(handle, info, &text) == CURLE_OK, let text else {
            return nil
        }
        return String(cString: text)
    }

    /// The TLS version of the last response's session, when it came over TLS and was read.
    var sessionVersion: String? {
        self.session.flatMap { $0.version.map { String(cString: $0) } }
    }

    /// Ready for the next transfer (the hops' memory is kept).
    mutating func reset() {
        self.hops.removeAll(keepingCapacity: true)
        self.responses = 0
        self.lastStatus = 0
        self.lastURL = nil
        self.session = nil
    }

    /// The status code of a status line: the three digits after its first space; 0 when there are none.
    package static func status(of line: UnsafeBufferPointer<UInt8>) -> Int {
        guard let space = line.firstIndex(of: UInt8(ascii: " ")), space + 3 < line.count else {
            return 0
        }
        var status = 0
        for byte in line[(space + 1)...(space + 3)] {
            guard byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") else {
                return 0
            }
            status = status * 10 + Int(byte - UInt8(ascii: "0"))
        }
        return status
    }

    /// Whether the SSL objects libcurl hands out may be read with the libssl this process links:
    /// libcurl's TLS library must be OpenSSL of the same major version, the one library the process
    /// loads under that name. Forks that libcurl also reports as OpenSSL (LibreSSL, BoringSSL)
    /// name themselves in its version text and are left alone.
    static let readsOpenSSL: Bool = {
        guard let info = curl_version_info(CURLVERSION_FIRST), let text = info.pointee.ssl_version else {
            return false
        }
        let version = String(cString: text)
        guard version.hasPrefix("OpenSSL/"), let major = Int(version.dropFirst(8).prefix { $0 != "." }) else {
            return false
        }
        return major == Int(cssl_major_version())
    }()
}
