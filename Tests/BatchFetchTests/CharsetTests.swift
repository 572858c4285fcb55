import Foundation
import Testing

@testable import BatchFetch

struct CharsetTests {
    private let latin1Cafe = Data([0x63, 0x61, 0x66, 0xE9])

    @Test(arguments: [
        "text/html; charset=iso-8859-1", "text/html;charset=ISO-8859-1", "text/html; charset=\"ISO-8859-1\"",
        "Text/HTML ; Charset = latin1 ", "text/plain; format=flowed; charset=\"iso-8859-1\"; delsp=yes",
        "text/plain; title=\"a;charset=utf-8\"; charset=iso-8859-1",
        "text/plain; title=\"a\\\";charset=utf-8\"; charset=iso-8859-1",
    ])
    func aDeclaredLatin1BodyBecomesUTF8(contentType: String) {
        #expect(Charset.utf8(self.latin1Cafe, contentType: contentType) == Data("café".utf8), "\(contentType)")
    }

    @Test func otherCharsetsIconvKnowsAreConvertedToo() {
        let shiftJIS = Data([0x93, 0xFA, 0x96, 0x7B])
        #expect(Charset.utf8(shiftJIS, contentType: "text/plain; charset=Shift_JIS") == Data("日本".utf8))
        let utf16 = Data([0xFF, 0xFE, 0x68, 0x00, 0xE9, 0x00])
        #expect(Charset.utf8(utf16, contentType: "text/plain; charset=utf-16") == Data("hé".utf8))
        let iso2022 = Data([0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42])
        #expect(Charset.utf8(iso2022, contentType: "text/plain; charset=iso-2022-jp") == Data("日本".utf8))
        let large = Data(repeating: 0xE9, count: 100_000)
        #expect(Charset.utf8(large, contentType: "text/plain; charset=windows-1252")?.count == 200_000)
    }

    /// No charset, UTF-8 and US-ASCII keep the bytes as they are: the caller's UTF-8 path.
    @Test(arguments: [
        nil, "text/html", "text/html; charset=utf-8", "text/html; charset=\"UTF-8\"", "text/plain;charset=utf8",
        "text/plain; charset=US-ASCII", "text/plain; format=flowed", "text/plain; charset=", "text/plain; charset",
    ])
    func utf8AndASCIIAreNotConverted(contentType: String?) {
        #expect(Charset.utf8(self.latin1Cafe, contentType: contentType) == nil, "\(String(describing: contentType))")
    }

    /// Nothing converts: the caller falls back to what it does without a charset.
    @Test func unknownCharsetsAndBytesACharsetCannotDecodeAreNotConverted() {
        #expect(Charset.utf8(self.latin1Cafe, contentType: "text/plain; charset=x-no-such-charset") == nil)
        #expect(Charset.utf8(self.latin1Cafe, contentType: "text/plain; charset=iso-2022-jp") == nil)
        #expect(Charset.utf8(Data([0x68, 0x00, 0x69]), contentType: "text/plain; charset=utf-16le") == nil)
        #expect(Charset.utf8(Data([0x81]), contentType: "text/plain; charset=shift_jis") == nil)
    }

    /// glibc reads `//IGNORE` and `//TRANSLIT` after a name as options that drop or replace what
    /// does not convert; a server's header must not choose them.
    @Test func namesThatCarryIconvOptionsAreRefused() {
        let invalid = Data([0x63, 0xFF, 0xFE])
        #expect(Charset.utf8(invalid, contentType: "text/plain; charset=utf-16//IGNORE") == nil)
        #expect(Charset.utf8(invalid, contentType: "text/plain; charset=\"ascii//TRANSLIT\"") == nil)
        #expect(Charset.declared(in: "text/plain; charset=\"iso-8859-1 \"") == nil)
        #expect(Charset.declared(in: "text/plain; charset=iso-8859-1") == "iso-8859-1")
    }
}
