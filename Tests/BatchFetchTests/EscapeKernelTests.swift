import CBytes
import TestSupport
import Testing

/// CBytes escapes text with the best kernel the CPU has (byte by byte, SSSE3, AVX-512); the
/// suite's other escaping tests only reach that one. Every kernel this machine runs must write
/// byte for byte what the byte-by-byte one writes, refuse the same ill-formed UTF-8, and never
/// write past the room it is given.
struct EscapeKernelTests {
    private struct Outcome: Equatable {
        let code: Int32
        let bytes: [UInt8]
    }

    /// Runs `kernel` on `input` with `capacity` bytes of room, checking that nothing is written
    /// past them.
    private func escape(_ input: [UInt8], kernel: Int32, capacity: Int) -> Outcome {
        let guardBytes = 256
        var out = [UInt8](repeating: 0xAB, count: capacity + guardBytes)
        var written = 0
        let code = input.withUnsafeBufferPointer { source in
            out.withUnsafeMutableBufferPointer { target in
                cbytes_escape_json_kernel(
                    kernel, source.baseAddress, input.count, target.baseAddress, capacity, &written)
            }
        }
        #expect(out[capacity...].allSatisfy { $0 == 0xAB }, "kernel \(kernel) wrote past \(capacity) bytes of room")
        return Outcome(code: code, bytes: code == 1 ? Array(out[..<written]) : [])
    }

    private func reference(_ input: [UInt8]) -> Outcome {
        self.escape(input, kernel: 0, capacity: input.count * Int(CBYTES_ESCAPE_MAX_EXPANSION) + 32)
    }

    @Test func everyKernelWritesWhatTheByteByByteOneWrites() {
        let best = cbytes_escape_json_best_kernel()
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
            for kernel in stride(from: 1, through: best, by: 1) {
                #expect(self.escape(input, kernel: kernel, capacity: worst) == want, "kernel \(kernel): \(input)")
                // Too little room is refused (0) or enough: never a different answer.
                let tight = Int.random(in: 0...(input.count + input.count / 8 + 40), using: &random)
                let got = self.escape(input, kernel: kernel, capacity: tight)
                #expect(got.code == 0 || got == want, "kernel \(kernel), room \(tight): \(input)")
            }
        }
    }
}
