import BatchFetchRobots
import Foundation
import Testing

/// Every case of google/robotstxt-spec-test (converted by scripts/robots.d/convert-spec-test.py into
/// Resources/spec-test/cases.json). Where a case expects Google's answer against RFC 9309's, the
/// RFC's is asserted instead: `rfcDifferences` names each such case and why (docs/ROBOTS.md).
struct SpecTestCasesTests {
    struct File: Decodable {
        let cases: [Case]
    }

    struct Case: Decodable {
        let file: String
        let robotstxt: String?
        let robotstxt_base64: String?
        let expectations: [Expectation]

        var body: [UInt8] {
            if let text = self.robotstxt {
                return Array(text.utf8)
            }
            return Array(Data(base64Encoded: self.robotstxt_base64 ?? "") ?? Data())
        }
    }

    struct Expectation: Decodable {
        let url: String
        let agent: String
        let allowed: Bool
        let google_specific: Bool
    }

    /// "file URL" of each expectation where RFC 9309 answers otherwise than Google's matcher, with
    /// the difference (docs/ROBOTS.md) that explains it.
    static let rfcDifferences: [(String, String)] = [
        // These stress cases disallow everything, /robots.txt included; RFC 9309 §2.2.2 always
        // allows it.
        ("327748.textproto http://m.example.com/robots.txt", "robots-txt-allowed"),
        ("369883.textproto http://example.com/robots.txt", "robots-txt-allowed"),
        ("369883.textproto http://example.com/robots.txt", "robots-txt-allowed"),
        ("860237.textproto http://example.com/robots.txt", "robots-txt-allowed"),
        // `Allow: /foo/bar/%62%61%7A`: the RFC decodes unreserved escapes, so it allows /foo/bar/baz.
        ("non-ascii-paths.textproto http://foo.bar/foo/bar/baz", "percent-encoding"),
        // `Allow: /foo/bar/ツ` and `Allow: /foo/bar/%E3%83%84`: the RFC percent-encodes the URL's ツ
        // too, so both allow it.
        ("non-ascii-paths.textproto http://foo.bar/foo/bar/ツ", "percent-encoding"),
        ("non-ascii-paths.textproto http://foo.bar/foo/bar/ツ", "percent-encoding"),
    ]

    static func load() throws -> [Case] {
        let url = try #require(
            Bundle.module.url(forResource: "cases", withExtension: "json", subdirectory: "Resources/spec-test"))
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).cases
    }

    @Test func everyExpectationHoldsOrIsAListedRFCDifference() throws {
        let cases = try Self.load()
        var checked = 0
        var differing: [String] = []
        for testCase in cases {
            let robots = RobotsTxt(testCase.body)
            for expectation in testCase.expectations {
                // The empty agent of empty-string.textproto is no valid token (RobotsAgent refuses
                // it); for Google's matcher it names no group, as this token does.
                let agent = try #require(RobotsAgent(expectation.agent) ?? RobotsAgent("no-group-names-this-agent"))
                let allowed = robots.matcher(for: agent).verdict(forURL: expectation.url).allowed
                let key = "\((testCase.file as NSString).lastPathComponent) \(expectation.url)"
                if allowed != expectation.allowed {
                    differing.append(key)
                }
                checked += 1
            }
        }
        #expect(checked == 400)
        #expect(differing.sorted() == Self.rfcDifferences.map(\.0).sorted())
    }
}
