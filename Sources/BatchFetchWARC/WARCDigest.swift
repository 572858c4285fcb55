import BatchFetch
internal import CCrypto

/// The hash a ``WARCRecord``'s `WARC-Block-Digest` and `WARC-Payload-Digest` use, written as
/// `<algorithm>:<base32 of the hash>` (WARC 1.1 §5.8, 5.9).
///
/// SHA-1 is the default because the readers and dedup tools that compare payload digests across
/// archives (pywb, warcprox, Common Crawl's indexes) expect it; SHA-256 for those who ask.
public enum WARCDigest: String, Sendable, CaseIterable {
    /// `sha1:` and 32 base32 characters.
    case sha1
    /// `sha256:` and 56 base32 characters.
    case sha256

    /// The labelled digest of `bytes`, e.g. `sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ`.
    public func label(of bytes: some Collection<UInt8>) -> String {
        Base32.encode(self.hash(of: bytes), after: self.label)
    }

    /// The labelled digest a hash the engine made stands for, when it is this function's; `nil`
    /// for another's.
    public func label(ofHash hash: Exchange.BodyHash) -> String? {
        hash.algorithm.rawValue == self.rawValue ? Base32.encode(hash.bytes, after: self.label) : nil
    }

    /// As ``label(ofHash:)``, for the hash of the head and body together
    /// (``Exchange/BodyHash/messageBytes``).
    func label(ofMessageHash hash: Exchange.BodyHash) -> String? {
        guard hash.algorithm.rawValue == self.rawValue, let bytes = hash.messageBytes else {
            return nil
        }
        return Base32.encode(bytes, after: self.label)
    }

    /// What a labelled digest starts with: `sha1:`.
    private var label: String {
        switch self {
        case .sha1: "sha1:"
        case .sha256: "sha256:"
        }
    }

    /// The engine's name for this function (``Exchange/BodyHash/Algorithm``).
    public var bodyHashAlgorithm: Exchange.BodyHash.Algorithm {
        switch self {
        case .sha1: .sha1
        case .sha256: .sha256
        }
    }

    /// The raw hash of `bytes` (20 bytes for SHA-1, 32 for SHA-256), from libcrypto.
    public func hash(of bytes: some Collection<UInt8>) -> [UInt8] {
        let digest = bytes.withContiguousStorageIfAvailable { self.hash(raw: UnsafeRawBufferPointer($0)) }
        return digest ?? Array(bytes).withUnsafeBytes { self.hash(raw: $0) }
    }

    private func hash(raw: UnsafeRawBufferPointer) -> [UInt8] {
        switch self {
        case .sha1:
            var digest = [UInt8](repeating: 0, count: 20)
            let ok = digest.withUnsafeMutableBufferPointer { ccrypto_sha1(raw.baseAddress, raw.count, $0.baseAddress) }
            precondition(ok == 1, "libcrypto's SHA-1 failed: out of memory")
            return digest
        case .sha256:
            var digest = [UInt8](repeating: 0, count: 32)
            let ok = digest.withUnsafeMutableBufferPointer {
                ccrypto_sha256(raw.baseAddress, raw.count, $0.baseAddress)
            }
            precondition(ok == 1, "libcrypto's SHA-256 failed: out of memory")
            return digest
        }
    }
}
