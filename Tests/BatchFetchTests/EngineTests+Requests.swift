import Foundation
import TestSupport
import Testing

@testable import BatchFetch
@testable import BatchFetchCache

/// Requests that are more than a GET: methods and bodies on reused handles, bodies streamed from
/// files, which methods are retried, cookies and proxies.
extension EngineTests {
    /// What the server's `/request` route saw.
    struct Seen {
        let method: String
        let target: String
        let headers: [(String, String)]
        let body: String
        let bytes: Int

        init(_ result: FetchResult) throws {
            let body = try #require(result.response?.body, "\(String(describing: result.error))")
            let object = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
            self.method = object["method"] as? String ?? ""
            self.target = object["target"] as? String ?? ""
            self.headers = (object["headers"] as? [[String]] ?? []).map { ($0[0], $0[1]) }
            self.body = object["body"] as? String ?? ""
            self.bytes = object["bytes"] as? Int ?? -1
        }

        func header(_ name: String) -> [String] {
            self.headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }
    }

    /// One handle, one request after another: nothing of a request's method or body lingers
    /// into the next.
    @Test func methodsAndBodiesDoNotLingerOnAReusedHandle() async throws {
        let directory = try ScratchDirectory("engine-requests")
        let file = directory.path("body.bin")
        try Data("from a file".utf8).write(to: URL(fileURLWithPath: file))
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let requests = [
                Request(url, method: .post, body: Array("a=1".utf8)),
                Request(url),
                Request(url, method: .put, bodyFile: file),
                Request(url, method: .head),
                Request(url, method: .post, body: []),
                Request(url, method: .delete),
                Request(url, method: .patch, body: Array("{}".utf8)),
                Request(url, method: .post),
                Request(url),
            ]
            let results = try await withEngine(configuration: .testing(maxInFlight: 1)) { engine in
                var results: [FetchResult] = []
                for await result in engine.orderedResults(for: requests) {
                    results.append(result)
                }
                return results
            }
            #expect(results[3].response?.status == 200 && results[3].response?.body.isEmpty == true)
            let seen = try results.enumerated().filter { $0.offset != 3 }.map { try Seen($0.element) }
            #expect(seen.map(\.method) == ["POST", "GET", "PUT", "POST", "DELETE", "PATCH", "POST", "GET"])
            #expect(seen.map(\.body) == ["a=1", "", "from a file", "", "", "{}", "", ""])
            #expect(seen.map(\.bytes) == [3, 0, 11, 0, 0, 2, 0, 0])
            #expect(seen[3].header("Content-Length") == ["0"])
            #expect(seen[2].header("Content-Length") == ["11"])
            let head = try #require(server.arrivals.first { $0.head.hasPrefix("HEAD ") })
            #expect(head.bodyBytes == 0)
        }
    }

    /// A body file larger than libcurl's buffer arrives whole, with its size as Content-Length;
    /// one that cannot be opened fails its request alone, as an invalid request.
    @Test func aBodyFileIsSentWholeAndAMissingOneFailsItsRequestAlone() async throws {
        let directory = try ScratchDirectory("engine-requests")
        let file = directory.path("big.bin")
        let bytes = (0..<3_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let results = try await withEngine(configuration: .testing()) { engine in
                await collect(
                    engine,
                    [
                        Request(url, method: .post, bodyFile: file),
                        Request(url, method: .post, bodyFile: directory.path("missing.bin")),
                        Request(url, method: .post, bodyFile: directory.url.path),
                        Request(url, method: .post, body: [1], bodyFile: file),
                    ])
            }.sorted { $0.index < $1.index }
            #expect(try Seen(results[0]).bytes == bytes.count)
            #expect(try Seen(results[0]).header("Content-Length") == ["\(bytes.count)"])
            let arrival = try #require(server.arrivals.first { $0.bodyBytes > 0 })
            #expect(arrival.body == Array(bytes.prefix(1 << 20)))
            #expect(results[1].error?.kind == .invalidRequest)
            #expect(results[1].error?.message.contains("missing.bin: cannot open it") == true)
            // Nothing was sent: no attempt, and no time.
            #expect(results[1].attempts == 0 && results[1].totalTime == nil)
            #expect(results[2].error?.message.contains("not a regular file") == true)
            #expect(results[2].attempts == 0)
            #expect(results[3].error?.kind == .invalidRequest)
            #expect(server.snapshot.requests == 1)
        }
    }

    @Test func aPostIsRetriedOnlyWhereTheServerCertainlyDidNotProcessIt() async throws {
        try await TestHTTPServer.with { server in
            let base = "\(server.baseURL)/flaky?fail=1"
            let post: (String) -> Request = { Request(base + $0, method: .post, body: Array("x".utf8)) }
            let results = try await withEngine(configuration: .testing()) { engine in
                await collect(
                    engine,
                    [
                        post("&key=p500&status=500"), post("&key=p503&status=503"),
                        post("&key=p503ra&status=503&retryAfter=0"), post("&key=p429&status=429"),
                        Request(base + "&key=g500&status=500"),
                    ])
            }.sorted { $0.index < $1.index }
            #expect(results.map { $0.response?.status } == [500, 503, 200, 200, 200])
            #expect(results.map(\.attempts) == [1, 1, 2, 2, 2])
            var configuration = Engine.Configuration.testing()
            configuration.retry.retriesAllMethods = true
            let retried = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(post("&key=all500&status=500"))
            }
            #expect(retried.response?.status == 200 && retried.attempts == 2)
        }
        // Never connected, so never processed: retried, to the limit.
        let refused = try await withEngine(configuration: .testing(retries: 2)) { engine in
            await engine.fetch(Request("http://127.0.0.1:1/", method: .post, body: [1]))
        }
        #expect(refused.error?.kind == .connectFailed && refused.attempts == 3)
    }

    @Test func cookiesAreSentKeptForTheBatchLoadedAndSaved() async throws {
        let directory = try ScratchDirectory("engine-cookies")
        let start = directory.path("start.txt")
        let jar = directory.path("jar.txt")
        try "127.0.0.1\tFALSE\t/\tFALSE\t0\tloaded\tyes\n".write(toFile: start, atomically: true, encoding: .utf8)
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing()
            configuration.cookies = Engine.Cookies(header: "given=1", files: [start], jar: jar)
            let (before, after) = try await withEngine(configuration: configuration) { engine in
                let before = await engine.fetch(
                    Request("\(server.baseURL)/set-cookie?cookie=session%3Dabc%3B%20Path%3D%2F"))
                // Later requests, on whichever handle, carry what the response set.
                let after = await collect(engine, (0..<8).map { Request("\(server.baseURL)/request?n=\($0)") })
                return (before, after)
            }
            // One Cookie field each, the given cookie and the jar's in it (libcurl's order).
            let cookies: (FetchResult) throws -> Set<String>? = { result in
                let fields = try Seen(result).header("Cookie")
                guard fields.count == 1, let field = fields.first else {
                    return nil
                }
                return Set(field.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
            }
            #expect(try cookies(before) == ["given=1", "loaded=yes"])
            for result in after {
                #expect(try cookies(result) == ["given=1", "loaded=yes", "session=abc"])
            }
            let saved = try String(contentsOfFile: jar, encoding: .utf8)
            #expect(saved.contains("\tsession\tabc"))
            #expect(saved.contains("\tloaded\tyes"))
        }
    }

    @Test func aProxyCarriesEveryRequestExceptTheHostsItMustNot() async throws {
        try await TestHTTPServer.with { server in
            var configuration = Engine.Configuration.testing(retries: 0)
            configuration.proxy = server.baseURL
            let proxied = try await withEngine(configuration: configuration) { engine in
                // Never resolved: the proxy is asked for it.
                await engine.fetch(Request("http://proxied.invalid/request"))
            }
            #expect(try Seen(proxied).target == "http://proxied.invalid/request")
            configuration.proxy = "http://127.0.0.1:1"
            let refused = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/ok"))
            }
            #expect(refused.error?.kind == .connectFailed, "the dead proxy is used")
            configuration.noProxy = "127.0.0.1"
            let bypassed = try await withEngine(configuration: configuration) { engine in
                await engine.fetch(Request("\(server.baseURL)/ok"))
            }
            #expect(bypassed.response?.status == 200, "\(String(describing: bypassed.error))")
        }
    }
}

extension EngineCacheTests {
    /// RFC 9111 stores responses to GET only: a POST to a cached URL reaches the server, and
    /// leaves the GET's entry as it was.
    @Test func aPostIsNeitherAnsweredFromTheCacheNorStored() async throws {
        let directory = CacheStoreTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/cached?cc=max-age%3D600"
            let get = Request(url)
            let post = Request(url, method: .post, body: Array("x".utf8))
            let first = try await Self.run([get], directory)
            #expect(first.statistics?.stored == 1)
            let second = try await Self.run([post], directory)
            #expect(second.results.first?.response?.status == 200 && second.results.first?.cache == .miss)
            #expect(second.statistics?.stored == 0)
            let third = try await Self.run([get], directory)
            #expect(third.results.first?.cache == .hit)
            #expect(third.results.first?.response?.body == first.results.first?.response?.body)
            // The GET, then the POST; never the cached GET again.
            #expect(server.snapshot.arrivals["/cached"]?.count == 2)
        }
    }

    /// A proxy scheme libcurl cannot speak to a proxy with fails the engine at start, not every request.
    @Test func aProxyOfAnUnsupportedSchemeIsAnInvalidConfiguration() {
        var configuration = Engine.Configuration()
        configuration.proxy = "ftp://user:secret@127.0.0.1:21"
        let error = #expect(throws: FetchError.self) { try Engine(configuration: configuration) }
        #expect(error?.kind == .invalidConfiguration)
        #expect(error?.message.contains("scheme 'ftp'") == true && error?.message.contains("secret") == false)
        for proxy in ["", "127.0.0.1:1", "http://127.0.0.1:1", "SOCKS5H://127.0.0.1:1", "https://p:1"] {
            #expect(Engine.Configuration.problem(withProxy: proxy) == nil, "\(proxy)")
        }
    }
}
