/// What octets and pairs of adjacent octets a text holds, one bit each (pairs hashed onto 256 bits):
/// a path whose signature lacks a bit that a pattern's pieces need cannot match it, which rules
/// most wildcard patterns out at the cost of a few AND operations.
struct OctetSignature: Sendable {
    private var octets = SIMD2<UInt64>()
    private var pairs = SIMD4<UInt64>()

    init() {}

    /// The signature of a path: its octets and its pairs.
    init(_ path: UnsafeBufferPointer<UInt8>) {
        self.init(
            words: Self.words { words in
                var previous: UInt8?
                for octet in path {
                    Self.insert(octet, after: previous, into: words)
                    previous = octet
                }
            })
    }

    /// What a pattern's pieces need: their octets, and the pairs within each piece.
    init(pieces: [ArraySlice<UInt8>]) {
        self.init(
            words: Self.words { words in
                for piece in pieces {
                    var previous: UInt8?
                    for octet in piece {
                        Self.insert(octet, after: previous, into: words)
                        previous = octet
                    }
                }
            })
    }

    private init(words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64)) {
        self.octets = SIMD2(words.0, words.1)
        self.pairs = SIMD4(words.2, words.3, words.4, words.5)
    }

    /// Six words filled through a pointer: setting a bit of a SIMD vector by a computed lane goes
    /// through memory in a way that stalls, plain words do not.
    @inline(__always)
    private static func words(
        _ fill: (UnsafeMutableBufferPointer<UInt64>) -> Void
    ) -> (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) {
        var words: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { fill($0.bindMemory(to: UInt64.self)) }
        return words
    }

    /// Words 0-1: ASCII octets (octets past ASCII never stand in normal form; they would only make
    /// the test stricter). Words 2-5: pairs, hashed onto 256 bits.
    @inline(__always)
    private static func insert(_ octet: UInt8, after previous: UInt8?, into words: UnsafeMutableBufferPointer<UInt64>) {
        if octet < 128 {
            words[Int(octet >> 6)] |= 1 << UInt64(octet & 63)
        }
        if let previous {
            let hash = ((UInt32(previous) << 8 | UInt32(octet)) &* 0x9E37_79B1) >> 24
            words[2 + Int(hash >> 6)] |= 1 << UInt64(hash & 63)
        }
    }

    @inline(__always)
    func contains(_ other: OctetSignature) -> Bool {
        let missingOctets = other.octets & ~self.octets
        let missingPairs = other.pairs & ~self.pairs
        return
            (missingOctets[0] | missingOctets[1] | missingPairs[0] | missingPairs[1] | missingPairs[2]
            | missingPairs[3]) == 0
    }
}
