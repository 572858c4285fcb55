import BatchFetch
import Foundation

/// Where TheCocktailDB's API lives and which key to use; builds endpoint URLs.
///
/// The base URL may name the API root with or without the key segment — `…/api/json/v1/` or
/// `…/api/json/v1/1/` (what `cocktaildb-replica` prints) — and the key fills or replaces that segment.
public struct CocktailDB: Sendable, Hashable {
    /// The public API root.
    public static let publicBaseURL = "https://www.thecocktaildb.com/api/json/v1/"

    /// The root every endpoint hangs under, with the key, ending in `/`.
    public let root: String
    /// The API key (`1` is the public test key).
    public let apiKey: String

    /// Creates the API location.
    /// - Throws: ``FetchError/Kind/invalidURL`` for a base URL that is not http(s), and
    ///   ``FetchError/Kind/invalidParameter`` for a key that is not a plain path segment.
    public init(baseURL: String = CocktailDB.publicBaseURL, apiKey: String = "1") throws(FetchError) {
        if let error = Request(baseURL).validate() {
            throw error
        }
        guard !apiKey.isEmpty,
            apiKey.unicodeScalars.allSatisfy({
                $0.isASCII
                    && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "-_".unicodeScalars.contains($0))
            })
        else {
            throw FetchError(kind: .invalidParameter, message: "API key must be letters, digits, '-' or '_'")
        }
        var base = baseURL
        if let query = base.firstIndex(where: { $0 == "?" || $0 == "#" }) {
            base = String(base[..<query])
        }
        while base.hasSuffix("/") {
            base.removeLast()
        }
        let marker = "/api/json/v1"
        if let range = base.range(of: marker, options: .backwards) {
            // Anything after `/api/json/v1` is the key segment: replaced.
            base = String(base[..<range.upperBound])
        }
        self.root = base + "/" + apiKey + "/"
        self.apiKey = apiKey
    }

    /// The URL of an endpoint (parameters not validated; see ``request(_:)``).
    public func url(_ endpoint: Endpoint) -> String {
        // Appended in place: a crawl builds one URL per drink, and the map, interpolation and
        // join this replaced cost ~5k instructions a URL.
        var url = ""
        url.reserveCapacity(self.root.utf8.count + 64)
        url += self.root
        url += endpoint.path
        for (position, item) in endpoint.query.enumerated() {
            url += position == 0 ? "?" : "&"
            url += item.name
            url += "="
            QueryEncoding.append(item.value, to: &url)
        }
        return url
    }

    /// `url` as it may be shown in records, logs and messages: a private key's segment replaced by
    /// `***` (the public test key `1` is no secret and stays), then ``Swift/String/redactedURL``.
    func redacted(_ url: String) -> String {
        guard self.apiKey != "1", url.hasPrefix(self.root) else {
            return url.redactedURL
        }
        let keyless = self.root.dropLast(self.apiKey.count + 1) + "***/"
        return String(keyless + url.dropFirst(self.root.count)).redactedURL
    }

    /// A request for an endpoint, after validating its parameters.
    public func request(_ endpoint: Endpoint) throws(FetchError) -> Request {
        try endpoint.validate()
        return Request(self.url(endpoint))
    }
}

/// Percent-encoding of query values by RFC 3986: only unreserved characters (`A–Z a–z 0–9 - . _ ~`)
/// stay as they are; every other byte of the UTF-8 form becomes `%XX`. So spaces are `%20`,
/// `/` is `%2F`, and `&`, `=`, `+`, `#` cannot break the query.
public enum QueryEncoding {
    /// Encodes one query value.
    public static func encode(_ value: String) -> String {
        var out = ""
        Self.append(value, to: &out)
        return out
    }

    /// Appends one query value, encoded, to `url` (as it is when nothing needs encoding, as with
    /// a drink's id).
    static func append(_ value: String, to url: inout String) {
        guard value.utf8.contains(where: { !Self.isUnreserved($0) }) else {
            url += value
            return
        }
        let hex: StaticString = "0123456789ABCDEF"
        var out: [UInt8] = []
        out.reserveCapacity(value.utf8.count * 3)
        for byte in value.utf8 {
            if Self.isUnreserved(byte) {
                out.append(byte)
            } else {
                out.append(UInt8(ascii: "%"))
                out.append(hex.utf8Start[Int(byte >> 4)])
                out.append(hex.utf8Start[Int(byte & 0x0F)])
            }
        }
        url += String(decoding: out, as: UTF8.self)
    }

    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
            UInt8(ascii: "~"):
            true
        default:
            false
        }
    }
}
