internal import CCurl

extension BatchFetch {
    /// What a bug report needs, as `curl --version` gives it: batchfetch's version, the libcurl
    /// it was built against and the one it runs with, the TLS library, HTTP/2 (nghttp2) and the
    /// content decoders, and the SIMD level of the body kernels (``SIMDLevel``), e.g.
    ///
    /// ```
    /// batchfetch 0.1.0
    /// libcurl 7.88.1 (built against 7.88.1)
    /// TLS: OpenSSL/3.0.19
    /// HTTP/2: nghttp2/1.52.0
    /// decoders: gzip, deflate (zlib/1.2.13), br (brotli/1.0.9), zstd (zstd/1.5.4)
    /// SIMD: avx2 (the CPU's best; BATCHFETCH_SIMD may ask for less)
    /// ```
    public static var versionReport: String {
        var lines = ["batchfetch \(Self.version)"]
        guard let info = curl_version_info(CURLVERSION_FIRST)?.pointee else {
            lines.append("libcurl: unknown (curl_version_info gave nothing)")
            return lines.joined(separator: "\n")
        }
        // Fields past the first ones exist only from the `age` that added them on.
        let text: (UnsafePointer<CChar>?) -> String? = { $0.map { String(cString: $0) } }
        lines.append("libcurl \(text(info.version) ?? "?") (built against \(LIBCURL_VERSION))")
        lines.append("TLS: \(text(info.ssl_version) ?? "none")")
        let nghttp2 = info.age.rawValue >= CURLVERSION_SIXTH.rawValue ? text(info.nghttp2_version) : nil
        // 7.88 gives "1.0.9" where 8.x gives "brotli/1.0.9": name it once either way.
        let named: (String, String?) -> String = { name, version in
            guard let version else {
                return name
            }
            return version.contains("/") ? version : "\(name)/\(version)"
        }
        let http2 = info.features & CURL_VERSION_HTTP2 != 0
        lines.append("HTTP/2: \(http2 ? named("nghttp2", nghttp2) : "no")")
        var decoders: [String] = []
        if info.features & CURL_VERSION_LIBZ != 0 {
            decoders.append("gzip, deflate (zlib/\(text(info.libz_version) ?? "?"))")
        }
        if info.features & CURL_VERSION_BROTLI != 0 {
            let version = info.age.rawValue >= CURLVERSION_FIFTH.rawValue ? text(info.brotli_version) : nil
            decoders.append("br (\(named("brotli", version)))")
        }
        if info.features & CURL_VERSION_ZSTD != 0 {
            let version = info.age.rawValue >= CURLVERSION_EIGHTH.rawValue ? text(info.zstd_version) : nil
            decoders.append("zstd (\(named("zstd", version)))")
        }
        lines.append("decoders: \(decoders.isEmpty ? "none" : decoders.joined(separator: ", "))")
        lines.append(SIMDLevel.report)
        return lines.joined(separator: "\n")
    }
}
