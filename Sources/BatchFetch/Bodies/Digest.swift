internal import CCrypto
import Foundation

/// SHA-256 digests in lower-case hex, as saved bodies are named and checked by.
package enum Digest {
    /// The SHA-256 of `body` in hex.
    package static func sha256(_ body: Data) -> String {
        Self.hex(Self.sha256Bytes(body))
    }

    /// The SHA-256 of `body`, 32 bytes.
    static func sha256Bytes(_ body: Data) -> [UInt8] {
        Self.hashes(ccrypto_sha256_state.self, of: body, head: nil).body
    }

    /// The SHA-1 of `body`, 20 bytes.
    static func sha1Bytes(_ body: Data) -> [UInt8] {
        Self.hashes(ccrypto_sha1_state.self, of: body, head: nil).body
    }

    /// `algorithm`'s hash of `body` and, given a `head`, of `head` followed by `body` too.
    static func hashes(
        _ algorithm: Exchange.BodyHash.Algorithm, of body: Data, head: Data?
    ) -> (body: [UInt8], message: [UInt8]?) {
        switch algorithm {
        case .sha1: Self.hashes(ccrypto_sha1_state.self, of: body, head: head)
        case .sha256: Self.hashes(ccrypto_sha256_state.self, of: body, head: head)
        }
    }

    /// Both hashes in one pass over `body`: 16 KiB at a time into each, so the second reads it
    /// from cache. (libcrypto's context calls on the stack allocate nothing and do not fail.)
    private static func hashes<State: HashState>(
        _: State.Type, of body: Data, head: Data?
    ) -> (body: [UInt8], message: [UInt8]?) {
        var bodyState = State.started()
        var messageState = State.started()
        head?.withUnsafeBytes { messageState.add($0) }
        body.withUnsafeBytes { raw in
            var offset = 0
            repeat {
                let chunk = UnsafeRawBufferPointer(rebasing: raw[offset..<min(raw.count, offset + 16_384)])
                bodyState.add(chunk)
                if head != nil {
                    messageState.add(chunk)
                }
                offset += chunk.count
            } while offset < raw.count
        }
        return (bodyState.finished(), head == nil ? nil : messageState.finished())
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

/// A hash in progress, as libcrypto's context structs hold one.
private protocol HashState {
    static func started() -> Self
    mutating func add(_ bytes: UnsafeRawBufferPointer)
    mutating func finished() -> [UInt8]
}

extension ccrypto_sha1_state: HashState {
    static func started() -> Self {
        var state = Self()
        _ = ccrypto_sha1_start(&state)
        return state
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        _ = ccrypto_sha1_add(&self, bytes.baseAddress, bytes.count)
    }

    mutating func finished() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 20)
        _ = digest.withUnsafeMutableBufferPointer { ccrypto_sha1_finish(&self, $0.baseAddress) }
        return digest
    }
}

extension ccrypto_sha256_state: HashState {
    static func started() -> Self {
        var state = Self()
        _ = ccrypto_sha256_start(&state)
        return state
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        _ = ccrypto_sha256_add(&self, bytes.baseAddress, bytes.count)
    }

    mutating func finished() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = digest.withUnsafeMutableBufferPointer { ccrypto_sha256_finish(&self, $0.baseAddress) }
        return digest
    }
}
