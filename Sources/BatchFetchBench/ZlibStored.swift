import BatchFetch

/// A zlib stream (RFC 1950) of stored DEFLATE blocks (RFC 1951 §3.2.4): what any inflater reads,
/// written without a compressor, for ``LatencyHistogram/encoded``; ``ZlibInflate`` reads it back.
enum ZlibStored {
    /// `bytes` as a zlib stream: header, stored blocks of at most 65,535 bytes, Adler-32.
    static func wrap(_ bytes: [UInt8]) -> [UInt8] {
        // CMF 0x78 (DEFLATE, 32 KB window), FLG 0x01 (fastest; makes CMF·256+FLG a multiple of 31).
        var out: [UInt8] = [0x78, 0x01]
        out.reserveCapacity(bytes.count + bytes.count / 65_535 * 5 + 16)
        var start = 0
        repeat {
            let length = Swift.min(65_535, bytes.count - start)
            let final: UInt8 = start + length == bytes.count ? 1 : 0
            out.append(final)
            out += [UInt8(length & 0xff), UInt8(length >> 8), UInt8(~length & 0xff), UInt8((~length >> 8) & 0xff)]
            out += bytes[start..<(start + length)]
            start += length
        } while start < bytes.count
        let adler = Self.adler32(bytes)
        out += [UInt8(adler >> 24), UInt8((adler >> 16) & 0xff), UInt8((adler >> 8) & 0xff), UInt8(adler & 0xff)]
        return out
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        var index = 0
        // 5552 bytes is the most that can be summed before the 32-bit sums must be reduced.
        while index < bytes.count {
            let end = Swift.min(index + 5552, bytes.count)
            while index < end {
                a += UInt32(bytes[index])
                b += a
                index += 1
            }
            a %= 65_521
            b %= 65_521
        }
        return b << 16 | a
    }
}
