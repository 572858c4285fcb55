import Foundation
import Testing

@testable import BatchFetch

struct RetryAfterTests {
    private let now = Date(timeIntervalSince1970: 784_111_777)  // Sun, 06 Nov 1994 08:49:37 GMT

    @Test func delaySecondsAreParsed() {
        #expect(parseRetryAfter("120", now: self.now) == .seconds(120))
        #expect(parseRetryAfter(" 0 ", now: self.now) == .zero)
    }

    @Test func allThreeHTTPDateFormsAreParsed() {
        #expect(parseRetryAfter("Sun, 06 Nov 1994 08:49:47 GMT", now: self.now) == .seconds(10))
        #expect(parseRetryAfter("Sunday, 06-Nov-94 08:49:47 GMT", now: self.now) == .seconds(10))
        #expect(parseRetryAfter("Sun Nov  6 08:49:47 1994", now: self.now) == .seconds(10))
    }

    @Test func aDateInThePastMeansNow() {
        #expect(parseRetryAfter("Sat, 05 Nov 1994 08:49:37 GMT", now: self.now) == .zero)
    }

    @Test func garbageIsIgnored() {
        for value in ["", "soon", "-5", "1.5", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT"] {
            #expect(parseRetryAfter(value, now: self.now) == nil, "\(value)")
        }
    }

    @Test func hugeDelaysSaturateInsteadOfOverflowing() {
        let delay = parseRetryAfter("99999999999999999999999", now: self.now)
        #expect(delay != nil && delay! > .seconds(1_000_000))
    }
}
