/// RFC 4648 base32 (section 6: the alphabet `A`–`Z`, `2`–`7`, upper case, `=` padding), the form
/// WARC digests take (`sha1:` followed by 32 such characters), as wget, Heritrix and warcio write
/// them and dedup tools compare them.
public enum Base32 {
    private static let alphabet: StaticString = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"

    /// The base32 text of `bytes`, padded with `=` to a multiple of 8 characters.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        Self.encode(bytes, after: "")
    }

    /// `prefix` followed by the base32 text of `bytes`, made as one string (a digest's label,
    /// `sha1:…`, is made for every record).
    static func encode(_ bytes: some Collection<UInt8>, after prefix: String) -> String {
        let length = (bytes.count + 4) / 5 * 8
        return String(unsafeUninitializedCapacity: prefix.utf8.count + length) { out in
            var count = 0
            for byte in prefix.utf8 {
                out[count] = byte
                count += 1
            }
            var buffer: UInt64 = 0
            var bits = 0
            for byte in bytes {
                buffer = buffer << 8 | UInt64(byte)
                bits += 8
                while bits >= 5 {
                    bits -= 5
                    out[count] = Self.alphabet.utf8Start[Int(buffer >> UInt64(bits) & 31)]
                    count += 1
                }
            }
            if bits > 0 {
                out[count] = Self.alphabet.utf8Start[Int(buffer << UInt64(5 - bits) & 31)]
                count += 1
            }
            while (count - prefix.utf8.count) % 8 != 0 {
                out[count] = UInt8(ascii: "=")
                count += 1
            }
            return count
        }
    }
}
