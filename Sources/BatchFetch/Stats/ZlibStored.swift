/// A zlib stream (RFC 1950) of stored DEFLATE blocks (RFC 1951 §3.2.4): what any inflater reads,
/// written without a compressor, for ``LatencyHistogram/encoded``.
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

    /// The bytes of a zlib stream made of stored blocks; `nil` for anything else or a bad checksum.
    static func unwrap(_ stream: ArraySlice<UInt8>) -> [UInt8]? {
        let bytes = Array(stream)
        guard bytes.count >= 6, bytes[0] & 0x0f == 8, (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0,
            bytes[1] & 0x20 == 0
        else {
            return nil
        }
        var out: [UInt8] = []
        var position = 2
        while true {
            guard position + 5 <= bytes.count, bytes[position] & 0x06 == 0 else {
                return nil
            }
            let final = bytes[position] & 1 == 1
            let length = Int(bytes[position + 1]) | Int(bytes[position + 2]) << 8
            let complement = Int(bytes[position + 3]) | Int(bytes[position + 4]) << 8
            position += 5
            guard length == ~complement & 0xffff, position + length <= bytes.count else {
                return nil
            }
            out += bytes[position..<(position + length)]
            position += length
            if final {
                break
            }
        }
        guard position + 4 <= bytes.count, LatencyHistogram.readUInt32(bytes, position) == Self.adler32(out) else {
            return nil
        }
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
