internal import CCurl

/// The one cookie jar of an engine's batch, kept in the share handle's cookies: fills it from
/// the cookie files when the engine starts and writes it to the jar file when the engine stops.
///
/// It owns an easy handle that never transfers anything: libcurl loads cookie files and writes
/// the jar only through an easy handle. Loaded here once, up front: a transfer's handle reads its
/// `CURLOPT_COOKIEFILE` when its first transfer starts, so with the files set on every handle,
/// each of the engine's handles would read them again into the shared jar, putting back cookies
/// that responses had since replaced. The transfers' handles start the cookie engine with `""`,
/// which reads nothing.
///
/// Threading: engine thread only, like the handles that share its cookies.
final class CurlCookieJar {
    private let handle: UnsafeMutableRawPointer
    /// Held so that the share outlives this handle, which is attached to it until cleanup.
    private let share: CurlShare
    private var jarSet: Bool

    /// - Returns: `nil` when libcurl cannot allocate a handle.
    init?(_ cookies: Engine.Cookies, share: CurlShare) {
        guard let handle = curl_easy_init() else {
            return nil
        }
        self.handle = handle
        self.share = share
        _ = ccurl_easy_setopt_pointer(handle, CURLOPT_SHARE, share.handle)
        for file in cookies.files where !file.isEmpty {
            _ = ccurl_easy_setopt_string(handle, CURLOPT_COOKIEFILE, file)
        }
        _ = ccurl_easy_setopt_string(handle, CURLOPT_COOKIELIST, "RELOAD")
        if let jar = cookies.jar {
            _ = ccurl_easy_setopt_string(handle, CURLOPT_COOKIEJAR, jar)
        }
        self.jarSet = cookies.jar != nil
    }

    /// Writes the jar file, when there is one; idempotent. Call once every transfer has ended.
    func close() {
        guard self.jarSet else {
            return
        }
        self.jarSet = false
        _ = ccurl_easy_setopt_string(self.handle, CURLOPT_COOKIELIST, "FLUSH")
        // Without its name, cleanup does not write the file a second time.
        _ = ccurl_easy_setopt_string(self.handle, CURLOPT_COOKIEJAR, nil)
    }

    deinit {
        self.close()
        curl_easy_cleanup(self.handle)
    }
}

@available(*, unavailable)
extension CurlCookieJar: Sendable {}
