internal import CCurl

extension FetchError {
    /// The one place a libcurl result code becomes a ``FetchError``.
    ///
    /// - Parameters:
    ///   - code: the transfer's result.
    ///   - detail: libcurl's error buffer for the transfer (more specific than `curl_easy_strerror`).
    init(curlCode code: CURLcode, detail: String) {
        let (kind, summary) = FetchError.classify(curlCode: Int(code.rawValue))
        let text = detail.isEmpty ? CurlGlobal.text(of: code) : detail
        self.init(kind: kind, message: Self.message(summary, detail: text))
    }

    /// The summary, then libcurl's detail; a detail that starts with what the summary says
    /// ("Could not resolve host: h") is not said twice.
    static func message(_ summary: String, detail: String) -> String {
        guard detail.lowercased().hasPrefix(summary.lowercased()) else {
            return "\(summary): \(detail)"
        }
        return summary + detail.dropFirst(summary.count)
    }

    /// Maps a libcurl result code (see `curl.h`) to a kind and a short summary a user can act on.
    static func classify(curlCode: Int) -> (Kind, String) {
        switch UInt32(truncatingIfNeeded: curlCode) {
        case CURLE_UNSUPPORTED_PROTOCOL.rawValue:
            return (.unsupportedScheme, "scheme not allowed (only http and https are fetched, also after redirects)")
        case CURLE_URL_MALFORMAT.rawValue:
            return (.invalidURL, "malformed URL")
        case CURLE_COULDNT_RESOLVE_HOST.rawValue, CURLE_COULDNT_RESOLVE_PROXY.rawValue:
            return (.dnsFailure, "could not resolve host")
        case CURLE_COULDNT_CONNECT.rawValue:
            return (.connectFailed, "could not connect")
        case CURLE_OPERATION_TIMEDOUT.rawValue:
            return (.timeout, "timed out")
        case CURLE_SSL_CONNECT_ERROR.rawValue, CURLE_PEER_FAILED_VERIFICATION.rawValue,
            CURLE_SSL_CERTPROBLEM.rawValue, CURLE_SSL_CIPHER.rawValue, CURLE_SSL_CACERT_BADFILE.rawValue,
            CURLE_SSL_ISSUER_ERROR.rawValue, CURLE_SSL_PINNEDPUBKEYNOTMATCH.rawValue,
            CURLE_SSL_INVALIDCERTSTATUS.rawValue, CURLE_SSL_ENGINE_NOTFOUND.rawValue,
            CURLE_SSL_ENGINE_SETFAILED.rawValue, CURLE_SSL_ENGINE_INITFAILED.rawValue,
            CURLE_SSL_SHUTDOWN_FAILED.rawValue, CURLE_SSL_CRL_BADFILE.rawValue, CURLE_USE_SSL_FAILED.rawValue:
            return (.tlsFailure, "TLS failed (certificate verification is on; use --insecure only for hosts you trust)")
        case CURLE_FILESIZE_EXCEEDED.rawValue:
            return (.tooLarge, "body larger than the configured maximum")
        case CURLE_TOO_MANY_REDIRECTS.rawValue:
            return (.tooManyRedirects, "too many redirects")
        case CURLE_SEND_ERROR.rawValue, CURLE_RECV_ERROR.rawValue, CURLE_PARTIAL_FILE.rawValue,
            CURLE_GOT_NOTHING.rawValue, CURLE_HTTP2.rawValue, CURLE_HTTP2_STREAM.rawValue, CURLE_HTTP3.rawValue:
            return (.transport, "connection broke")
        case CURLE_WEIRD_SERVER_REPLY.rawValue, CURLE_BAD_CONTENT_ENCODING.rawValue:
            return (.invalidResponse, "invalid response")
        case CURLE_ABORTED_BY_CALLBACK.rawValue:
            return (.cancelled, "cancelled")
        default:
            return (.other, "transfer failed")
        }
    }
}
