import BatchFetch
import CBytes
import Foundation
import TestSupport
import Testing

/// CBytes encodes base64 24 bytes a step with AVX2, 48 with NEON, else a byte at a time; each level
/// this machine runs must write what Foundation's encoder writes, for every length (the vector
/// loops' reads and the scalar tail meet at every remainder), and nothing past the text.
struct Base64KernelTests {
    private func encode(
        _ input: [UInt8], with encoder: (UnsafePointer<UInt8>?, Int, UnsafeMutablePointer<UInt8>?) -> Void
    )
        -> [UInt8]
    {
        let length = Int(cbytes_base64_length(input.count))
        let guardBytes = 64
        var out = [UInt8](repeating: 0xAB, count: length + guardBytes)
        input.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { encoder(source.baseAddress, input.count, $0.baseAddress) }
        }
        #expect(out[length...].allSatisfy { $0 == 0xAB }, "wrote past the text for \(input.count) bytes")
        return Array(out[..<length])
    }

    /// CBytes' number for a level (CBYTES_SIMD_*: the cases in order).
    private static func cLevel(_ level: SIMDLevel) -> Int32 {
        Int32(SIMDLevel.allCases.firstIndex(of: level) ?? 0)
    }

    @Test func everyLengthEncodesAsFoundationDoesAtEveryLevel() {
        var random = SeededGenerator(seed: 64)
        let lengths = Array(0...300) + [4_095, 4_096, 65_535, 65_536, 65_537, 1_000_003]
        for length in lengths {
            let input = (0..<length).map { _ in UInt8.random(in: 0...255, using: &random) }
            let expected = Array(Data(input).base64EncodedString().utf8)
            #expect(self.encode(input) { cbytes_base64_encode($0, $1, $2) } == expected, "\(length) bytes")
            for level in SIMDLevel.available {
                let encoded = self.encode(input) { cbytes_base64_encode_at(Self.cLevel(level), $0, $1, $2) }
                #expect(encoded == expected, "\(level), \(length) bytes")
            }
        }
    }

    @Test func everyByteValueMapsToItsCharacter() {
        // 0x00 0x10 0x83 0x10 0x51 0x87 … : all 64 sextets in order, so each offset range is crossed.
        var bits: [UInt8] = []
        var accumulator = 0
        var count = 0
        for sextet in 0..<64 {
            accumulator = accumulator << 6 | sextet
            count += 6
            while count >= 8 {
                count -= 8
                bits.append(UInt8((accumulator >> count) & 0xFF))
            }
        }
        let input = Array(repeating: bits, count: 4).flatMap { $0 }
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
        for level in SIMDLevel.available {
            #expect(
                self.encode(input) { cbytes_base64_encode_at(Self.cLevel(level), $0, $1, $2) }
                    == Array(repeating: alphabet, count: 4).flatMap { $0 }, "\(level)")
        }
    }
}
