internal import CCurl

#if canImport(Glibc)
    import Glibc
#endif

/// Owns the libcurl multi handle: the set of transfers in flight and their connection pool.
///
/// Threading: engine thread only, except ``wakeup``, whose `curl_multi_wakeup` libcurl documents
/// as callable from any thread.
final class CurlMulti {
    private let handle: UnsafeMutableRawPointer

    /// Creates the multi handle with the connection limits of `configuration`.
    init(configuration: Engine.Configuration) throws(FetchError) {
        if let error = CurlGlobal.initializationError {
            throw error
        }
        guard let handle = curl_multi_init() else {
            throw FetchError(kind: .other, message: "libcurl could not create a multi handle (out of memory?)")
        }
        self.handle = handle
        _ = ccurl_multi_setopt_long(handle, CURLMOPT_MAXCONNECTS, Self.connectionCacheSize(for: configuration))
        _ = ccurl_multi_setopt_long(handle, CURLMOPT_MAX_HOST_CONNECTIONS, max(0, configuration.maxConnectionsPerHost))
        _ = ccurl_multi_setopt_long(handle, CURLMOPT_MAX_TOTAL_CONNECTIONS, max(0, configuration.maxTotalConnections))
        _ = ccurl_multi_setopt_long(handle, CURLMOPT_PIPELINING, CURLPIPE_MULTIPLEX)
        if configuration.httpVersion != .http1_1 {
            // libcurl puts at most min(this, the server's SETTINGS_MAX_CONCURRENT_STREAMS) streams on
            // one HTTP/2 connection, 100 by default; a cap above that would open a second connection
            // that the server did not ask for.
            _ = ccurl_multi_setopt_long(
                handle, CURLMOPT_MAX_CONCURRENT_STREAMS, max(1, configuration.maxInFlight))
        }
    }

    deinit {
        curl_multi_cleanup(self.handle)
    }

    /// How many connections libcurl keeps open, in use or idle: room for every host in play, not
    /// only for the transfers in flight. A cache the size of the in-flight cap closes an idle
    /// connection of one host whenever another host needs a new one, so over many hosts most
    /// requests paid a new connection (and a TLS handshake). Four times the cap is libcurl's own
    /// default for a multi handle (curl `--parallel`'s); past that the oldest idle connection is
    /// closed first, and libcurl closes idle ones by age (`CURLOPT_MAXAGE_CONN`). Bounded by half
    /// the descriptor limit, never below the cap itself.
    static func connectionCacheSize(for configuration: Engine.Configuration) -> Int {
        let wanted = max(4 * configuration.maxInFlight, 64)
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else {
            return wanted
        }
        let descriptors = Int(clamping: limit.rlim_cur / 2)
        return max(configuration.maxInFlight, min(wanted, descriptors))
    }

    /// The cross-thread wake-up capability of this handle.
    var wakeup: CurlWakeup { CurlWakeup(handle: self.handle) }

    /// Starts a prepared transfer.
    func add(_ easy: CurlEasy) -> FetchError? {
        let code = curl_multi_add_handle(self.handle, easy.rawHandle)
        guard code == CURLM_OK else {
            return FetchError(
                kind: .other, message: "libcurl refused the transfer: \(String(cString: curl_multi_strerror(code)))")
        }
        return nil
    }

    /// Stops a transfer, finished or not; its connection goes back to the pool if it is reusable.
    func remove(_ easy: CurlEasy) {
        _ = curl_multi_remove_handle(self.handle, easy.rawHandle)
    }

    /// Lets libcurl do whatever I/O is ready, without blocking.
    func perform() {
        var running: Int32 = 0
        _ = curl_multi_perform(self.handle, &running)
    }

    /// Waits until a socket is ready, libcurl's own timer is due, `milliseconds` pass, or ``wakeup``
    /// is called from another thread.
    func poll(milliseconds: Int) {
        _ = curl_multi_poll(self.handle, nil, 0, Int32(clamping: milliseconds), nil)
    }

    /// Removes every finished transfer from the multi handle and hands its easy handle, with its
    /// result code recorded, to `body`.
    func drainCompleted(_ body: (CurlEasy) -> Void) {
        var remaining: Int32 = 0
        while let message = curl_multi_info_read(self.handle, &remaining) {
            guard message.pointee.msg == CURLMSG_DONE, let easyHandle = message.pointee.easy_handle else {
                continue
            }
            // Read everything from the message before remove_handle: libcurl frees it there.
            let code = ccurl_msg_result(message)
            var context: UnsafeMutableRawPointer? = nil
            _ = ccurl_easy_getinfo_pointer(easyHandle, CURLINFO_PRIVATE, &context)
            _ = curl_multi_remove_handle(self.handle, easyHandle)
            guard let context else {
                preconditionFailure("finished easy handle without its CurlEasy in CURLOPT_PRIVATE")
            }
            let easy = Unmanaged<CurlEasy>.fromOpaque(context).takeUnretainedValue()
            easy.resultCode = code
            body(easy)
        }
    }
}

@available(*, unavailable)
extension CurlMulti: Sendable {}

/// Wakes a multi handle's `curl_multi_poll` from any thread.
///
/// `@unchecked Sendable` because it only ever calls `curl_multi_wakeup`, which libcurl makes
/// thread-safe. The caller must not use it after the multi handle is cleaned up: ``EngineCore``
/// guards that by calling it under its lock and clearing it, under the same lock, before cleanup.
struct CurlWakeup: @unchecked Sendable {
    fileprivate let handle: UnsafeMutableRawPointer

    func wake() {
        _ = curl_multi_wakeup(self.handle)
    }
}
