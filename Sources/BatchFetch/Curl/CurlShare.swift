internal import CCurl

/// Owns a libcurl share handle through which one engine's easy handles share TLS sessions, and
/// when the engine keeps cookies, its cookie jar (see ``CurlCookieJar``).
///
/// libcurl keeps TLS sessions per easy handle unless they share them. With HTTP/2 one handle
/// makes the handshake, and when the server ends that connection (nginx does after 1,000
/// requests by default) whichever handle opens the next one had no session to resume, so it paid
/// for a full handshake, certificate verification included. Shared, every new connection to a
/// host resumes the session of the last one.
///
/// Threading: engine thread only. It has no lock callbacks, which libcurl needs only when the
/// handles that use it run on several threads. Each ``CurlEasy`` using it holds a reference, so
/// it is cleaned up after the last of them (libcurl refuses to free a share still in use).
final class CurlShare {
    let handle: UnsafeMutableRawPointer

    /// - Returns: `nil` when libcurl cannot allocate the share or share what it is asked to; the
    ///   handles then keep their own, as they would without it.
    init?(sharingCookies: Bool = false) {
        guard let handle = curl_share_init() else {
            return nil
        }
        var shared = [CURL_LOCK_DATA_SSL_SESSION]
        if sharingCookies {
            shared.append(CURL_LOCK_DATA_COOKIE)
        }
        for data in shared where ccurl_share_setopt_lock_data(handle, CURLSHOPT_SHARE, data) != CURLSHE_OK {
            curl_share_cleanup(handle)
            return nil
        }
        self.handle = handle
    }

    deinit {
        curl_share_cleanup(self.handle)
    }
}

@available(*, unavailable)
extension CurlShare: Sendable {}
