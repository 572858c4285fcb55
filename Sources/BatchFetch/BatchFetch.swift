/// Facts about the library itself.
public enum BatchFetch {
    /// The library version, also sent in the default `User-Agent`.
    public static let version = "0.1.0"

    /// The version of the libcurl in use, e.g. `libcurl/7.88.1 OpenSSL/3.0.19 zlib/1.2.13 …`.
    public static var libcurlVersion: String { CurlGlobal.version }

    /// Whether HTTP/2 with prior knowledge over cleartext (h2c) multiplexes requests over a
    /// connection. It does with libcurl 8.0.0 and later; with older ones, which break reused h2c
    /// connections, each such request gets a connection of its own (see
    /// ``Engine/HTTPVersionPreference/http2PriorKnowledge``).
    public static var multiplexesCleartextHTTP2: Bool { CurlGlobal.reusesCleartextHTTP2 }
}
