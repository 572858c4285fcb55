import Testing

@testable import BatchFetch

struct HTTPHeadersTests {
    private let headers = HTTPHeaders(
        raw: Array(
            "Content-Type: application/json\r\nX-Multi: 1\r\nx-multi:  2 \r\nRetry-After:\t30\r\nbroken line\r\n\r\n"
                .utf8))

    @Test func lookupIsCaseInsensitiveAndTrimsValues() {
        #expect(self.headers["content-type"] == "application/json")
        #expect(self.headers["CONTENT-TYPE"] == "application/json")
        #expect(self.headers["retry-after"] == "30")
        #expect(self.headers["missing"] == nil)
    }

    @Test func repeatedFieldsKeepTheirOrder() {
        #expect(self.headers.values(for: "X-MULTI") == ["1", "2"])
        #expect(Array(self.headers).count == 4)
    }

    @Test func nonLettersAreComparedExactly() {
        let headers = HTTPHeaders([("X-A", "1")])
        #expect(headers["x-a"] == "1")
        #expect(headers["x\u{0D}a"] == nil)
    }

    @Test func namesMatchWholeAndTheLastLineNeedsNoBreak() {
        let headers = HTTPHeaders(raw: Array("Content-Type-Options: nosniff\r\nContent-Type: text/plain".utf8))
        #expect(headers["content-type"] == "text/plain")
        #expect(headers["content-typ"] == nil)
        #expect(headers.values(for: "content-type-options") == ["nosniff"])
    }
}
