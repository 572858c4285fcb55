import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A text body in the `charset` its `Content-Type` declares (`text/html; charset=iso-8859-1`),
/// converted to UTF-8 with the C library's iconv: how a record shows a Latin-1 or Shift_JIS page
/// as text rather than as base64.
///
/// No charset, UTF-8 and US-ASCII mean no conversion: such bodies keep the UTF-8 path, and what
/// this costs them is one look for a `charset` parameter in the header's bytes, allocating
/// nothing. The declared name wins over what the bytes look like, as in browsers: UTF-16 or
/// ISO-2022-JP text can be valid UTF-8 and still mean something else.
///
/// Threading: stateless; call it from any thread (each conversion opens its own iconv handle).
package enum Charset {
    /// `body` converted to UTF-8 from the charset `contentType` declares; `nil` when it declares
    /// none, UTF-8 or US-ASCII, names one iconv does not know, or the bytes are not text in it:
    /// the caller then treats the body as it would without a charset.
    package static func utf8(_ body: Data, contentType: String?) -> Data? {
        guard let contentType, let charset = Self.declared(in: contentType) else {
            return nil
        }
        return body.withUnsafeBytes { Self.convert($0, from: charset) }.map { Data($0) }
    }

    /// The value of `contentType`'s `charset` parameter (unquoted, as written), or `nil` when there
    /// is none, it is UTF-8 or US-ASCII, or it is not a plain charset name.
    ///
    /// Parameters per RFC 9110 §5.6.6: names ASCII case-insensitive, values a token or a quoted
    /// string; white space around `;` and `=` is tolerated, as browsers tolerate it.
    static func declared(in contentType: String) -> String? {
        var contentType = contentType
        return contentType.withUTF8(Self.declared(in:))
    }

    private static func declared(in bytes: UnsafeBufferPointer<UInt8>) -> String? {
        guard let range = Self.charsetValue(in: bytes) else {
            return nil
        }
        let value = UnsafeBufferPointer(rebasing: bytes[range])
        guard !Self.isUTF8Compatible(value), Self.isPlainName(value) else {
            return nil
        }
        return String(decoding: value, as: UTF8.self)
    }

    /// Where the first `charset` parameter's value is, inside its quotes if it has them (a
    /// backslash escape left in it makes it no plain name).
    private static func charsetValue(in bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        // Most types have no parameter: memchr, not a byte loop, says so.
        guard let base = bytes.baseAddress, let semicolon = memchr(base, Int32(UInt8(ascii: ";")), bytes.count) else {
            return nil
        }
        var position = base.distance(to: semicolon.assumingMemoryBound(to: UInt8.self))
        let end = bytes.endIndex
        while position < end {
            // At a ';': skip it and white space, read a name up to '=' or ';'.
            position += 1
            while position < end && Self.isSpace(bytes[position]) {
                position += 1
            }
            let nameStart = position
            while position < end && bytes[position] != UInt8(ascii: "=") && bytes[position] != UInt8(ascii: ";") {
                position += 1
            }
            var nameEnd = position
            while nameEnd > nameStart && Self.isSpace(bytes[nameEnd - 1]) {
                nameEnd -= 1
            }
            guard position < end, bytes[position] == UInt8(ascii: "=") else {
                continue
            }
            position += 1
            while position < end && Self.isSpace(bytes[position]) {
                position += 1
            }
            var value: Range<Int>
            if position < end && bytes[position] == UInt8(ascii: "\"") {
                let valueStart = position + 1
                position = valueStart
                while position < end && bytes[position] != UInt8(ascii: "\"") {
                    position += bytes[position] == UInt8(ascii: "\\") ? 2 : 1
                }
                value = valueStart..<Swift.min(position, end)
                position = bytes[Swift.min(position, end)..<end].firstIndex(of: UInt8(ascii: ";")) ?? end
            } else {
                let valueStart = position
                position = bytes[position..<end].firstIndex(of: UInt8(ascii: ";")) ?? end
                var valueEnd = position
                while valueEnd > valueStart && Self.isSpace(bytes[valueEnd - 1]) {
                    valueEnd -= 1
                }
                value = valueStart..<valueEnd
            }
            if Self.name(UnsafeBufferPointer(rebasing: bytes[nameStart..<nameEnd]), is: "charset") {
                return value
            }
        }
        return nil
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09
    }

    /// Names whose text is UTF-8 already (US-ASCII is a subset): the existing path, unconverted.
    private static func isUTF8Compatible(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        Self.name(name, is: "utf-8") || Self.name(name, is: "utf8") || Self.name(name, is: "us-ascii")
    }

    private static func name(_ name: UnsafeBufferPointer<UInt8>, is lowercased: StaticString) -> Bool {
        lowercased.withUTF8Buffer { name.elementsEqual($0, by: { $0.asciiLowercased == $1 }) }
    }

    /// Whether `name` can only be a charset name: letters, digits and `- _ . : + ( )`, at most 64
    /// bytes. Keeps what glibc's `iconv_open` reads as options (`//IGNORE`, `//TRANSLIT`, which
    /// would drop or replace bytes instead of failing) out of the name.
    private static func isPlainName(_ name: UnsafeBufferPointer<UInt8>) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."),
                    UInt8(ascii: ":"), UInt8(ascii: "+"), UInt8(ascii: "("), UInt8(ascii: ")"):
                    true
                default:
                    false
                }
            }
    }

    /// `bytes` converted from `charset` to UTF-8, or `nil` when iconv does not know the charset or
    /// the bytes hold a sequence that is invalid or cut short in it.
    static func convert(_ bytes: UnsafeRawBufferPointer, from charset: String) -> [UInt8]? {
        let descriptor = iconv_open("UTF-8", charset)
        guard let descriptor, Int(bitPattern: descriptor) != -1 else {
            return nil
        }
        defer { iconv_close(descriptor) }
        // Twice the input fits Latin-1 and most legacy text; a full output (E2BIG) is doubled.
        var output = [UInt8](repeating: 0, count: Swift.max(64, bytes.count * 2))
        var written = 0
        var input = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: CChar.self))
        var inputLeft = bytes.count
        // iconv succeeds only once all the input is converted; one more call without input then
        // ends a stateful encoding's shift state (ISO-2022-JP).
        var finishing = false
        while true {
            let (result, error) = output.withUnsafeMutableBytes { buffer -> (Int, Int32) in
                var next = buffer.baseAddress.map { ($0 + written).assumingMemoryBound(to: CChar.self) }
                var outputLeft = buffer.count - written
                let result =
                    finishing
                    ? iconv(descriptor, nil, nil, &next, &outputLeft)
                    : iconv(descriptor, &input, &inputLeft, &next, &outputLeft)
                written = buffer.count - outputLeft
                return (result, result == -1 ? errno : 0)
            }
            if result == -1 {
                guard error == E2BIG else {
                    return nil
                }
                output.append(contentsOf: repeatElement(0, count: output.count))
            } else if finishing {
                break
            } else {
                finishing = true
            }
        }
        output.removeSubrange(written...)
        return output
    }
}
