internal import CCurl
import Foundation

/// Owns one libcurl easy handle and the buffers of the transfer it currently carries.
///
/// Easy handles are pooled and reused: options that never change are set once in `init`, the
/// per-request ones in ``prepare(for:)``. Reuse keeps libcurl's per-handle caches warm and
/// avoids re-allocating its ~5 KB of state for every request.
///
/// Threading: engine thread only.
final class CurlEasy {
    private let handle: UnsafeMutableRawPointer
    let errorBuffer: UnsafeMutablePointer<CChar>
    /// ``Engine/Configuration/fieldsSent``, and the list of them every plain request carries.
    let defaultFields: [HeaderField]
    let defaultHeaders: CurlHeaderList
    /// Held so that the share outlives this handle, which is attached to it until cleanup.
    private let share: CurlShare?
    let configuration: Engine.Configuration

    /// The transfer this handle carries, between ``prepare(for:)`` and ``finish()``.
    var transfer: Transfer?
    /// The result libcurl reported for the transfer; set by ``CurlMulti`` when it completes.
    var resultCode: CURLcode = CURLE_OK

    /// What the callbacks receive: the header block, whose memory is kept from one transfer to the
    /// next (each response gets an exact-size copy), and the body, which its `Data` takes over.
    let receiver: UnsafeMutablePointer<CurlReceiver>
    /// The body file of the request being sent, read by libcurl's read callback.
    let upload: UnsafeMutablePointer<CurlUpload>
    var requestHeaders: CurlHeaderList?
    var usesDefaultHeaders = true
    /// Whether the handle is set for a GET without a body (see CurlEasy+Method.swift).
    var usesPlainGet = true
    /// Whether the handle is set to open a fresh connection and close it after (h2c on a libcurl
    /// that cannot reuse h2c connections).
    private var usesOneShotConnection = false
    /// Whether the handle carries a probe's shorter connect timeout (``setProbeConnectTimeout(_:)``).
    private var usesProbeConnectTimeout = false
    /// Whether libcurl follows this transfer's redirects (`CURLOPT_FOLLOWLOCATION`); see
    /// CurlEasy+Redirect.swift.
    var libcurlFollows = false
    /// Follows this transfer's redirects where libcurl would send them wrong; `nil` otherwise.
    var follower: RedirectFollower?
    /// Whether the handle's last transfer asked for a range (``ResumePoint``).
    var usesRange = false

    /// libcurl's receive buffer (`CURLOPT_BUFFERSIZE`). libcurl 7.88 allocates it for every
    /// transfer and frees it when the transfer ends (`multi_done`), so it must stay small enough
    /// for glibc to recycle from its heap: at 64 KB and more, each transfer took fresh pages from
    /// the kernel, a page fault per page. Twice libcurl's 16 KB default halves the write callbacks
    /// on large bodies.
    private static let receiveBufferBytes = 32 * 1024

    /// Creates a handle with the options every request of this engine shares.
    /// - Returns: `nil` when libcurl cannot allocate a handle.
    init?(
        configuration: Engine.Configuration, defaultFields: [HeaderField], defaultHeaders: CurlHeaderList,
        share: CurlShare?
    ) {
        guard let handle = curl_easy_init() else {
            return nil
        }
        self.handle = handle
        self.configuration = configuration
        self.defaultFields = defaultFields
        self.defaultHeaders = defaultHeaders
        self.share = share
        self.errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        self.errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        self.receiver = .allocate(capacity: 1)
        self.receiver.initialize(
            to: CurlReceiver(
                handle: handle, maxBodyBytes: configuration.effectiveMaxBodyBytes,
                keepsBody: configuration.keepsBodies || configuration.cache != nil
                    || configuration.capturesExchanges,
                spool: configuration.spoolFolder.map { BodySpool(folder: $0) },
                trail: ResponseTrail(configuration.details),
                wire: configuration.capturesExchanges ? WireCapture() : nil))
        self.upload = .allocate(capacity: 1)
        self.upload.initialize(to: CurlUpload())
        self.setStaticOptions()
    }

    deinit {
        curl_easy_cleanup(self.handle)
        self.errorBuffer.deallocate()
        self.receiver.pointee.deallocate()
        self.receiver.deinitialize(count: 1)
        self.receiver.deallocate()
        self.upload.pointee.close()
        self.upload.deinitialize(count: 1)
        self.upload.deallocate()
    }

    /// The raw handle, for ``CurlMulti`` only.
    var rawHandle: UnsafeMutableRawPointer { self.handle }

    private func setStaticOptions() {
        let h = self.handle
        let c = self.configuration
        // Results of setopt calls below are ignored only where libcurl documents the option as always
        // accepted for this build (long options with valid values); string options can fail only on
        // out-of-memory, which then surfaces as a transfer error.
        _ = ccurl_easy_setopt_long(h, CURLOPT_NOSIGNAL, 1)
        let me = Unmanaged.passUnretained(self).toOpaque()
        _ = ccurl_easy_setopt_pointer(h, CURLOPT_PRIVATE, me)
        let receiver = UnsafeMutableRawPointer(self.receiver)
        _ = ccurl_easy_setopt_data_callback(h, CURLOPT_WRITEFUNCTION, curlWriteBody)
        _ = ccurl_easy_setopt_pointer(h, CURLOPT_WRITEDATA, receiver)
        _ = ccurl_easy_setopt_data_callback(h, CURLOPT_HEADERFUNCTION, curlWriteHeader)
        _ = ccurl_easy_setopt_pointer(h, CURLOPT_HEADERDATA, receiver)
        _ = ccurl_easy_setopt_pointer(h, CURLOPT_ERRORBUFFER, self.errorBuffer)
        let upload = UnsafeMutableRawPointer(self.upload)
        _ = ccurl_easy_setopt_data_callback(h, CURLOPT_READFUNCTION, curlReadUpload)
        _ = ccurl_easy_setopt_pointer(h, CURLOPT_READDATA, upload)
        _ = ccurl_easy_setopt_seek_callback(h, curlSeekUpload)
        _ = ccurl_easy_setopt_pointer(h, CURLOPT_SEEKDATA, upload)
        if let share = self.share {
            _ = ccurl_easy_setopt_pointer(h, CURLOPT_SHARE, share.handle)
        }
        // Twice the 16 KB default: half the recv calls and write callbacks on large bodies.
        _ = ccurl_easy_setopt_long(h, CURLOPT_BUFFERSIZE, CurlEasy.receiveBufferBytes)
        _ = ccurl_easy_setopt_string(h, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = ccurl_easy_setopt_string(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        _ = ccurl_easy_setopt_long(h, CURLOPT_FOLLOWLOCATION, 0)
        if case .follow(let max) = c.redirects {
            _ = ccurl_easy_setopt_long(h, CURLOPT_MAXREDIRS, Swift.max(0, max))
        }
        _ = ccurl_easy_setopt_long(h, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(c.connectTimeout))
        if let timeout = c.timeout {
            _ = ccurl_easy_setopt_long(h, CURLOPT_TIMEOUT_MS, Self.milliseconds(timeout))
        }
        if let lowSpeed = c.lowSpeedLimit {
            _ = ccurl_easy_setopt_long(h, CURLOPT_LOW_SPEED_LIMIT, lowSpeed.bytesPerSecond)
            _ = ccurl_easy_setopt_long(h, CURLOPT_LOW_SPEED_TIME, Self.wholeSeconds(lowSpeed.duration))
        } else if let idle = c.idleTimeout {
            _ = ccurl_easy_setopt_long(h, CURLOPT_LOW_SPEED_LIMIT, 1)
            _ = ccurl_easy_setopt_long(h, CURLOPT_LOW_SPEED_TIME, Self.wholeSeconds(idle))
        }
        _ = ccurl_easy_setopt_off_t(h, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(c.effectiveMaxBodyBytes))
        switch c.httpVersion {
        case .http1_1:
            _ = ccurl_easy_setopt_long(h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_1_1))
        case .http2:
            _ = ccurl_easy_setopt_long(h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            // Wait for a connection being set up to say whether it multiplexes rather than open
            // one per transfer: without it, a batch's first 64 transfers open 64 connections.
            _ = ccurl_easy_setopt_long(h, CURLOPT_PIPEWAIT, 1)
        case .http2PriorKnowledge:
            _ = ccurl_easy_setopt_long(h, CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE))
            _ = ccurl_easy_setopt_long(h, CURLOPT_PIPEWAIT, 1)
        }
        // Makes libcurl decode what comes back. The `Accept-Encoding` header itself, like
        // `User-Agent`, is one of the default fields (see `Engine.Configuration.fieldsSent`).
        if let encoding = c.acceptEncoding {
            _ = ccurl_easy_setopt_string(h, CURLOPT_ACCEPT_ENCODING, encoding)
        }
        if c.capturesExchanges {
            // An archive keeps the body as sent, so libcurl leaves it coded and `finish` decodes
            // the response's copy; the request as sent reaches only the debug callback, which
            // libcurl calls in verbose mode.
            _ = ccurl_easy_setopt_long(h, CURLOPT_HTTP_CONTENT_DECODING, 0)
            _ = ccurl_easy_setopt_long(h, CURLOPT_VERBOSE, 1)
            _ = ccurl_easy_setopt_debug_callback(h, curlDebug)
            _ = ccurl_easy_setopt_pointer(h, CURLOPT_DEBUGDATA, receiver)
        }
        if c.proxy == "" || c.proxy == nil && !CurlGlobal.environmentNamesAProxy {
            // "No proxy", said once: otherwise libcurl looks up five environment variables for
            // every transfer (`no_proxy`, `NO_PROXY`, `http_proxy`, `all_proxy`, `ALL_PROXY`). With
            // a proxy in the environment libcurl keeps finding it itself, `no_proxy` included.
            _ = ccurl_easy_setopt_string(h, CURLOPT_PROXY, "")
            _ = ccurl_easy_setopt_string(h, CURLOPT_NOPROXY, "")
        } else {
            if let proxy = c.proxy {
                _ = ccurl_easy_setopt_string(h, CURLOPT_PROXY, proxy)
            }
            if let noProxy = c.noProxy {
                _ = ccurl_easy_setopt_string(h, CURLOPT_NOPROXY, noProxy)
            }
        }
        if let cookies = c.cookies {
            if let header = cookies.header {
                _ = ccurl_easy_setopt_string(h, CURLOPT_COOKIE, header)
            }
            if cookies.keepsJar {
                // The cookie engine on, reading no file: the jar is the share's (see `CurlCookieJar`).
                _ = ccurl_easy_setopt_string(h, CURLOPT_COOKIEFILE, "")
            }
        }
        _ = ccurl_easy_setopt_long(h, CURLOPT_SSL_VERIFYPEER, c.verifyTLS ? 1 : 0)
        _ = ccurl_easy_setopt_long(h, CURLOPT_SSL_VERIFYHOST, c.verifyTLS ? 2 : 0)
        if let caFile = c.caCertificateFile {
            // libcurl opens the file at each new connection's handshake, so an unreadable file
            // surfaces there, as CURLE_SSL_CACERT_BADFILE.
            _ = ccurl_easy_setopt_string(h, CURLOPT_CAINFO, caFile)
        }
        _ = ccurl_easy_setopt_slist(h, CURLOPT_HTTPHEADER, self.defaultHeaders.pointer)
    }

    /// Sets the per-request options for `transfer` and takes it on.
    /// - Returns: why the request cannot be sent, or `nil` when the handle is ready to add to the multi.
    func prepare(for transfer: Transfer) -> FetchError? {
        let request = transfer.request
        self.follow(request)
        // A preflight's redirect to another origin (robots.txt moved to another host) does not
        // carry the user's credentials there, as a followed redirect does not.
        let removing =
            transfer.preflight.map { Origin.of(request.url) == $0.origin ? [] : RedirectFollower.credentialFieldNames }
            ?? []
        if let error = self.send(request, removing: removing) {
            return error
        }
        self.setResume(transfer)
        if self.configuration.httpVersion == .http2PriorKnowledge && !CurlGlobal.reusesCleartextHTTP2 {
            self.setOneShotConnection(Self.isCleartext(request.url))
        }
        self.setProbeConnectTimeout(transfer.isProbe)
        self.receiver.pointee.keepsThisBody = transfer.preflight != nil
        self.transfer = transfer
        return nil
    }

    /// Keeps h2c transfers off reused connections, where libcurl 7.x breaks them (see
    /// ``CurlGlobal/reusesCleartextHTTP2``): a fresh connection each, closed after, and no waiting
    /// to multiplex onto another transfer's connection.
    private func setOneShotConnection(_ oneShot: Bool) {
        guard oneShot != self.usesOneShotConnection else {
            return
        }
        let h = self.handle
        _ = ccurl_easy_setopt_long(h, CURLOPT_FRESH_CONNECT, oneShot ? 1 : 0)
        _ = ccurl_easy_setopt_long(h, CURLOPT_FORBID_REUSE, oneShot ? 1 : 0)
        _ = ccurl_easy_setopt_long(h, CURLOPT_PIPEWAIT, oneShot ? 0 : 1)
        self.usesOneShotConnection = oneShot
    }

    private static func isCleartext(_ url: String) -> Bool {
        url.utf8.count >= 7 && url.utf8.prefix(7).lazy.map { $0 | 0x20 }.elementsEqual("http://".utf8)
    }

    /// Forgets the finished transfer; keeps the options that do not change between requests.
    func reset() {
        self.transfer = nil
        self.follower = nil
        self.resultCode = CURLE_OK
        self.receiver.pointee.reset()
        self.upload.pointee.close()
        self.errorBuffer[0] = 0
    }

    func gather(
        into details: TransferDetails, effectiveURL: String?, newConnections: Int, timings: Timings
    ) {
        self.receiver.pointee.trail?.gather(
            into: details, handle: self.handle, requestURL: self.transfer?.request.url ?? "",
            effectiveURL: effectiveURL, newConnections: newConnections, timings: timings)
    }

    static func milliseconds(_ duration: Duration) -> Int {
        Int(clamping: duration.nanoseconds / 1_000_000)
    }

    /// Rounded up, at least 1: libcurl's low-speed time counts whole seconds.
    private static func wholeSeconds(_ duration: Duration) -> Int {
        Swift.max(1, Int(clamping: (duration.nanoseconds + 999_999_999) / 1_000_000_000))
    }

    /// Gives a host's probe (``HostHealth``) its shorter connect timeout, and the next transfer the
    /// usual one again.
    private func setProbeConnectTimeout(_ probe: Bool) {
        guard probe != self.usesProbeConnectTimeout else {
            return
        }
        let usual = self.configuration.connectTimeout
        let timeout = probe ? Swift.min(usual, HostHealth.probeConnectTimeout) : usual
        _ = ccurl_easy_setopt_long(self.handle, CURLOPT_CONNECTTIMEOUT_MS, Self.milliseconds(timeout))
        self.usesProbeConnectTimeout = probe
    }
}

@available(*, unavailable)
extension CurlEasy: Sendable {}

private func curlWriteBody(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let total = size * count
    guard let data, let context, total > 0 else {
        return total
    }
    return context.assumingMemoryBound(to: CurlReceiver.self).pointee.receiveBody(data, count: total)
}

private func curlWriteHeader(
    _ data: UnsafeMutablePointer<CChar>?, _ size: Int, _ count: Int, _ context: UnsafeMutableRawPointer?
) -> Int {
    let total = size * count
    guard let data, let context, total > 0 else {
        return total
    }
    return context.assumingMemoryBound(to: CurlReceiver.self).pointee.receiveHeader(data, count: total)
}
