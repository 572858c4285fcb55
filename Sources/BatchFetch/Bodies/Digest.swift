internal import CCrypto
import Foundation

/// SHA-256 digests in lower-case hex, as saved bodies are named and checked by.
package enum Digest {
    /// The SHA-256 of `body`; empty only when libcrypto has no memory for its context.
    package static func sha256(_ body: Data) -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = body.withUnsafeBytes { raw in
            digest.withUnsafeMutableBufferPointer { ccrypto_sha256(raw.baseAddress, raw.count, $0.baseAddress) }
        }
        guard ok == 1 else {
            return ""
        }
        return Self.hex(digest)
    }

    /// A digest in lower-case hex.
    static func hex(_ digest: [UInt8]) -> String {
        let hex: [UInt8] = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in digest {
            text.append(hex[Int(byte >> 4)])
            text.append(hex[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
