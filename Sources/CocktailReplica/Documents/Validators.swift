/// The replica's cache validators (RFC 9110 §8.8) and its answer to conditional requests (§13).
///
/// Deterministic, so two replicas with the same seed and scale agree and a cache filled against
/// one revalidates against the other: the entity tag is a hash of the body, and every document
/// carries the same `Last-Modified` (the catalogue is generated, not edited, so it has no history).
/// Pure: no clock, no I/O.
enum Validators {
    /// The `Last-Modified` of every document: 2024-01-01T00:00:00Z.
    static let lastModified = HTTPDate.format(secondsSince1970: 1_704_067_200)

    /// A strong entity tag for `body`: the quoted hex of its 64-bit FNV-1a hash.
    static func entityTag<Bytes: Sequence<UInt8>>(for body: Bytes) -> String {
        Self.entityTag(hash: StableHash.fnv1a(body))
    }

    /// A strong entity tag from a 64-bit hash that identifies the body's bytes.
    ///
    /// Images use it with a hash combined from their parts (see ``JPEGStripePool``), which
    /// identifies the bytes as well as hashing them would, without reading 50 KB per response.
    static func entityTag(hash: UInt64) -> String {
        let hex = String(hash, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    /// Whether a GET or HEAD with these conditional headers is answered `304 Not Modified`.
    ///
    /// `If-None-Match` wins when present (RFC 9110 §13.2.2): it matches when any listed tag equals
    /// `entityTag` by weak comparison (`W/` ignored), or is `*`. Otherwise `If-Modified-Since`
    /// matches when it equals `lastModified` exactly, as nginx compares it by default
    /// (`if_modified_since exact`): clients echo the value they were given.
    static func notModified(
        ifNoneMatch: String?, ifModifiedSince: String?, entityTag: String, lastModified: String
    ) -> Bool {
        if let ifNoneMatch {
            let opaque = Self.opaque(entityTag[...])
            return ifNoneMatch.split(separator: ",").contains { candidate in
                let tag = candidate.trimmingCharacters(in: .whitespaces)
                return tag == "*" || Self.opaque(tag[...]) == opaque
            }
        }
        if let ifModifiedSince {
            return ifModifiedSince.trimmingCharacters(in: .whitespaces) == lastModified
        }
        return false
    }

    private static func opaque(_ tag: Substring) -> Substring {
        tag.hasPrefix("W/") ? tag.dropFirst(2) : tag
    }
}
