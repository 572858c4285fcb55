extension RobotsTxt {
    /// The path and query of a URL as robots.txt rules see them, found as Google's matcher finds
    /// them: after the scheme and authority, up to the fragment; `/` where there is none, and a `/`
    /// put before a query or `;` parameters that come first.
    ///
    /// For callers holding a URL string rather than a parsed request; the engine, which has the
    /// request's own path, passes that to ``RobotsMatcher/verdict(forPath:)-(String)`` instead.
    public static func pathAndQuery(ofURL url: String) -> String {
        let octets = Array(url.utf8)
        let isDelimiter: (UInt8) -> Bool = {
            $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "?") || $0 == UInt8(ascii: ";")
        }
        // Two leading slashes start an authority, as in `//host/path`.
        let searchStart = octets.starts(with: [UInt8(ascii: "/"), UInt8(ascii: "/")]) ? 2 : 0
        let early = octets[searchStart...].firstIndex(where: isDelimiter) ?? octets.endIndex
        var authorityStart = searchStart
        if let schemeEnd = Self.firstIndex(of: Array("://".utf8), in: octets, from: searchStart), schemeEnd < early {
            authorityStart = schemeEnd + 3
        }
        guard let pathStart = octets[authorityStart...].firstIndex(where: isDelimiter) else {
            return "/"
        }
        let hash = octets[searchStart...].firstIndex(of: UInt8(ascii: "#"))
        if let hash, hash < pathStart {
            return "/"
        }
        let path = octets[pathStart..<(hash ?? octets.endIndex)]
        let text = String(decoding: path, as: UTF8.self)
        return path.first == UInt8(ascii: "/") ? text : "/" + text
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8], from start: Int) -> Int? {
        guard haystack.count - needle.count >= start else {
            return nil
        }
        return (start...(haystack.count - needle.count)).first {
            haystack[$0..<($0 + needle.count)].elementsEqual(needle)
        }
    }
}
