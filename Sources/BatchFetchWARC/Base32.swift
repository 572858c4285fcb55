/// RFC 4648 base32 (section 6: the alphabet `A`–`Z`, `2`–`7`, upper case, `=` padding), the form
/// WARC digests take (`sha1:` followed by 32 such characters), as wget, Heritrix and warcio write
/// them and dedup tools compare them.
public enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    /// The base32 text of `bytes`, padded with `=` to a multiple of 8 characters.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count + 4) / 5 * 8)
        var buffer: UInt64 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt64(byte)
            bits += 8
            while bits >= 5 {
                bits -= 5
                out.append(Self.alphabet[Int(buffer >> UInt64(bits) & 31)])
            }
        }
        if bits > 0 {
            out.append(Self.alphabet[Int(buffer << UInt64(5 - bits) & 31)])
        }
        while out.count % 8 != 0 {
            out.append(UInt8(ascii: "="))
        }
        return String(decoding: out, as: UTF8.self)
    }
}
