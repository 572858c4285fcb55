internal import CCurl

/// What libcurl reports of a handle's finished attempt, read with `curl_easy_getinfo`.
extension CurlEasy {
    /// The attempt's timings, libcurl's running totals from its start, and `queued` before it.
    func timings(queued: Duration) -> Timings {
        Timings(
            queued: queued,
            nameLookup: self.microseconds(CURLINFO_NAMELOOKUP_TIME_T),
            connect: self.microseconds(CURLINFO_CONNECT_TIME_T),
            tlsHandshake: self.microseconds(CURLINFO_APPCONNECT_TIME_T),
            preTransfer: self.microseconds(CURLINFO_PRETRANSFER_TIME_T),
            firstByte: self.microseconds(CURLINFO_STARTTRANSFER_TIME_T),
            total: self.microseconds(CURLINFO_TOTAL_TIME_T)
        )
    }

    private func microseconds(_ info: CURLINFO) -> Duration {
        var value: curl_off_t = 0
        _ = ccurl_easy_getinfo_off_t(self.rawHandle, info, &value)
        return .microseconds(Int64(value))
    }

    /// The HTTP version of a `CURLINFO_HTTP_VERSION` value (HTTP/1.1 for one it does not name).
    static func httpVersion(_ value: Int) -> HTTPVersion {
        switch value {
        case Int(CURL_HTTP_VERSION_1_0): .http1_0
        case Int(CURL_HTTP_VERSION_2_0): .http2
        case Int(CURL_HTTP_VERSION_3): .http3
        default: .http1_1
        }
    }
}
