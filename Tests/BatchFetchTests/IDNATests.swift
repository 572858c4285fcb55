import Testing

@testable import BatchFetch

/// International host names in ASCII form; each expectation is what curl 7.88.1 (libidn2, in a
/// UTF-8 locale) sent for the same URL.
struct IDNATests {
    @Test func allASCIIURLsAreLeftAloneWithoutAConversion() throws {
        for url in ["http://127.0.0.1:8080/a?b=c", "https://EXAMPLE.test/", "http://xn--exmple-cua.test/x", ""] {
            #expect(try IDNA.asciiURL(url) == nil, "\(url)")
        }
    }

    @Test func internationalHostsBecomeTheirASCIIFormAndTheRestStaysAsGiven() throws {
        let cases: [(String, String?)] = [
            ("http://exämple.test/x", "http://xn--exmple-cua.test/x"),
            ("http://ExÄmple.TEST/pä?q=ü#frä", "http://xn--exmple-cua.TEST/pä?q=ü#frä"),
            ("http://exa\u{308}mple.test/", "http://xn--exmple-cua.test/"),
            ("https://straße.test", "https://xn--strae-oqa.test"),
            ("http://例え。テスト/", "http://xn--r8jz45g.xn--zckzah/"),
            ("http://ｅｘａｍｐｌｅ.test/", "http://example.test/"),
            ("http://user:pä@exämple.test:8080/", "http://user:pä@xn--exmple-cua.test:8080/"),
            ("http://ä%41.test/", "http://xn--a-zfa.test/"),
            ("http://☃.net/", "http://xn--n3h.net/"),
            ("http://exämple..test./", "http://xn--exmple-cua..test./"),
            ("http://user:pä@host/ü", nil),
            ("http://[::1]/ä", nil),
        ]
        for (url, expected) in cases {
            #expect(try IDNA.asciiURL(url) == expected, "\(url)")
        }
    }

    @Test func labelsWithoutAnASCIIFormAreInvalidURLsThatNameTheLabel() {
        let cases: [(String, String)] = [
            ("http://-ä.test/", "label '-ä' starts or ends with '-'"),
            ("http://ä-.test/", "label 'ä-' starts or ends with '-'"),
            ("http://ab--ä.test/", "label 'ab--ä' has '--' in its third and fourth places"),
            ("http://xn--ä.test/", "label 'xn--ä' starts with 'xn--' but is not ASCII"),
            ("http://" + String(repeating: "ä", count: 60) + ".test/", "over the 63 of a DNS label"),
            ("http://%C3.ä/", "not UTF-8"),
        ]
        for (url, message) in cases {
            #expect {
                try IDNA.asciiURL(url)
            } throws: { error in
                guard let error = error as? FetchError else {
                    return false
                }
                return error.kind == .invalidURL && error.message.contains(message)
            }
        }
    }

    @Test func theNonASCIITestLooksAtEveryByte() {
        for length in 0..<40 {
            let plain = [UInt8](repeating: UInt8(ascii: "a"), count: length)
            #expect(!plain.withUnsafeBytes(IDNA.hasNonASCII))
            for position in 0..<length {
                var marked = plain
                marked[position] = 0x80
                #expect(marked.withUnsafeBytes(IDNA.hasNonASCII), "\(length) \(position)")
            }
        }
    }
}
