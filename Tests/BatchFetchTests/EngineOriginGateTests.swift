import BatchFetchRobots
import Foundation
import TestSupport
import Testing

@testable import BatchFetch
@testable import BatchFetchRobotsPolicy

/// An origin policy (robots.txt) in the engine's state machine, on its fake clock (issue 52): an
/// origin's requests wait for its preflight, other origins go on, and what the rules refuse ends
/// unsent; cancellation and shutdown reach the requests held.
struct EngineOriginGateTests {
    private static func harness(_ mode: RobotsPolicy.Mode = .obey) -> EngineStateMachineHarness {
        let policy = RobotsPolicy(mode: mode, agent: RobotsAgent("batchfetch")!, maxCrawlDelay: 30)
        return EngineStateMachineHarness {
            $0.maxInFlight = 8
            $0.originPolicy = policy
        }
    }

    /// One origin per scheme, host and port: http and https of one host are two, a host's spellings one.
    @Test func originsAreSchemeHostAndPortInNormalForm() {
        #expect(Origin.of("http://h.test/a") == "http://h.test")
        #expect(Origin.of("https://h.test/a") == "https://h.test")
        #expect(Origin.of("HTTPS://H.test:443/a?b") == "https://h.test")
        #expect(Origin.of("http://h.test:443/") == "http://h.test:443")
        #expect(Origin.of("http://user:pw@Bücher.test./x") == "http://xn--bcher-kva.test")
    }

    /// The in-place reading of a URL's path and query gives the verdict the matcher's own does.
    @Test func theVerdictReadInPlaceIsTheMatchersOwn() throws {
        let robots = RobotsTxt(
            "User-agent: *\nDisallow: /a\nAllow: /a/b?\nDisallow: /*.php$\nDisallow: /%7Eme\nDisallow: /q;x\n")
        let matcher = robots.matcher(for: try #require(RobotsAgent("batchfetch")))
        let urls = [
            "http://h/a", "http://h/a/b?c", "https://h:8080/x.php", "http://h/x.php?y", "http://h/~me/", "http://h",
            "http://h?a", "http://h/a#frag", "http://u:p@h/a", "http://h;q;x/a", "HTTP://H/a", "http:/a", "h/a",
            "http://h/q;x", "http://h/%7eme", "http://h/a?#", "",
        ]
        for url in urls {
            #expect(OriginRobots.verdict(of: matcher, forURL: url) == matcher.verdict(forURL: url), "\(url)")
        }
    }

    @Test func anOriginsRequestsWaitForItsRobotsTxtWhileOthersGoOn() throws {
        var harness = Self.harness()
        let sink = ResultSink()
        harness.receive(["http://a.test/1", "http://a.test/private/2", "http://b.test/1"], to: sink)
        let preflights = harness.admit().started
        #expect(preflights.map(\.request.url) == ["http://a.test/robots.txt", "http://b.test/robots.txt"])
        #expect(harness.machine.queued == 3, "every request waits for its origin's robots.txt")
        // b's robots.txt is missing: everything of b is allowed, and b/1 starts; a's still wait.
        harness.respond(preflights[1], status: 404, body: "")
        #expect(harness.admitURLs() == ["http://b.test/1"])
        harness.respond(preflights[0], body: "User-agent: *\nDisallow: /private/\n")
        #expect(harness.admitURLs() == ["http://a.test/1"])
        harness.deliver()
        let refused = harness.record.results.first { $0.request.url == "http://a.test/private/2" }
        #expect(refused?.error?.kind == .robotsDisallowed && refused?.attempts == 0)
        #expect(harness.record.results.count == 1, "a preflight has no result of its own")
    }

    @Test func aPreflightIsRetriedAndARedirectIsFollowedOnAnotherHost() throws {
        var harness = Self.harness()
        let sink = ResultSink()
        harness.receive(["http://a.test/x"], to: sink)
        let first = try #require(harness.admit().started.first)
        harness.respond(first, status: 503, retryAfter: .seconds(2))
        #expect(harness.admit().started.isEmpty)
        harness.advance(by: .seconds(2))
        let again = try #require(harness.admit().started.first)
        #expect(again === first && again.attempts == 2)
        let response = Response(
            status: 301, headers: HTTPHeaders([("Location", "http://c.test/robots.txt")]),
            body: Data(), effectiveURL: again.request.url)
        harness.machine.transferFinished(again, .success(response), retryAfter: nil, now: harness.now)
        let hop = try #require(harness.admit().started.first)
        #expect(hop.request.url == "http://c.test/robots.txt")
        // The rules of c's file apply to a.test, the origin asked about.
        harness.respond(hop, body: "User-agent: *\nDisallow: /x\n")
        #expect(harness.admit().started.isEmpty)
        harness.deliver()
        #expect(harness.record.results.first?.error?.kind == .robotsDisallowed)
    }

    @Test func cancellingABatchReachesItsHeldRequestsAndShutdownEndsTheRest() throws {
        var harness = Self.harness()
        let first = ResultSink()
        let second = ResultSink()
        harness.receive(["http://a.test/1", "http://a.test/2"], to: first)
        harness.receive(["http://a.test/3"], to: second)
        let preflight = try #require(harness.admit().started.first)
        #expect(harness.machine.queued == 3)
        harness.receive([], to: first, cancelling: [first])
        #expect(harness.machine.queued == 1)
        harness.respond(preflight, body: "User-agent: *\nAllow: /\n")
        #expect(harness.admitURLs() == ["http://a.test/3"])

        var other = Self.harness()
        other.receive(["http://b.test/1"], to: first)
        _ = other.admit()
        let record = other.record
        other.machine.shutdown(now: other.now, stop: { _ in }, deliver: { record.deliveries.append(($0, $1)) })
        #expect(record.results.map { $0.error?.kind } == [.cancelled])
    }

    @Test func reportModeRefusesNothingAndCrawlDelaySpacesTheHostOnlyWhenObeyed() throws {
        for mode in [RobotsPolicy.Mode.report, .obey] {
            var harness = Self.harness(mode)
            let sink = ResultSink()
            harness.receive(["http://a.test/private/1", "http://a.test/2"], to: sink)
            let preflight = try #require(harness.admit().started.first)
            harness.respond(preflight, body: "User-agent: *\nDisallow: /private/\nCrawl-delay: 2\n")
            let started = harness.admitURLs()
            if mode == .report {
                #expect(started == ["http://a.test/private/1", "http://a.test/2"])
            } else {
                // robots.txt's start counts: the next waits the 2 s.
                #expect(started.isEmpty)
                harness.advance(by: .milliseconds(1999))
                #expect(harness.admitURLs().isEmpty)
                harness.advance(by: .milliseconds(2))
                #expect(harness.admitURLs() == ["http://a.test/2"])
            }
        }
    }
}
