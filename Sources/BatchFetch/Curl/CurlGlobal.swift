internal import CCrypto
internal import CCurl
import Foundation

/// Process-wide libcurl setup, done exactly once.
///
/// `curl_global_init` is not thread-safe in libcurl 7.x and must run before any other call; a
/// Swift `static let` is initialised once, under a lock, on first use, which is exactly that.
/// It also ignores SIGPIPE: with `CURLOPT_NOSIGNAL` libcurl no longer does, and a write to a
/// socket the server closed must become an error, not the end of the process.
enum CurlGlobal {
    /// `nil` when libcurl initialised, else why it did not.
    static let initializationError: FetchError? = {
        ccurl_ignore_sigpipe()
        // OpenSSL's exit-time cleanup would free what threads still at work in `exit()` use: the
        // engine thread on a second Ctrl-C, a thread hashing a saved body. A process that exits
        // needs none of it freed (see also `releaseThreadState`).
        _ = ccrypto_init_without_atexit()
        let code = curl_global_init(Int(CURL_GLOBAL_ALL))
        guard code == CURLE_OK else {
            return FetchError(kind: .other, message: "libcurl failed to initialise: \(CurlGlobal.text(of: code))")
        }
        return nil
    }()

    /// Frees what OpenSSL keeps for the calling thread now, instead of from the thread's exit.
    ///
    /// OpenSSL, libcurl's TLS library, keeps state in each thread that calls it (its error queue
    /// and a list of thread-exit handlers) and frees it from a destructor that runs as the thread
    /// ends. The engine thread is such a thread even for plain HTTP: it is where `curl_global_init`
    /// first runs (`initializationError`, from `CurlMulti`). `exit()` runs OpenSSL's atexit
    /// handler, `OPENSSL_cleanup`, which frees the globals that destructor uses; an engine thread
    /// still ending as the command exited crashed in it. `fetch` died of SIGSEGV once in thousands
    /// of runs, and every run when a preloaded shim held the destructor for 200 ms (ReliabilityTests,
    /// `ExitRaceTests`). Called last on the engine thread, before it says it exited; a thread that
    /// calls OpenSSL again gets new state, which its exit frees as before.
    static func releaseThreadState() {
        OPENSSL_thread_stop()
    }

    /// libcurl's version string, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 …`.
    static var version: String {
        String(cString: curl_version())
    }

    /// Whether libcurl can send a request over a cleartext HTTP/2 connection it reuses (h2c with
    /// prior knowledge). Before 8.0.0 it set up HTTP/2 on the connection a second time, and every
    /// stream on it failed with "Error in the HTTP2 framing layer" (curl issue 10634, fixed by
    /// pull request 10643); Debian 12 ships 7.88.1 without the fix.
    static let reusesCleartextHTTP2: Bool = {
        guard let info = curl_version_info(CURLVERSION_FIRST) else {
            return false
        }
        return info.pointee.version_num >= 0x08_00_00
    }()

    /// What libcurl sends as `Accept-Encoding` when `CURLOPT_ACCEPT_ENCODING` is `""`: every
    /// encoding it can decode, in its own order (`deflate, gzip, br, zstd` on Debian 12). `nil`
    /// when it can decode none, where libcurl would send `identity`.
    static let allContentEncodings: String? = {
        guard let info = curl_version_info(CURLVERSION_FIRST) else {
            return nil
        }
        let features = info.pointee.features
        var names: [String] = []
        if features & CURL_VERSION_LIBZ != 0 {
            names += ["deflate", "gzip"]
        }
        if features & CURL_VERSION_BROTLI != 0 {
            names.append("br")
        }
        if features & CURL_VERSION_ZSTD != 0 {
            names.append("zstd")
        }
        return names.isEmpty ? nil : names.joined(separator: ", ")
    }()

    /// Whether the environment names a proxy that libcurl would use for `http` or `https`:
    /// `http_proxy`, `https_proxy` or `HTTPS_PROXY`, `all_proxy` or `ALL_PROXY`, set and not empty.
    /// (libcurl ignores `HTTP_PROXY`, which a CGI request's `Proxy:` header could set.)
    /// Read once, when first asked; libcurl itself reads them again for every transfer.
    static let environmentNamesAProxy: Bool = {
        let environment = ProcessInfo.processInfo.environment
        return ["http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"].contains {
            !(environment[$0] ?? "").isEmpty
        }
    }()

    /// The short description libcurl gives a result code.
    static func text(of code: CURLcode) -> String {
        String(cString: curl_easy_strerror(code))
    }
}
