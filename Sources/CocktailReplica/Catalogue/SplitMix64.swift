/// A small, fast, seeded pseudo-random generator (SplitMix64, Steele, Lea & Flood 2014).
///
/// The replica draws every catalogue value and every fault decision from this generator rather than
/// from `SystemRandomNumberGenerator`, so that one seed always yields the same bytes. The helpers
/// below (`below(_:)`, `unit()`, `shuffle(_:)`) are written out here instead of using the standard
/// library's `random(in:using:)` and `shuffled(using:)`, whose algorithms are not promised to stay
/// the same across toolchains.
///
/// A value type; copy it to fork a stream. Not thread-safe to share a single instance. `package`
/// so that the tests' seeded generator (TestSupport's `SeededGenerator`) is this one, not a copy.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator whose whole output is determined by `seed`.
    package init(seed: UInt64) {
        self.state = seed
    }

    package mutating func next() -> UInt64 {
        self.state &+= 0x9E37_79B9_7F4A_7C15
        return Self.mix(self.state)
    }

    /// The SplitMix64 finaliser: a bijective avalanche of 64 bits, also used to hash fault decisions.
    static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `0..<bound` (Lemire's multiply-shift with rejection); `bound` must be > 0.
    mutating func below(_ bound: Int) -> Int {
        precondition(bound > 0, "bound must be positive, got \(bound)")
        let limit = UInt64(bound)
        var product = self.next().multipliedFullWidth(by: limit)
        if product.low < limit {
            let threshold = (0 &- limit) % limit
            while product.low < threshold {
                product = self.next().multipliedFullWidth(by: limit)
            }
        }
        return Int(product.high)
    }

    /// A uniform integer in `range`.
    mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + self.below(range.upperBound - range.lowerBound + 1)
    }

    /// A uniform double in `[0, 1)`, from the top 53 bits.
    mutating func unit() -> Double {
        Double(self.next() >> 11) * 0x1.0p-53
    }

    /// `true` with probability `probability`.
    mutating func chance(_ probability: Double) -> Bool {
        self.unit() < probability
    }

    /// One element of a non-empty array.
    mutating func pick<T>(_ elements: [T]) -> T {
        elements[self.below(elements.count)]
    }

    /// Fisher–Yates shuffle in place.
    mutating func shuffle<T>(_ elements: inout [T]) {
        guard elements.count > 1 else { return }
        for index in stride(from: elements.count - 1, to: 0, by: -1) {
            let other = self.below(index + 1)
            if other != index {
                elements.swapAt(index, other)
            }
        }
    }
}

/// FNV-1a over bytes: a stable hash (unlike `Hasher`, which is seeded per process).
enum StableHash {
    static func fnv1a<Bytes: Sequence>(_ bytes: Bytes, seed: UInt64 = 0xCBF2_9CE4_8422_2325) -> UInt64
    where Bytes.Element == UInt8 {
        var hash = seed
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }
}
