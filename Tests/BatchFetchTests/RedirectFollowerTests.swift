import Testing

@testable import BatchFetch

/// ``RedirectFollower``'s decisions, without a network.
struct RedirectFollowerTests {
    private static let put = Request(
        "http://a.test/x", method: .put,
        headers: [HeaderField(name: "Content-Type", value: "text/plain"), HeaderField(name: "X-Keep", value: "1")],
        body: Array("b".utf8))

    @Test func onlyPlainGetsAndHeadsAreLeftToLibcurl() {
        #expect(!RedirectFollower.isNeeded(for: Request("http://a.test/")))
        #expect(!RedirectFollower.isNeeded(for: Request("http://a.test/", method: .head)))
        #expect(RedirectFollower.isNeeded(for: Request("http://a.test/", body: [1])))
        for method in [Request.Method.post, .put, .patch, .delete, .options] {
            #expect(RedirectFollower.isNeeded(for: Request("http://a.test/", method: method)))
        }
    }

    @Test func aSeeOtherDropsTheBodyAndTheFieldsThatDescribeIt() {
        var follower = RedirectFollower(Self.put, maxRedirects: 5)
        #expect(follower.next(status: 303, location: "http://a.test/y") == .follow)
        #expect(follower.current.method == .get && follower.current.body == nil)
        #expect(follower.current.headers == [HeaderField(name: "X-Keep", value: "1")])
        #expect(follower.removedFields == ["content-type", "content-length"])
        // A later 307 repeats the GET it has become.
        #expect(follower.next(status: 307, location: "http://a.test/z") == .follow)
        #expect(follower.current.method == .get && follower.current.url == "http://a.test/z")
    }

    @Test func credentialsAreLeftOutAwayFromTheFirstOriginAndSentAgainBackThere() {
        var follower = RedirectFollower(Self.put, maxRedirects: 5)
        #expect(follower.next(status: 308, location: "http://a.test:8080/y") == .follow)
        #expect(follower.removedFields == ["authorization", "cookie"])
        #expect(follower.current.method == .put && follower.current.body == Array("b".utf8))
        #expect(follower.next(status: 308, location: "HTTP://A.test:80/z") == .follow)
        #expect(follower.removedFields.isEmpty)
        #expect(follower.next(status: 308, location: "https://a.test/z") == .follow)
        #expect(follower.removedFields == ["authorization", "cookie"])
    }

    @Test func notModifiedAndResponsesWithoutALocationEndTheTransfer() {
        var follower = RedirectFollower(Self.put, maxRedirects: 5)
        #expect(follower.next(status: 304, location: "http://a.test/y") == .done)
        #expect(follower.next(status: 302, location: nil) == .done)
        #expect(follower.next(status: 200, location: "http://a.test/y") == .done)
        #expect(follower.followed == 0 && follower.current == Self.put)
    }

    @Test func theLimitAndTheSchemeStopIt() {
        var follower = RedirectFollower(Self.put, maxRedirects: 1)
        #expect(follower.next(status: 302, location: "ftp://a.test/y") == .refused(scheme: "ftp"))
        #expect(follower.lastLocation == "ftp://a.test/y")
        #expect(follower.next(status: 302, location: "http://a.test/y") == .follow)
        #expect(follower.next(status: 302, location: "http://a.test/z") == .tooMany)
        #expect(follower.current.url == "http://a.test/y")
    }
}
