import BatchFetch
import CBytes
import TestSupport
import Testing

/// CBytes escapes text with the kernel of the process's SIMD level (byte by byte, SSSE3, AVX2,
/// AVX-512, NEON); the suite's other escaping tests only reach that one. Every level this machine
/// runs must write byte for byte what the byte-by-byte kernel writes, refuse the same ill-formed
/// UTF-8, and never write past the room it is given.
struct EscapeKernelTests {
    private struct Outcome: Equatable {
        let code: Int32
        let bytes: [UInt8]
    }

    /// Runs `kernel` on `input` with `capacity` bytes of room, checking that nothing is written
    /// past them.
    private func escape(_ input: [UInt8], level: SIMDLevel, capacity: Int) -> Outcome {
        let guardBytes = 256
        var out = [UInt8](repeating: 0xAB, count: capacity + guardBytes)
        var written = 0
        let code = input.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                cbytes_escape_json_at(
                    Self.cLevel(level), source.baseAddress, input.count, target.baseAddress, capacity, &written)
            }
        }
        #expect(out[capacity...].allSatisfy { $0 == 0xAB }, "\(level) wrote past \(capacity) bytes of room")
        return Outcome(code: code, bytes: code == 1 ? Array(out[..<written]) : [])
    }

    private func reference(_ input: [UInt8]) -> Outcome {
        self.escape(input, level: .scalar, capacity: input.count * Int(CBYTES_ESCAPE_MAX_EXPANSION) + 32)
    }

    /// CBytes' number for a level (CBYTES_SIMD_*: the cases in order).
    private static func cLevel(_ level: SIMDLevel) -> Int32 {
        Int32(SIMDLevel.allCases.firstIndex(of: level) ?? 0)
    }

    @Test func everyLevelWritesWhatTheByteByByteKernelWrites() {
        let levels = SIMDLevel.available.filter { $0 != .scalar }
        var random = SeededGenerator(seed: 2_025)
        let pieces: [[UInt8]] = [
            Array("<div class=\"drink\">".utf8), Array("plain text, ".utf8), Array("\"".utf8), Array("\\".utf8),
            Array("\n".utf8), Array("\r\n".utf8), Array("\t".utf8), [0x00], [0x01], [0x1F], [0x7F],
            Array("é".utf8), Array("€".utf8), Array("日本".utf8), Array("🍸".utf8), Array("¢".utf8),
            [0x80], [0xC3], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0xE2, 0x82], [0xC0, 0xAF],
        ]
        for round in 0..<4_000 {
            // Mostly well-formed text of 0 to ~2,000 bytes (every length modulo 64, runs across
            // blocks); every fifth round may hold ill-formed sequences.
            let count = Int.random(in: 0..<(round % 2 == 0 ? 40 : 400), using: &random)
            let choices = round % 5 == 0 ? pieces.count : pieces.count - 6
            var input: [UInt8] = []
            for _ in 0..<count {
                input += pieces[Int.random(in: 0..<choices, using: &random)]
            }
            let want = self.reference(input)
            let worst = input.count * Int(CBYTES_ESCAPE_MAX_EXPANSION) + Int(CBYTES_ESCAPE_SLACK)
            for level in levels {
                #expect(self.escape(input, level: level, capacity: worst) == want, "\(level): \(input)")
                // Too little room is refused (0) or enough: never a different answer.
                let tight = Int.random(in: 0...(input.count + input.count / 8 + 40), using: &random)
                let got = self.escape(input, level: level, capacity: tight)
                #expect(got.code == 0 || got == want, "\(level), room \(tight): \(input)")
            }
        }
    }
}
