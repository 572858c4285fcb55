/// Punycode (RFC 3492): a string of Unicode scalars as the letters, digits and hyphens a DNS
/// label may hold, the encoding inside an international host name's `xn--` labels.
///
/// Threading: stateless; call it from any thread.
enum Punycode {
    private static let base = 36
    private static let tMin = 1
    private static let tMax = 26
    private static let skew = 38
    private static let damp = 700
    private static let initialBias = 72
    private static let initialN = 0x80
    /// RFC 3492 §6.4 bounds its integers by 2^32 - 1; a label past it cannot be encoded.
    private static let maxInt = Int(UInt32.max)

    /// The Punycode form of `scalars` (RFC 3492 §6.3): its basic (ASCII) code points as they are,
    /// a hyphen when there were any, then the others as generalised variable-length integers.
    /// - Returns: `nil` when an intermediate value outgrows RFC 3492's 32-bit integers.
    static func encode(_ scalars: [Unicode.Scalar]) -> String? {
        let input = scalars.map { Int($0.value) }
        var output: [UInt8] = input.filter { $0 < Self.initialN }.map { UInt8($0) }
        let basicCount = output.count
        if basicCount > 0 {
            output.append(UInt8(ascii: "-"))
        }
        var n = Self.initialN
        var delta = 0
        var bias = Self.initialBias
        var handled = basicCount
        while handled < input.count {
            // The smallest code point not handled yet: every one below it is.
            guard let next = input.lazy.filter({ $0 >= n }).min(),
                next - n <= (Self.maxInt - delta) / (handled + 1)
            else {
                return nil
            }
            delta += (next - n) * (handled + 1)
            n = next
            for value in input {
                if value < n {
                    delta += 1
                    if delta > Self.maxInt {
                        return nil
                    }
                }
                guard value == n else {
                    continue
                }
                var q = delta
                var k = Self.base
                while true {
                    let t = k <= bias ? Self.tMin : (k >= bias + Self.tMax ? Self.tMax : k - bias)
                    if q < t {
                        break
                    }
                    output.append(Self.digit(t + (q - t) % (Self.base - t)))
                    q = (q - t) / (Self.base - t)
                    k += Self.base
                }
                output.append(Self.digit(q))
                bias = Self.adapt(delta, count: handled + 1, first: handled == basicCount)
                delta = 0
                handled += 1
            }
            delta += 1
            n += 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bias for the next integer (RFC 3492 §6.1).
    private static func adapt(_ delta: Int, count: Int, first: Bool) -> Int {
        var delta = first ? delta / Self.damp : delta / 2
        delta += delta / count
        var k = 0
        while delta > ((Self.base - Self.tMin) * Self.tMax) / 2 {
            delta /= Self.base - Self.tMin
            k += Self.base
        }
        return k + (Self.base - Self.tMin + 1) * delta / (delta + Self.skew)
    }

    /// Digit values 0–25 as `a`–`z`, 26–35 as `0`–`9`.
    private static func digit(_ value: Int) -> UInt8 {
        value < 26 ? UInt8(ascii: "a") + UInt8(value) : UInt8(ascii: "0") + UInt8(value - 26)
    }
}
