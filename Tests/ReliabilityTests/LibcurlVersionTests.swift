import BatchFetch
import CocktailReplica
import Foundation
import TestSupport
import Testing

/// What batchfetch does that depends on the libcurl it runs on, checked against the version that
/// this process loaded, so that one suite passes on Debian 12's 7.88.1 and on 8.x alike
/// (`scripts/test --libcurl both` runs it on both; issue 29).
///
/// Connections and TLS handshakes are counted as W4 of `scripts/bench` counts them: from nginx's
/// access log (see ``ConnectionLogServer``), for `fetch`, `bench` and `crawl`.
@Suite(.serialized)
struct LibcurlVersionTests {
    /// The libcurl version this process runs on, read from libcurl itself (`curl_version`).
    struct LibcurlVersion: Comparable, CustomStringConvertible {
        let major: Int
        let minor: Int
        let patch: Int

        /// Parses the front of libcurl's version text, `libcurl/8.14.1 OpenSSL/3.0.19 …`.
        init?(versionText: String) {
            guard versionText.hasPrefix("libcurl/") else {
                return nil
            }
            let numbers = versionText.dropFirst("libcurl/".count).prefix { $0 != " " }
                .split(separator: ".").map { Int($0.prefix { $0.isNumber }) }
            guard numbers.count >= 2, let major = numbers[0], let minor = numbers[1] else {
                return nil
            }
            (self.major, self.minor, self.patch) = (major, minor, numbers.count > 2 ? numbers[2] ?? 0 : 0)
        }

        init(_ major: Int, _ minor: Int, _ patch: Int) {
            (self.major, self.minor, self.patch) = (major, minor, patch)
        }

        static func < (a: Self, b: Self) -> Bool {
            (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
        }

        var description: String { "\(self.major).\(self.minor).\(self.patch)" }

        static var loaded: LibcurlVersion? { LibcurlVersion(versionText: BatchFetch.libcurlVersion) }
    }

    /// How a run talks to the server, with the flags that ask for it.
    enum Transport: String, CaseIterable, CustomTestStringConvertible {
        case http1TLS = "HTTP/1.1 over TLS"
        case http2TLS = "HTTP/2 over TLS"
        case h2c = "h2c (HTTP/2 with prior knowledge, cleartext)"

        var testDescription: String { self.rawValue }

        func flags(_ server: ConnectionLogServer) -> [String] {
            switch self {
            case .http1TLS: ["--ca-cert", server.certificates.caFile]
            case .http2TLS: ["--http2", "--ca-cert", server.certificates.caFile]
            case .h2c: ["--http2-prior-knowledge"]
            }
        }

        func origin(_ server: ConnectionLogServer) -> String {
            self == .h2c ? "http://127.0.0.1:\(server.cleartextH2)" : "https://127.0.0.1:\(server.tls)"
        }

        /// As nginx's `$server_protocol` writes it.
        var logProtocol: String { self == .http1TLS ? "HTTP/1.1" : "HTTP/2.0" }
    }

    /// The commands whose connections are counted.
    enum Workload: String, CaseIterable, CustomTestStringConvertible {
        case fetch, bench, crawl

        var testDescription: String { "batchfetch \(self.rawValue)" }
    }

    /// The cap every run is given (`-c`): below the requests of each run, so that staying under
    /// it means connections were reused.
    static let cap = 8
    /// Requests of each `fetch` and `bench` run; a `crawl --details` of the replica's scale-1
    /// catalogue makes several hundred.
    static let requests = 200

    /// Starts the replica and nginx in front of it (with `drink.json` as a static file), runs `body`.
    private func withServer(_ body: (ConnectionLogServer, borrowing ScratchDirectory) throws -> Void) async throws {
        guard let tools = TLSServer.tools() else {
            Issue.record("nginx or openssl is not installed: scripts/setup --build-tests installs them")
            return
        }
        try await ReplicaServer.withServer { replica in
            let directory = try ScratchDirectory("bf-libcurl")
            let root = directory.path("www")
            try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
            try Data(#"{"drinks":[{"idDrink":"11007","strDrink":"Margarita"}]}"#.utf8)
                .write(to: URL(fileURLWithPath: "\(root)/drink.json"))
            let server = try ConnectionLogServer(
                nginx: tools.nginx, openssl: tools.openssl, directory: directory.url.path, root: root,
                upstreamPort: replica.port)
            defer { server.stop() }
            try body(server, directory)
        }
    }

    /// Runs `workload` over `transport` with the cap, checks that it succeeded, and returns what
    /// nginx saw of it, with the number of requests the command itself reported.
    private func run(
        _ workload: Workload, over transport: Transport, _ server: ConnectionLogServer,
        _ directory: borrowing ScratchDirectory
    ) throws -> (tally: ConnectionLogServer.Tally, reported: Int, stderr: String) {
        let origin = transport.origin(server)
        let common = transport.flags(server) + ["-c", String(Self.cap), "--retries", "0"]
        let before = server.accessLog().count
        let reported: Int
        let output: Executable.Output
        switch workload {
        case .fetch:
            let urls = (0..<Self.requests).map { "\(origin)/drink.json?i=\($0)" }
            let stats = directory.path("fetch-stats.json")
            output = try Executable.batchfetch().run(
                ["fetch", "--body", "none", "--stats", stats] + common + urls, deadline: 120)
            #expect(output.status == 0, "\(output.stderr)")
            let records = try output.records()
            #expect(records.count == Self.requests && records.allSatisfy { $0["status"] as? Int == 200 })
            reported = try Self.json(stats)["requests"] as? Int ?? -1
        case .bench:
            output = try Executable.batchfetch().run(
                ["bench", "-n", String(Self.requests), "--json"] + common + ["\(origin)/drink.json"], deadline: 120)
            #expect(output.status == 0, "\(output.stderr)")
            let report = try #require(try output.records().first)
            #expect(report["ok"] as? Int == Self.requests, "\(report)")
            reported = report["ok"] as? Int ?? -1
        case .crawl:
            let stats = directory.path("crawl-stats.json")
            output = try Executable.batchfetch().run(
                ["crawl", "--base-url", "\(origin)/api/json/v1/1/", "--details", "-q", "--stats", stats] + common,
                deadline: 180)
            #expect(output.status == 0, "\(output.stderr)")
            let summary = try #require(try Self.json(stats)["summary"] as? [String: Any])
            reported = summary["requests"] as? Int ?? -1
            #expect(reported > 100, "the crawl made \(reported) requests")
        }
        let tally = ConnectionLogServer.tally(server.accessLog().dropFirst(before))
        #expect(tally.requests == reported, "nginx served every request the command reports: \(tally)")
        #expect(tally.protocols == [transport.logProtocol], "\(tally.protocols)")
        #expect(tally.statuses == [200], "\(tally.statuses)")
        return (tally, reported, output.stderr)
    }

    private static func json(_ path: String) throws -> [String: Any] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
    }

    /// The file a process mapped for `libcurl.so.*`, resolved through symbolic links.
    private static func libcurlFile(inMaps maps: String) -> String? {
        for line in maps.split(separator: "\n") {
            guard let slash = line.firstIndex(of: "/") else {
                continue
            }
            let path = String(line[slash...])
            if (path as NSString).lastPathComponent.hasPrefix("libcurl.so") {
                return URL(fileURLWithPath: path).resolvingSymlinksInPath().path
            }
        }
        return nil
    }

    /// `scripts/test` names the version it means each run to load (BATCHFETCH_EXPECT_LIBCURL:
    /// the system's, or the backports build it unpacked and put on LD_LIBRARY_PATH). The test
    /// process must run on it, and the `batchfetch` command, which the other tests run, must
    /// resolve the same file in the same environment and say so in `--version`.
    @Test func theLibcurlInUseIsTheOneTheRunAskedForInTheTestsAndInTheCommand() throws {
        let version = try #require(LibcurlVersion.loaded, "libcurl's version text: \(BatchFetch.libcurlVersion)")
        if let expected = ProcessInfo.processInfo.environment["BATCHFETCH_EXPECT_LIBCURL"], !expected.isEmpty {
            #expect(
                BatchFetch.libcurlVersion.hasPrefix("libcurl/\(expected) "),
                "expected libcurl \(expected), loaded \(BatchFetch.libcurlVersion)")
        }
        // Read to the end: /proc files report a size of 0, which String(contentsOfFile:) trusts.
        let procMaps = try #require(FileHandle(forReadingAtPath: "/proc/self/maps"))
        let maps = String(decoding: procMaps.readDataToEndOfFile(), as: UTF8.self)
        try procMaps.close()
        let mine = try #require(Self.libcurlFile(inMaps: maps), "libcurl is not mapped into the test process")

        // ldd asks the dynamic loader, with this environment (LD_LIBRARY_PATH included), which
        // file batchfetch's libcurl.so.4 would be.
        let ldd = Process()
        ldd.executableURL = URL(fileURLWithPath: "/usr/bin/ldd")
        ldd.arguments = [try Executable.batchfetch().url.path]
        let pipe = Pipe()
        ldd.standardOutput = pipe
        ldd.standardError = FileHandle.nullDevice
        try ldd.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        ldd.waitUntilExit()
        let line = try #require(
            text.split(separator: "\n").first { $0.contains("libcurl.so") }, "ldd batchfetch: \(text)")
        let path = try #require(line.split(separator: " ").first { $0.hasPrefix("/") }, "\(line)")
        let commands = URL(fileURLWithPath: String(path)).resolvingSymlinksInPath().path
        #expect(commands == mine, "batchfetch loads \(commands), the tests \(mine) (libcurl \(version))")

        // And what the running command says of itself: `--version` reads curl_version_info.
        let report = try Executable.batchfetch().run(["--version"], deadline: 30)
        #expect(report.status == 0, "\(report.stderr)")
        let loaded = BatchFetch.libcurlVersion.dropFirst("libcurl/".count).prefix { $0 != " " }
        #expect(
            report.stdout.split(separator: "\n").contains { $0.hasPrefix("libcurl \(loaded) ") },
            "batchfetch --version: \(report.stdout)")
    }

    /// The switch that decides h2c connection reuse follows the version: libcurl 8.0.0 fixed
    /// reused h2c connections (curl issue 10634).
    @Test func h2cMultiplexingIsDecidedByTheLoadedVersion() throws {
        let version = try #require(LibcurlVersion.loaded)
        #expect(BatchFetch.multiplexesCleartextHTTP2 == (version >= LibcurlVersion(8, 0, 0)), "libcurl \(version)")
        #expect(LibcurlVersion(versionText: "libcurl/7.88.1 OpenSSL/3.0.19") == LibcurlVersion(7, 88, 1))
        #expect(LibcurlVersion(versionText: "libcurl/8.14.1-DEV") == LibcurlVersion(8, 14, 1))
        #expect(LibcurlVersion(versionText: "curl 8.0.0") == nil)
    }

    /// h2c: from 8.0 every stream of a run shares one connection; before, each request opens one
    /// of its own and closes it (never more than the cap at once), and the user is told why.
    /// Either way every request succeeds, and the records and counts are the same.
    @Test(arguments: Workload.allCases)
    func h2cIsMultiplexedFrom8AndOneConnectionPerRequestBefore(_ workload: Workload) async throws {
        let version = try #require(LibcurlVersion.loaded)
        try await self.withServer { server, directory in
            let run = try self.run(workload, over: .h2c, server, directory)
            if version >= LibcurlVersion(8, 0, 0) {
                #expect(run.tally.connections == 1, "libcurl \(version): \(run.tally)")
                #expect(!run.stderr.contains("breaks reused h2c"), "\(run.stderr)")
            } else {
                #expect(run.tally.connections == run.reported, "libcurl \(version): \(run.tally)")
                #expect(run.stderr.contains("breaks reused h2c connections"), "\(run.stderr)")
            }
        }
    }

    /// Over TLS, a run opens no more connections, and makes no more full handshakes, than the cap
    /// allows transfers in flight, on either version: connections are kept and reused, and the ones
    /// opened later resume a session. Over HTTP/2 one connection carries every stream.
    @Test(arguments: Workload.allCases, [Transport.http1TLS, .http2TLS])
    func tlsConnectionsAndFullHandshakesStayWithinTheCap(_ workload: Workload, _ transport: Transport) async throws {
        let version = try #require(LibcurlVersion.loaded)
        try await self.withServer { server, directory in
            let run = try self.run(workload, over: transport, server, directory)
            #expect(run.tally.connections >= 1 && run.tally.connections <= Self.cap, "libcurl \(version): \(run.tally)")
            #expect(
                run.tally.fullHandshakes >= 1 && run.tally.fullHandshakes <= run.tally.connections,
                "libcurl \(version): \(run.tally)")
            if transport == .http2TLS {
                #expect(run.tally.connections == 1, "libcurl \(version): \(run.tally)")
            }
        }
    }
}
