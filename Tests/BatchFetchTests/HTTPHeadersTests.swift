import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchCache

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

struct RepeatedContentTypeTests {
    private let twice = HTTPHeaders(
        raw: Array("Content-Type: text/plain\r\nX-A: 1\r\ncontent-type:  application/json \r\nX-B: 2\r\n\r\n".utf8))

    /// RFC 9110 §5.3 gives a field that may appear once no meaning when it comes twice; curl's
    /// `%{content_type}` and browsers' Fetch take the last, and so do records.
    @Test func aFieldSentTwiceReadsAsItsLastValueAsCurlReadsIt() {
        #expect(self.twice["content-type"] == "application/json")
        #expect(self.twice["CONTENT-TYPE"] == "application/json")
        #expect(self.twice.values(for: "content-type") == ["text/plain", "application/json"])
        let response = Response(status: 200, headers: self.twice, body: Data(), effectiveURL: "http://h/")
        #expect(response.contentType == "application/json")
    }

    /// curl skips an empty `Content-Type` (it names no type); a response's type does too.
    @Test func anEmptyContentTypeDoesNotHideAnEarlierOne() {
        let headers = HTTPHeaders(raw: Array("Content-Type: text/html\r\nContent-Type: \r\n".utf8))
        #expect(headers["content-type"] == "")
        let response = Response(status: 200, headers: headers, body: Data(), effectiveURL: "http://h/")
        #expect(response.contentType == "text/html")
        let empty = Response(
            status: 200, headers: HTTPHeaders(raw: Array("Content-Type:\r\n".utf8)), body: Data(),
            effectiveURL: "http://h/")
        #expect(empty.contentType == nil)
    }

    /// The cache stores the fields in order and a `304` replaces every one of a name, so a stored
    /// or refreshed response reads the same type as the response it came from.
    @Test func theCacheKeepsTheRuleForStoredAndRefreshedResponses() {
        let stored = HTTPHeaders(raw: CachePolicy.storedFields(self.twice))
        #expect(stored["content-type"] == "application/json")
        #expect(stored.values(for: "content-type") == ["text/plain", "application/json"])
        let notModified = HTTPHeaders(raw: Array("Content-Type: text/csv\r\nContent-Type: text/xml\r\n".utf8))
        let refreshed = HTTPHeaders(raw: CachePolicy.refreshedFields(stored: stored, notModified: notModified))
        #expect(refreshed["content-type"] == "text/xml")
        #expect(refreshed.values(for: "content-type") == ["text/csv", "text/xml"])
        #expect(
            ContentTypePolicy.json.accepts(
                Response(status: 200, headers: stored, body: Data(), effectiveURL: "http://h/").contentType))
    }
}
