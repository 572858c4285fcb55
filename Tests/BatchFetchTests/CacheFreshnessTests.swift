import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchCache

/// RFC 9111 freshness as a value: lifetime, age and the dates they come from.
struct CacheFreshnessTests {
    @Test func httpDatesParseInIMFFixdateAndRFC850FormsAndNothingElse() {
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Mon, 01 Jan 2024 00:00:00 GMT") == 1_704_067_200)
        #expect(HTTPDate.parse("Thu, 29 Feb 2024 23:59:59 GMT") == 1_709_251_199)
        #expect(HTTPDate.parse("0") == nil)
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 25:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 CET") == nil)
        // Runs of spaces separate words; anything else in a number, or a sixth word, is no date.
        #expect(HTTPDate.parse("Sun,  06  Nov 1994 08:49:37   GMT") == 784_111_777)
        #expect(HTTPDate.parse("sun, 06 NOV 1994 08:49:37 GMT") == 784_111_777)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT extra") == nil)
        #expect(HTTPDate.parse("Sun, 0x6 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 94 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 November 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49 GMT") == nil)
        #expect(HTTPDate.parse("Sunday, 06-Nov-69 08:49:37 GMT") == HTTPDate.parse("Thu, 06 Nov 2069 08:49:37 GMT"))
        #expect(HTTPDate.parse("Sunday, 06-Nov-70 08:49:37 GMT") == HTTPDate.parse("Thu, 06 Nov 1970 08:49:37 GMT"))
        #expect(HTTPDate.parse("") == nil)
        #expect(HTTPDate.parse(",") == nil)
    }

    @Test func theFixdateFastPathAgreesWithTheGeneralOne() {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        var random = SystemRandomNumberGenerator()
        for _ in 0..<500 {
            let seconds = Int.random(in: 0...4_102_444_800, using: &random)
            let text = formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
            #expect(HTTPDate.parse(text) == seconds, "\(text)")
            // Two spaces after the comma: not the fixed layout, so the general path reads it.
            #expect(HTTPDate.parse(text.replacingOccurrences(of: ", ", with: ",  ")) == seconds, "\(text)")
        }
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 24:00:00 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 00 Nov 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMX") == nil)
        #expect(HTTPDate.parse("Sun, 06 Xyz 1994 08:49:37 GMT") == nil)
        #expect(HTTPDate.parse("Sun, 06 Nov 1994 08-49-37 GMT") == nil)
    }

    @Test func integersReadAsIntDoes() {
        for text in [
            "0", "5", "+5", "-5", "007", "123456789012345678", "", "+", "5s", " 5", "-",
            "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
            "99999999999999999999",
        ] {
            #expect(HTTPDate.integer(Array(text.utf8)[...]) == Int(text), "\(text)")
        }
    }

    @Test func directivesAreReadFromEveryCacheControlField() {
        let headers = HTTPHeaders([
            ("Cache-Control", "public, Max-Age=60"), ("Cache-Control", "no-cache"),
            ("Expires", "Mon, 01 Jan 2024 00:00:00 GMT"), ("Date", "Mon, 01 Jan 2024 00:00:10 GMT"), ("Age", "5"),
        ])
        let freshness = CacheFreshness(headers: headers)
        #expect(freshness.maxAge == 60)
        #expect(freshness.noCache)
        #expect(!freshness.noStore)
        #expect(freshness.expires == 1_704_067_200)
        #expect(freshness.date == 1_704_067_210)
        #expect(freshness.age == 5)
        #expect(CacheFreshness(headers: HTTPHeaders([("Cache-Control", "no-store")])).noStore)
        // Names in any case; of the single-valued fields the first counts; a bad date is no date,
        // a bad Expires one in the past.
        let repeated = CacheFreshness(
            headers: HTTPHeaders([
                ("DATE", "Mon, 01 Jan 2024 00:00:10 GMT"), ("date", "Mon, 01 Jan 2024 00:00:20 GMT"),
                ("aGe", "7"), ("Age", "9"), ("EXPIRES", "soon"), ("Expires", "Mon, 01 Jan 2024 00:00:00 GMT"),
                ("Ages", "1"), ("X-Date", "Mon, 01 Jan 2024 00:00:30 GMT"),
            ]))
        #expect(repeated.date == 1_704_067_210)
        #expect(repeated.age == 7)
        #expect(repeated.expires == Int.min)
        #expect(CacheFreshness(headers: HTTPHeaders([("Date", "yesterday"), ("Age", "-3")])).date == nil)
        #expect(CacheFreshness(headers: HTTPHeaders([("Age", "-3")])).age == 0)
        #expect(CacheFreshness(headers: HTTPHeaders([("Cache-Control", "max-age=soon")])).maxAge == 0)
    }

    @Test func maxAgeWinsOverExpiresAndADefaultAppliesOnlyWithoutEither() {
        #expect(CacheFreshness(maxAge: 60, expires: 0, date: 100).lifetime(responseTime: 100, defaultMaxAge: 5) == 60)
        #expect(CacheFreshness(expires: 160, date: 100).lifetime(responseTime: 130, defaultMaxAge: 5) == 60)
        #expect(CacheFreshness(expires: 160).lifetime(responseTime: 130, defaultMaxAge: 5) == 30)
        #expect(CacheFreshness(expires: Int.min).lifetime(responseTime: 130, defaultMaxAge: 5) == 0)
        #expect(CacheFreshness().lifetime(responseTime: 130, defaultMaxAge: 5) == 5)
        #expect(CacheFreshness().lifetime(responseTime: 130, defaultMaxAge: nil) == 0)
    }

    @Test func currentAgeAddsAgeTransitAndResidentTime() {
        // Sent at 100, received at 102 with Age 10: 12 s old on arrival, 42 s old at 132.
        let freshness = CacheFreshness(date: 101, age: 10)
        #expect(freshness.currentAge(requestTime: 100, responseTime: 102, now: 132) == 42)
        // A Date far in the past makes the apparent age win.
        #expect(CacheFreshness(date: 50).currentAge(requestTime: 100, responseTime: 100, now: 100) == 50)
    }

    @Test func aResponseIsFreshWhileItsAgeIsBelowItsLifetimeAndNeverWithNoCache() {
        let freshness = CacheFreshness(maxAge: 60)
        #expect(freshness.isFresh(requestTime: 100, responseTime: 100, now: 159, defaultMaxAge: nil))
        #expect(!freshness.isFresh(requestTime: 100, responseTime: 100, now: 160, defaultMaxAge: nil))
        #expect(
            !CacheFreshness(maxAge: 60, noCache: true).isFresh(
                requestTime: 100, responseTime: 100, now: 100, defaultMaxAge: nil))
        #expect(!CacheFreshness().isFresh(requestTime: 100, responseTime: 100, now: 100, defaultMaxAge: nil))
        #expect(CacheFreshness().isFresh(requestTime: 100, responseTime: 100, now: 100, defaultMaxAge: 3600))
    }
}

/// What may be stored, under which key, and how revalidation changes requests and stored fields.
struct CachePolicyTests {
    @Test func requestsWithCredentialsOrNotGETAreNotCacheable() {
        #expect(CachePolicy.isCacheable(Request("http://h/a?i=1"), defaults: []))
        #expect(!CachePolicy.isCacheable(Request("http://u:p@h/a"), defaults: []))
        #expect(!CachePolicy.isCacheable(Request("http://u@h/a"), defaults: []))
        #expect(!CachePolicy.isCacheable(Request("http://h/a?api_key=s3cret"), defaults: []))
        #expect(!CachePolicy.isCacheable(Request("http://h/a", method: .post), defaults: []))
        let bearer = HeaderField(name: "Authorization", value: "Bearer x")
        #expect(!CachePolicy.isCacheable(Request("http://h/a", headers: [bearer]), defaults: []))
        #expect(!CachePolicy.isCacheable(Request("http://h/a"), defaults: [bearer]))
        let cookie = HeaderField(name: "COOKIE", value: "s=1")
        #expect(!CachePolicy.isCacheable(Request("http://h/a", headers: [cookie]), defaults: []))
        #expect(CachePolicy.isCacheable(Request("http://h/a?token_count=1@2"), defaults: []))
        let noStore = HeaderField(name: "Cache-Control", value: "no-store")
        #expect(!CachePolicy.isCacheable(Request("http://h/a", headers: [noStore]), defaults: []))
    }

    @Test func varyKeysUseTheRequestsOwnFieldsOverTheEnginesAndStarIsNotStorable() {
        let headers = HTTPHeaders([("Vary", "Accept-Language, accept"), ("Vary", "X-A")])
        let names = CachePolicy.varyNames(headers)
        #expect(names == ["accept", "accept-language", "x-a"])
        let request = Request("http://h/", headers: [HeaderField(name: "Accept", value: "text/html")])
        let defaults = [HeaderField(name: "Accept", value: "*/*"), HeaderField(name: "X-A", value: "1")]
        #expect(
            CachePolicy.varyKey(names: names ?? [], request: request, defaults: defaults)
                == "accept:text/html\naccept-language:\nx-a:1\n")
        #expect(CachePolicy.varyNames(HTTPHeaders([("Vary", "*")])) == nil)
        #expect(CachePolicy.varyNames(HTTPHeaders([])) == [])
    }

    @Test func storedFieldsDropFramingAndCookiesAndA304RefreshesByName() {
        let response = HTTPHeaders([
            ("Content-Type", "application/json"), ("Content-Length", "12"), ("Set-Cookie", "s=1"),
            ("ETag", "\"a\""), ("Date", "Mon, 01 Jan 2024 00:00:00 GMT"),
        ])
        let stored = HTTPHeaders(raw: CachePolicy.storedFields(response))
        #expect(stored.map(\.name) == ["Content-Type", "ETag", "Date"])
        let notModified = HTTPHeaders([("Date", "Tue, 02 Jan 2024 00:00:00 GMT"), ("Connection", "close")])
        let refreshed = HTTPHeaders(raw: CachePolicy.refreshedFields(stored: stored, notModified: notModified))
        #expect(refreshed["date"] == "Tue, 02 Jan 2024 00:00:00 GMT")
        #expect(refreshed["etag"] == "\"a\"")
        #expect(refreshed["content-type"] == "application/json")
        #expect(refreshed["connection"] == nil)
    }

    @Test func conditionalRequestsCarryTheStoredValidators() throws {
        let stored = HTTPHeaders([("ETag", "\"a\""), ("Last-Modified", "Mon, 01 Jan 2024 00:00:00 GMT")])
        let request = try #require(CachePolicy.conditionalRequest(Request("http://h/"), stored: stored))
        #expect(
            request.headers == [
                HeaderField(name: "If-None-Match", value: "\"a\""),
                HeaderField(name: "If-Modified-Since", value: "Mon, 01 Jan 2024 00:00:00 GMT"),
            ])
        #expect(CachePolicy.conditionalRequest(Request("http://h/"), stored: HTTPHeaders([])) == nil)
    }
}
