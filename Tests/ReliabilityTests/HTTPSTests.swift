import BatchFetch
import CocktailReplica
import Foundation
import TestSupport
import Testing

/// HTTPS and HTTP/2 against a real server: nginx, started by each test with certificates of a CA
/// made for it (see ``TLSServer``). What is checked is what a user sees: records, exit statuses,
/// warnings, `--stats`, bench reports, and, from nginx's access log, how many connections carried
/// the requests.
@Suite(.serialized)
struct HTTPSTests {
    /// Starts nginx over a directory holding `drink.json`, runs `body`, stops nginx.
    private func withServer(
        upstreamPort: Int? = nil, _ body: (TLSServer, borrowing ScratchDirectory) throws -> Void
    ) throws {
        guard let tools = TLSServer.tools() else {
            Issue.record("nginx or openssl is not installed: scripts/setup --build-tests installs them")
            return
        }
        let directory = try ScratchDirectory("bf-https")
        let root = directory.path("www")
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try Data(#"{"drinks":[{"idDrink":"11007","strDrink":"Margarita"}]}"#.utf8)
            .write(to: URL(fileURLWithPath: "\(root)/drink.json"))
        let server = try TLSServer(
            nginx: tools.nginx, openssl: tools.openssl, directory: directory.url.path, root: root,
            upstreamPort: upstreamPort)
        defer { server.stop() }
        try body(server, directory)
    }

    private static func errorObject(_ record: [String: Any]?) -> [String: Any]? {
        record?["error"] as? [String: Any]
    }

    private static func stats(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    @Test func aServerCertifiedByAPrivateCAIsTrustedWithCACertAndRefusedWithout() throws {
        try self.withServer { server, _ in
            let url = "https://127.0.0.1:\(server.good)/drink.json"
            let trusted = try Executable.batchfetch().run(
                ["fetch", "--retries", "0", "--ca-cert", server.certificates.caFile, url], deadline: 30)
            #expect(trusted.status == 0, "\(trusted.stderr)")
            let record = try #require(try trusted.records().first)
            #expect(record["status"] as? Int == 200)
            #expect(
                ((record["body"] as? [String: Any])?["drinks"] as? [[String: Any]])?.first?["idDrink"] as? String
                    == "11007")
            #expect(!trusted.stderr.contains("not verified"), "no warning when verification is on")

            let untrusted = try Executable.batchfetch().run(["fetch", "--retries", "0", url], deadline: 30)
            #expect(untrusted.status == 1)
            #expect(Self.errorObject(try untrusted.records().first)?["kind"] as? String == "tlsFailure")
        }
    }

    @Test func aCertificateForAnotherHostIsRefusedEvenFromATrustedCA() throws {
        try self.withServer { server, _ in
            let output = try Executable.batchfetch().run(
                [
                    "fetch", "--retries", "0", "--ca-cert", server.certificates.caFile,
                    "https://127.0.0.1:\(server.wrongHost)/drink.json",
                ], deadline: 30)
            #expect(output.status == 1)
            let error = try #require(Self.errorObject(try output.records().first))
            #expect(error["kind"] as? String == "tlsFailure")
            #expect((error["message"] as? String)?.contains("127.0.0.1") == true, "\(error)")
            #expect(server.accessLog().isEmpty, "no request was sent to the impostor")
        }
    }

    @Test func anExpiredCertificateIsRefusedEvenFromATrustedCA() throws {
        try self.withServer { server, _ in
            let output = try Executable.batchfetch().run(
                [
                    "fetch", "--retries", "0", "--ca-cert", server.certificates.caFile,
                    "https://127.0.0.1:\(server.expired)/drink.json",
                ], deadline: 30)
            #expect(output.status == 1)
            let error = try #require(Self.errorObject(try output.records().first))
            #expect(error["kind"] as? String == "tlsFailure")
            #expect((error["message"] as? String)?.contains("expired") == true, "\(error)")
        }
    }

    /// `-k` fetches from the wrong host and the expired certificate alike, and every command that
    /// takes it says so on standard error.
    @Test func insecureFetchesDespiteBadCertificatesAndEveryCommandWarns() throws {
        try self.withServer { server, _ in
            let urls = [server.wrongHost, server.expired].map { "https://127.0.0.1:\($0)/drink.json" }
            let fetched = try Executable.batchfetch().run(["fetch", "-k", "--retries", "0"] + urls, deadline: 30)
            #expect(fetched.status == 0, "\(fetched.stderr)")
            #expect(try fetched.records().map { $0["status"] as? Int } == [200, 200])
            #expect(fetched.stderr.contains("warning: TLS certificates are not verified"))

            let benched = try Executable.batchfetch().run(
                ["bench", "--insecure", "--retries", "0", "-n", "20", "-c", "4", "--json", urls[1]], deadline: 30)
            #expect(benched.status == 0, "\(benched.stderr)")
            #expect(benched.stderr.contains("warning: TLS certificates are not verified"))

            let crawled = try Executable.batchfetch().run(
                [
                    "crawl", "-k", "--retries", "0", "--base-url",
                    "https://127.0.0.1:\(server.expired)/api/json/v1/1/",
                ], deadline: 30)
            #expect(crawled.stderr.contains("warning: TLS certificates are not verified"))
        }
    }

    /// With `--http2` over TLS, ALPN settles on h2; the stats file says so, and 64 requests with 16
    /// in flight travel as streams of one connection. Without it, HTTP/1.1 and one connection per
    /// transfer in flight.
    @Test func http2IsNegotiatedOverTLSAndMultiplexedOverOneConnection() throws {
        try self.withServer { server, directory in
            let urls = (0..<64).map { "https://127.0.0.1:\(server.good)/drink.json?i=\($0)" }
            let ca = server.certificates.caFile
            let h2 = try Executable.batchfetch().run(
                [
                    "fetch", "--http2", "--ca-cert", ca, "-c", "16", "--body", "none", "--stats",
                    directory.path("h2.json"),
                ]
                    + urls, deadline: 60)
            #expect(h2.status == 0, "\(h2.stderr)")
            #expect(try h2.records().count == 64)
            #expect(try Self.stats(directory.path("h2.json"))["protocols"] as? [String: Int] == ["HTTP/2": 64])
            let h2Log = server.accessLog()
            #expect(h2Log.count == 64 && h2Log.allSatisfy { $0.protocolName == "HTTP/2.0" && $0.status == 200 })
            #expect(Set(h2Log.map(\.connection)).count == 1, "one connection carries every stream")

            let h1 = try Executable.batchfetch().run(
                ["fetch", "--ca-cert", ca, "-c", "16", "--body", "none", "--stats", directory.path("h1.json")] + urls,
                deadline: 60)
            #expect(h1.status == 0, "\(h1.stderr)")
            #expect(try Self.stats(directory.path("h1.json"))["protocols"] as? [String: Int] == ["HTTP/1.1": 64])
            let h1Log = server.accessLog().dropFirst(64)
            #expect(h1Log.allSatisfy { $0.protocolName == "HTTP/1.1" })
            let connections = Set(h1Log.map(\.connection)).count
            #expect(connections > 1 && connections <= 16, "connections are reused: \(connections)")
        }
    }

    /// When the server ends connections (here after 10 requests each, as nginx does after 1,000),
    /// the next ones resume the TLS session instead of a full handshake with certificate checks,
    /// whichever of the pooled transfers opens them (one connection at a time, so which one does
    /// varies; before sessions were shared, each one's first connection was a full handshake).
    /// Over HTTP/2 libcurl 7.88 resumes none, curl's own command line neither: not tested here.
    @Test func newConnectionsResumeTheTLSSessionThatAnEarlierOneNegotiated() throws {
        try self.withServer { server, _ in
            let urls = (0..<60).map { "https://127.0.0.1:\(server.shortLived)/drink.json?i=\($0)" }
            let output = try Executable.batchfetch().run(
                ["fetch", "--ca-cert", server.certificates.caFile, "-c", "4", "--per-host", "1", "--body", "none"]
                    + urls, deadline: 60)
            #expect(output.status == 0, "\(output.stderr)")
            let log = server.accessLog()
            #expect(log.count == 60)
            var firstLine: [Int: TLSServer.LogLine] = [:]
            for line in log where firstLine[line.connection] == nil {
                firstLine[line.connection] = line
            }
            #expect(firstLine.count == 6, "10 requests per connection, one at a time")
            let full = firstLine.values.filter { $0.sessionReused != "r" }.count
            #expect(full == 1, "\(full) full handshakes over \(firstLine.count) connections")
        }
    }

    /// `bench --http2` reports the protocol and one connection opened, whatever the cap.
    @Test func benchOverHTTP2ReportsTheProtocolAndOneConnection() throws {
        try self.withServer { server, _ in
            let output = try Executable.batchfetch().run(
                [
                    "bench", "--http2", "--ca-cert", server.certificates.caFile, "--retries", "0", "-n", "400", "-c",
                    "32", "--json", "https://127.0.0.1:\(server.good)/drink.json",
                ], deadline: 60)
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try output.records().first)
            #expect(report["protocols"] as? [String: Int] == ["HTTP/2": 400])
            #expect(report["connections"] as? Int == 1)
            #expect(report["ok"] as? Int == 400)
        }
    }

    /// h2c: HTTP/2 on cleartext, which only works with prior knowledge (nothing to negotiate with).
    /// Every request has to succeed, also where libcurl cannot reuse h2c connections.
    /// `--warc` over HTTP/2 (issue 53): each exchange in HTTP/1.1 form, which every reader parses,
    /// with `WARC-Protocol: h2`, and the TLS version where there is one.
    @Test func http2ExchangesAreArchivedInHTTP11FormWithTheirProtocol() throws {
        try self.withServer { server, directory in
            let tls = directory.path("h2.warc.gz")
            let overTLS = try Executable.batchfetch().run(
                [
                    "fetch", "--http2", "--ca-cert", server.certificates.caFile, "--warc", tls,
                    "https://127.0.0.1:\(server.good)/drink.json",
                ], deadline: 60)
            #expect(overTLS.status == 0, "\(overTLS.stderr)")
            let cleartext = directory.path("h2c.warc")
            let h2c = try Executable.batchfetch().run(
                [
                    "fetch", "--http2-prior-knowledge", "--warc", cleartext,
                    "http://127.0.0.1:\(server.cleartextH2)/drink.json",
                ], deadline: 60)
            #expect(h2c.status == 0, "\(h2c.stderr)")
            let served = try Data(contentsOf: URL(fileURLWithPath: directory.path("www/drink.json")))
            for (path, secure) in [(tls, true), (cleartext, false)] {
                guard let report = try OutsideReader.report(path) else {
                    return
                }
                #expect(report.check.status == 0, "warcio check: \(report.check.output)")
                let response = try #require(report.records.first { $0.type == "response" })
                #expect(response.http_status == "200")
                #expect([UInt8](base64: response.raw_payload) == [UInt8](served))
                let protocols = response.headers.filter { $0.first == "WARC-Protocol" }.compactMap(\.last)
                #expect(protocols.first == "h2", "\(protocols)")
                #expect(secure ? protocols.last?.hasPrefix("tls/1.") == true : protocols.count == 1, "\(protocols)")
                let request = try #require(report.records.first { $0.type == "request" })
                #expect(request.http_headers?.isEmpty == false, "the request head parses in HTTP/1.1 form")
            }
            // The stored block itself, as the gzip member holds it.
            let inflated = try #require(try OutsideReader.report(tls)).members.map {
                String(decoding: [UInt8](base64: $0.data), as: UTF8.self)
            }
            let stored = try #require(inflated.first { $0.contains("WARC-Type: response") })
            #expect(stored.contains("\r\n\r\nHTTP/1.1 200 OK\r\n"), "\(stored.prefix(600))")
            #expect(inflated.contains { $0.contains("\r\n\r\nGET /drink.json HTTP/1.1\r\n") })
        }
    }

    @Test func http2PriorKnowledgeSpeaksH2cOnCleartext() throws {
        try self.withServer { server, directory in
            let urls = (0..<32).map { "http://127.0.0.1:\(server.cleartextH2)/drink.json?i=\($0)" }
            let output = try Executable.batchfetch().run(
                ["fetch", "--http2-prior-knowledge", "-c", "8", "--stats", directory.path("stats.json")] + urls,
                deadline: 60)
            #expect(output.status == 0, "\(output.stderr)")
            #expect(try output.records().allSatisfy { $0["status"] as? Int == 200 })
            #expect(try Self.stats(directory.path("stats.json"))["protocols"] as? [String: Int] == ["HTTP/2": 32])
            let log = server.accessLog()
            #expect(log.count == 32 && log.allSatisfy { $0.protocolName == "HTTP/2.0" })
            if BatchFetch.multiplexesCleartextHTTP2 {
                #expect(Set(log.map(\.connection)).count == 1, "one connection carries every stream")
            } else {
                // libcurl 7.x breaks reused h2c connections: one each, and the user is told why.
                #expect(Set(log.map(\.connection)).count == 32)
                #expect(output.stderr.contains("breaks reused h2c connections"))
            }
        }
    }

    /// The whole crawl over HTTPS and HTTP/2, through nginx in front of the replica: same facets as
    /// over plain HTTP, and the stats say every response came over HTTP/2.
    @Test func aCrawlRunsOverHTTP2AndTLSThroughAProxy() async throws {
        try await ReplicaServer.withServer { replica in
            try self.withServer(upstreamPort: replica.port) { server, directory in
                let proxy = try #require(server.proxy)
                let https = try Executable.batchfetch().run(
                    [
                        "crawl", "--base-url", "https://127.0.0.1:\(proxy)/api/json/v1/1/", "--http2", "--ca-cert",
                        server.certificates.caFile, "--details", "--stats", directory.path("stats.json"), "-q",
                    ], deadline: 120)
                #expect(https.status == 0, "\(https.stderr)")
                let plain = try Executable.batchfetch().run(
                    ["crawl", "--base-url", replica.baseURL, "--details", "-q"], deadline: 120)
                #expect(plain.status == 0, "\(plain.stderr)")
                #expect(https.stdout == plain.stdout && !https.stdout.isEmpty, "the same catalogue either way")
                let summary = try #require(try Self.stats(directory.path("stats.json"))["summary"] as? [String: Any])
                let protocols = try #require(summary["protocols"] as? [String: Int])
                #expect(protocols.keys.sorted() == ["HTTP/2"])
                #expect(protocols["HTTP/2"] == summary["requests"] as? Int)
            }
        }
    }

    @Test func conflictingOrUnreadableTransportFlagsAreUsageErrors() throws {
        let cases: [[String]] = [
            ["fetch", "--http2", "--http2-prior-knowledge", "http://127.0.0.1:1/"],
            ["fetch", "--ca-cert", "/nonexistent/ca.pem", "https://127.0.0.1:1/"],
            ["bench", "--ca-cert", "/", "https://127.0.0.1:1/"],
            ["crawl", "-k", "--ca-cert", "/etc/hostname", "--base-url", "https://127.0.0.1:1/"],
        ]
        for arguments in cases {
            let output = try Executable.batchfetch().run(arguments, deadline: 30)
            #expect(output.status == 2, "\(arguments): \(output.stderr)")
            #expect(output.stderr.contains("--"), "the message names the flag: \(output.stderr)")
        }
    }
}
