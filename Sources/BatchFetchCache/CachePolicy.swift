import BatchFetch
import Foundation

/// The cache's decisions that need no store and no clock of their own: what may be stored, the
/// key and `Vary` match, which header fields are kept, the conditional request, and how a `304`
/// refreshes stored header fields (RFC 9111 §3, §4.1, §4.3). Pure; tested without a network.
enum CachePolicy {
    /// Statuses a cache may store without explicit freshness (RFC 9110 §15.1, "heuristically
    /// cacheable"); batchfetch stores only these.
    static let storableStatuses: Set<Int> = [200, 203, 204, 300, 301, 308, 404, 405, 410, 414, 501]

    /// Response fields never stored: connection-level ones, framing that no longer describes the
    /// stored (decoded) body, and cookies.
    static let unstoredFields: [StaticString] = [
        "connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade",
        "content-length", "content-encoding", "set-cookie", "set-cookie2", "proxy-authenticate",
    ]

    /// The store key of a request (only GET requests are cached).
    static func key(for request: Request) -> String {
        "GET " + request.url
    }

    /// Whether the request carries credentials, whose responses are never stored: user info in
    /// the URL, a secret query value (as ``Swift/String/redactedURL`` hides), or a credential field
    /// (`Authorization`, `Proxy-Authorization`, `Cookie`, `X-Api-Key`) of its own or the engine's.
    static func carriesCredentials(_ request: Request, defaults: [HeaderField]) -> Bool {
        // Runs for every request of a cached batch (a warm crawl spent half its cache time here
        // with `redactedURL` and lower-cased copies of names): bytes only, no allocation.
        var url = request.url
        let secret = url.withUTF8 { bytes in
            var start = 0
            if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes[colon...].starts(with: "://".utf8) {
                start = colon + 3
            }
            let authority = bytes[start...].prefix(while: {
                $0 != UInt8(ascii: "/") && $0 != UInt8(ascii: "?") && $0 != UInt8(ascii: "#")
            })
            return authority.contains(UInt8(ascii: "@")) || String.holdsSecret(bytes)
        }
        return secret || request.headers.contains(where: Self.isCredential)
            || defaults.contains(where: Self.isCredential)
    }

    private static func isCredential(_ field: HeaderField) -> Bool {
        HeaderField.redactedNames.contains {
            $0.utf8.elementsEqual(field.name.utf8, by: UInt8.asciiCaseInsensitiveEqual)
        }
    }

    /// Whether the request may use the cache at all: a GET without credentials and without a
    /// `Cache-Control: no-store` of its own.
    static func isCacheable(_ request: Request, defaults: [HeaderField]) -> Bool {
        guard request.method == .get, !self.carriesCredentials(request, defaults: defaults) else {
            return false
        }
        return !request.headers.contains {
            $0.name.lowercased() == "cache-control" && $0.value.lowercased().contains("no-store")
        }
    }

    /// The field names a response's `Vary` lists, lower-cased and sorted; `nil` for `Vary: *`
    /// (the response varies on something no request shows, so it is not stored).
    static func varyNames(_ headers: HTTPHeaders) -> [String]? {
        var names: [String] = []
        for value in headers.values(for: "vary") {
            for name in value.split(separator: ",") {
                let name = name.trimmingCharacters(in: .whitespaces).lowercased()
                if name == "*" {
                    return nil
                }
                if !name.isEmpty {
                    names.append(name)
                }
            }
        }
        return names.sorted()
    }

    /// The request's values of `names` (its own fields over the engine's), as stored beside the
    /// entry: a later request matches only when it sends the same values (RFC 9111 §4.1).
    static func varyKey(names: [String], request: Request, defaults: [HeaderField]) -> String {
        var key = ""
        for name in names {
            let value =
                request.headers.last(where: { $0.name.lowercased() == name })?.value
                ?? defaults.last(where: { $0.name.lowercased() == name })?.value ?? ""
            key += name + ":" + value + "\n"
        }
        return key
    }

    /// The response fields to store, as a raw block. Bytes only: this runs for every response a
    /// cold run stores.
    static func storedFields(_ headers: HTTPHeaders) -> [UInt8] {
        var raw: [UInt8] = []
        headers.forEachField { name, value in
            if Self.isStored(name) {
                HTTPHeaders.append(name: name, value: value, to: &raw)
            }
        }
        return raw
    }

    /// The stored fields updated with a `304`'s (RFC 9111 §3.2): each field the `304` carries
    /// replaces the stored ones of that name; the others stay.
    static func refreshedFields(stored: HTTPHeaders, notModified: HTTPHeaders) -> [UInt8] {
        var fresh: [(name: ArraySlice<UInt8>, value: ArraySlice<UInt8>)] = []
        notModified.forEachField { name, value in
            if Self.isStored(name) {
                fresh.append((name, value))
            }
        }
        var raw: [UInt8] = []
        stored.forEachField { name, value in
            if !fresh.contains(where: { HTTPHeaders.sameName($0.name, name) }) {
                HTTPHeaders.append(name: name, value: value, to: &raw)
            }
        }
        for field in fresh {
            HTTPHeaders.append(name: field.name, value: field.value, to: &raw)
        }
        return raw
    }

    private static func isStored(_ name: ArraySlice<UInt8>) -> Bool {
        !Self.unstoredFields.contains { name.isASCIICaseInsensitive($0) }
    }

    /// `request` with the validators of `stored`: `If-None-Match` with its `ETag`, and
    /// `If-Modified-Since` with its `Last-Modified`; `nil` when it has neither.
    static func conditionalRequest(_ request: Request, stored: HTTPHeaders) -> Request? {
        let etag = stored["etag"]
        let lastModified = stored["last-modified"]
        guard etag != nil || lastModified != nil else {
            return nil
        }
        var conditional = request
        if let etag {
            conditional.headers.append(HeaderField(name: "If-None-Match", value: etag))
        }
        if let lastModified {
            conditional.headers.append(HeaderField(name: "If-Modified-Since", value: lastModified))
        }
        return conditional
    }
}
