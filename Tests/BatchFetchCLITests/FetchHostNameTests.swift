import Foundation
import TestSupport
import Testing

/// International host names, sent as curl sends them and recorded as given. Nothing leaves
/// loopback: the test server is the HTTP proxy (`http_proxy`), so it sees the host that would
/// have been looked up in the request line and `Host` field.
@Suite(.serialized)
struct FetchHostNameTests {
    /// The environment that sends every request to `server` as a proxy.
    private func proxied(by server: TestHTTPServer) -> [String: String] {
        ["http_proxy": server.baseURL, "no_proxy": "", "NO_PROXY": "", "all_proxy": "", "ALL_PROXY": ""]
    }

    @Test func anInternationalHostIsSentInItsASCIIFormAndRecordedAsGiven() async throws {
        try await TestHTTPServer.with { server in
            let url = "http://exämple.test/ok?size=80"
            let output = try Executable.batchfetch().run(
                ["fetch", "--retries", "0", url], environment: self.proxied(by: server))
            #expect(output.status == 0, "\(output)")
            let record = try #require(try output.records().first)
            #expect(record["url"] as? String == url)
            #expect(record["status"] as? Int == 200)
            let arrival = try #require(server.arrivals.first)
            #expect(arrival.target == "http://xn--exmple-cua.test/ok?size=80")
            #expect(arrival.head.contains("\r\nHost: xn--exmple-cua.test\r\n"), "\(arrival.head)")
        }
    }

    /// `bücher.test`, `BÜCHER.test.` and `xn--bcher-kva.test:80` are one host: one budget, which
    /// a rule naming any spelling sets, and one row of `--stats`.
    @Test func everySpellingOfAHostSharesItsRateAndItsRow() async throws {
        try await TestHTTPServer.with { server in
            let spellings = ["http://bücher.test", "http://BÜCHER.test.", "http://xn--bcher-kva.test:80"]
            let urls = (0..<6).map { "\(spellings[$0 % 3])/ok?i=\($0)" }
            let stats = FileManager.default.temporaryDirectory.appendingPathComponent("bf-idn-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: stats) }
            let output = try Executable.batchfetch().run(
                ["fetch", "-q", "--retries", "0", "--stats", stats.path, "--host-rate", "Bücher.test=4/s,*=1000/s"]
                    + urls,
                environment: self.proxied(by: server))
            #expect(output.status == 0, "\(output)")
            let summary = try JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any]
            let hosts = summary?["hosts"] as? [String: [String: Any]]
            #expect(hosts?.keys.sorted() == ["xn--bcher-kva.test"], "\(String(describing: hosts))")
            #expect(hosts?["xn--bcher-kva.test"]?["requests"] as? Int == 6)
            // One start, then about four a second: the sixth no sooner than 1.2 s after the first.
            let times = (server.snapshot.arrivals["/ok"] ?? []).sorted()
            #expect(times.count == 6)
            if let first = times.first, let last = times.last {
                #expect(Double(last - first) / 1e9 >= 1.2, "\(Double(last - first) / 1e9) s")
            }
        }
    }

    @Test func hostsWithoutAnASCIIFormAreInvalidURLRecordsAndNeverSent() async throws {
        try await TestHTTPServer.with { server in
            let urls = ["http://ab--ä.test/ok", "http://" + String(repeating: "ä", count: 60) + ".test/ok"]
            let output = try Executable.batchfetch().run(
                ["fetch", "--retries", "0"] + urls, environment: self.proxied(by: server))
            #expect(output.status == 1, "\(output)")
            let records = try output.records()
            #expect(records.count == 2)
            for record in records {
                let error = record["error"] as? [String: Any]
                #expect(error?["kind"] as? String == "invalidURL", "\(record)")
                #expect((error?["message"] as? String)?.contains("has no ASCII form (IDNA)") == true, "\(record)")
                #expect(record["attempts"] as? Int == 0)
            }
            #expect(server.arrivals.isEmpty)
        }
    }

    /// Path and query bytes go to libcurl as given, so the request line is the one `curl` sends
    /// for the same URL on the same libcurl (which %-encodes the path only in a direct request).
    @Test(.enabled(if: Self.curlConvertsHosts, "needs /usr/bin/curl and the C.UTF-8 locale"))
    func nonASCIIPathsAndQueriesAreSentAsCurlSendsThem() async throws {
        try await RawRequestRecorder.with { recorder in
            let proxied = "http://exämple.test/pä/ok?q=ü"
            let direct = "\(recorder.baseURL)/pä/ok?q=ü"
            let proxy = ["http_proxy": recorder.baseURL, "no_proxy": "", "NO_PROXY": ""]
            _ = try Executable.batchfetch().run(["fetch", "--retries", "0", proxied], environment: proxy)
            _ = try Executable.batchfetch().run(
                ["fetch", "--retries", "0", direct], environment: ["http_proxy": "", "all_proxy": "", "ALL_PROXY": ""])
            try self.curl(["-x", recorder.baseURL, proxied])
            try self.curl(["--noproxy", "*", direct])
            let lines = recorder.requestLines.map { String(decoding: $0, as: UTF8.self) }
            #expect(lines.count == 4, "\(lines)")
            #expect(lines.count == 4 && lines[0] == lines[2] && lines[1] == lines[3], "\(lines)")
            #expect(lines.first?.hasPrefix("GET http://xn--exmple-cua.test/p") == true, "\(lines)")
        }
    }

    /// curl converts a host only in a UTF-8 locale (libidn2 reads it in the locale's charset).
    static let curlConvertsHosts =
        FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")
        && ["/usr/lib/locale/C.utf8", "/usr/lib/locale/C.UTF-8"].contains { FileManager.default.fileExists(atPath: $0) }

    /// Runs curl in this process's environment (so on the libcurl `scripts/test --libcurl 8`
    /// loads), in the C.UTF-8 locale.
    private func curl(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-s", "-o", "/dev/null"] + arguments
        process.environment = ProcessInfo.processInfo.environment.merging(["LC_ALL": "C.UTF-8"]) { $1 }
        try process.run()
        process.waitUntilExit()
    }
}
