import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// Redirects of every method as RFC 9110 §15.4 asks and curl's `--follow` sends them, seen from
/// the server's side: what arrived at the hop after the redirect.
@Suite(.serialized)
struct EngineRedirectTests {
    /// A request as sent: its method, and whether its body is bytes or a file.
    enum Sent: String, CaseIterable, CustomTestStringConvertible, Sendable {
        case get, head, post, put, patch, delete, postFile, putFile

        var method: Request.Method {
            switch self {
            case .get: .get
            case .head: .head
            case .post, .postFile: .post
            case .put, .putFile: .put
            case .patch: .patch
            case .delete: .delete
            }
        }

        var hasBody: Bool { self != .get && self != .head }
        var testDescription: String { self.rawValue }
    }

    /// The method the next hop must arrive with, and whether the body (and its `Content-Type`
    /// and `Content-Length`) must come along.
    static func expected(after status: Int, _ sent: Sent) -> (method: String, keepsBody: Bool) {
        switch (status, sent) {
        case (303, .head): ("HEAD", false)
        case (303, _): ("GET", false)
        case (301, .post), (301, .postFile), (302, .post), (302, .postFile): ("GET", false)
        default: (sent.method.rawValue, sent.hasBody)
        }
    }

    static func configuration(max: Int = 5) -> Engine.Configuration {
        var configuration = Engine.Configuration.testing(maxInFlight: 4, retries: 0)
        configuration.redirects = .follow(max: max)
        return configuration
    }

    @Test(arguments: [301, 302, 303, 307, 308], Sent.allCases)
    func theNextHopGetsTheMethodAndBodyTheStatusAsksFor(status: Int, sent: Sent) async throws {
        let scratch = try ScratchDirectory("redirect-body")
        let body = "body of \(sent) after \(status)"
        try await TestHTTPServer.with { server in
            var request = Request(
                "\(server.baseURL)/redirect?status=\(status)&to=%2Frequest%3Fhop%3D2", method: sent.method)
            if sent.hasBody {
                request.headers = [HeaderField(name: "Content-Type", value: "text/x-test")]
                if sent == .postFile || sent == .putFile {
                    try Data(body.utf8).write(to: URL(fileURLWithPath: scratch.path("body")))
                    request.bodyFile = scratch.path("body")
                } else {
                    request.body = Array(body.utf8)
                }
            }
            let result = try await withEngine(configuration: Self.configuration()) { engine in
                await engine.fetch(request)
            }
            #expect(result.response?.status == 200, "\(String(describing: result.error))")
            #expect(result.response?.effectiveURL == "\(server.baseURL)/request?hop=2")
            let arrivals = server.arrivals
            try #require(arrivals.count == 2, "\(arrivals.map(\.head))")
            #expect(arrivals[0].head.hasPrefix("\(sent.method.rawValue) /redirect?"))
            #expect(String(decoding: arrivals[0].body, as: UTF8.self) == (sent.hasBody ? body : ""))
            let (method, keepsBody) = Self.expected(after: status, sent)
            let next = arrivals[1]
            #expect(next.head.hasPrefix("\(method) /request?hop=2 "), "\(next.head)")
            #expect(String(decoding: next.body, as: UTF8.self) == (keepsBody ? body : ""))
            #expect(Self.field("content-type", in: next.head) == (keepsBody ? "text/x-test" : nil))
            #expect(Self.field("content-length", in: next.head) == (keepsBody ? "\(body.utf8.count)" : nil))
        }
    }

    @Test func credentialsGoToTheFirstOriginOnlyWhicheverFollowsTheRedirect() async throws {
        try await TestHTTPServer.with { server in
            try await TestHTTPServer.with(host: "127.0.0.2") { other in
                let away = "\(other.baseURL)/request?away=1".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
                let home = "/request?home=1".addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                let fields = [
                    HeaderField(name: "Authorization", value: "Bearer t0"), HeaderField(name: "Cookie", value: "c=1"),
                ]
                // PUT: followed by batchfetch; GET: by libcurl.
                let requests = [Request.Method.put, .get].flatMap { method in
                    [away, home].map { to in
                        Request("\(server.baseURL)/redirect?status=307&to=\(to)", method: method, headers: fields)
                    }
                }
                let results = try await withEngine(configuration: Self.configuration()) { engine in
                    await collect(engine, requests)
                }
                #expect(results.allSatisfy { $0.response?.status == 200 })
                let awayHeads = other.arrivals.map(\.head)
                let homeHeads = server.arrivals.filter { $0.target.hasPrefix("/request") }.map(\.head)
                #expect(awayHeads.count == 2 && homeHeads.count == 2)
                for head in awayHeads {
                    #expect(
                        Self.field("authorization", in: head) == nil && Self.field("cookie", in: head) == nil, "\(head)"
                    )
                }
                for head in homeHeads {
                    #expect(Self.field("authorization", in: head) == "Bearer t0", "\(head)")
                    #expect(Self.field("cookie", in: head) == "c=1", "\(head)")
                }
            }
        }
    }

    @Test func aFollowedRequestStopsAtTheRedirectLimitAsLibcurlDoes() async throws {
        try await TestHTTPServer.with { server in
            let results = try await withEngine(configuration: Self.configuration(max: 2)) { engine in
                await collect(
                    engine,
                    [Request.Method.delete, .get].map { Request("\(server.baseURL)/redirect?to=/redirect", method: $0) }
                )
            }
            for result in results {
                #expect(result.error?.kind == .tooManyRedirects, "\(String(describing: result.error))")
                #expect(result.error?.message.contains("Maximum (2) redirects followed") == true)
                #expect(result.error?.status == 302 && result.attempts == 1)
            }
            // Each: the request and the two redirects followed.
            #expect(server.arrivals.filter { $0.head.hasPrefix("DELETE") }.count == 3)
            #expect(server.arrivals.filter { $0.head.hasPrefix("GET") }.count == 3)
        }
    }

    @Test func eachHopIsListedAndARefusedRedirectEndsTheList() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Self.configuration()
            configuration.details = .redirects
            let second =
                "/redirect?status=308&to=" + "file:///etc/passwd".addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
            let first =
                "\(server.baseURL)/redirect?status=307&to=" + second.addingPercentEncoding(
                    withAllowedCharacters: .alphanumerics)!
            let results = try await withEngine(configuration: configuration) { engine in
                await collect(engine, [Request(first, method: .patch, body: Array("p".utf8)), Request(first)])
            }
            for result in results {
                #expect(result.error?.kind == .unsupportedScheme, "\(String(describing: result.error))")
                #expect(result.error?.status == 308)
                #expect(
                    result.details?.redirects == [
                        TransferDetails.Redirect(url: first, status: 307),
                        TransferDetails.Redirect(url: server.baseURL + second, status: 308),
                    ])
                #expect(result.details?.finalURL == "file:///etc/passwd")
            }
            #expect(server.arrivals.count == 4)
        }
    }

    /// The value of the first field named `name` (any case) in a request head, or `nil`.
    static func field(_ name: String, in head: String) -> String? {
        for line in head.split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name else {
                continue
            }
            return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return nil
    }
}
