import CocktailReplica
import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The defaults a user gets without asking: TLS verified, credentials never printed.
@Suite(.serialized)
struct SecurityDefaultsTests {
    /// A self-signed certificate on loopback is refused unless `-k` is given. The server is
    /// `openssl s_server`, with a certificate made for this test.
    @Test func aSelfSignedServerIsRefusedUnlessInsecureIsAsked() throws {
        guard
            let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl"].first(where: {
                FileManager.default.isExecutableFile(atPath: $0)
            })
        else {
            Issue.record("openssl is not installed: the TLS verification test cannot run (apt-get install openssl)")
            return
        }
        let directory = try ScratchDirectory("bf-tls")
        let generate = Process()
        generate.executableURL = URL(fileURLWithPath: openssl)
        generate.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=127.0.0.1", "-addext",
            "subjectAltName=IP:127.0.0.1", "-days", "1", "-keyout", directory.path("key.pem"), "-out",
            directory.path("cert.pem"),
        ]
        generate.standardError = FileHandle.nullDevice
        try generate.run()
        generate.waitUntilExit()
        #expect(generate.terminationStatus == 0)

        // s_server buffers its "ACCEPT host:port" line when writing to a pipe, so the port is
        // chosen here (bound, read back, released) and the server is polled until it listens.
        let port = try #require(try LoopbackPorts.free(1).first)
        let server = Process()
        server.executableURL = URL(fileURLWithPath: openssl)
        server.arguments = [
            "s_server", "-www", "-accept", "127.0.0.1:\(port)", "-cert", directory.path("cert.pem"), "-key",
            directory.path("key.pem"),
        ]
        server.standardOutput = FileHandle.nullDevice
        server.standardError = FileHandle.nullDevice
        try server.run()
        defer {
            // s_server ignores SIGTERM while it waits in accept.
            kill(server.processIdentifier, SIGKILL)
            server.waitUntilExit()
        }
        let deadline = Date().addingTimeInterval(10)
        while !LoopbackPorts.accepts(port), Date() < deadline {
            usleep(20_000)
        }
        #expect(LoopbackPorts.accepts(port), "openssl s_server did not listen on \(port)")
        let url = "https://127.0.0.1:\(port)/"

        let verified = try Executable.batchfetch().run(
            ["fetch", "--retries", "0", "--body", "none", url], deadline: 30)
        #expect(verified.status == 1)
        let refused = try #require(try verified.records().first)
        #expect((refused["error"] as? [String: Any])?["kind"] as? String == "tlsFailure")
        #expect(((refused["error"] as? [String: Any])?["message"] as? String)?.contains("certificate") == true)

        let insecure = try Executable.batchfetch().run(
            ["fetch", "-k", "--retries", "0", "--body", "none", url], deadline: 30)
        #expect(insecure.status == 0, "\(insecure.stderr)")
        #expect(try insecure.records().first?["status"] as? Int == 200)
        #expect(insecure.stderr.contains("not verified"), "-k warns")
    }

    /// Secrets in headers, query strings and user-info reach the server but never stdout, stderr,
    /// progress or the stats file, whatever happens to the request.
    @Test func credentialsNeverAppearInRecordsLogsOrErrors() async throws {
        try await TestHTTPServer.with { server in
            let base = server.baseURL
            let directory = try ScratchDirectory("bf-secrets")
            let urls = [
                "\(base)/ok?api_key=s3cret-query-1", "\(base)/nothere?token=s3cret-query-2&x=1",
                "http://user:s3cret-userinfo@127.0.0.1:\(server.port)/ok", "\(base)/hang?access_token=s3cret-query-3",
                "http://127.0.0.1:1/?key=s3cret-query-4", "\(base)/loop?apikey=s3cret-query-5",
                "htp:/broken?password=s3cret-query-6", "\(base)/redirect?to=file:///x&secret=s3cret-query-7",
                "\(base)/status/500?client_secret=s3cret-query-8", "\(base)/nothere?X-Amz-Signature=s3cret-query-9",
            ]
            let output = try Executable.batchfetch().run(
                [
                    "fetch", "-H", "Authorization: Bearer s3cret-bearer", "-H", "X-Api-Key: s3cret-header",
                    "-H", "Cookie: session=s3cret-cookie", "--timeout", "1", "--retries", "0", "--follow=2",
                    "--progress", "always", "--stats", directory.path("stats.json"), "--body", "none",
                    "--fields", "redirects,attempts",
                ] + urls, deadline: 30)
            #expect(!output.hung)
            #expect(output.status == 1)
            #expect(try output.records().count == urls.count)
            let stats = try String(contentsOfFile: directory.path("stats.json"), encoding: .utf8)
            for printed in [output.stdout, output.stderr, stats] {
                #expect(!printed.contains("s3cret"), "\(printed.prefix(2000))")
            }
            let heads = server.arrivals.map(\.head).joined(separator: "\n")
            #expect(heads.contains("Authorization: Bearer s3cret-bearer"), "the secrets were in use")
            #expect(heads.contains("api_key=s3cret-query-1"))
        }
    }

    /// A private API key is part of every URL of a crawl; failed facets' error records, the sweep
    /// failures and the summary show `***` in its place.
    @Test func aPrivateAPIKeyIsRedactedFromCrawlErrorRecords() async throws {
        var configuration = ReplicaConfiguration()
        configuration.faults.failFirst = 1
        configuration.faults.failFirstStatus = 500
        try await ReplicaServer.withServer(configuration) { replica in
            let directory = try ScratchDirectory("bf-apikey")
            let root = String(replica.baseURL.dropLast("1/".count))
            let output = try Executable.batchfetch().run(
                [
                    "crawl", "--base-url", root, "--api-key", "s3cretkey42", "--details", "--complete", "--retries",
                    "0",
                    "--progress", "always", "--stats", directory.path("stats.json"), "-o", directory.path("out.ndjson"),
                ], deadline: 60)
            #expect(!output.hung)
            let written = try String(contentsOfFile: directory.path("out.ndjson"), encoding: .utf8)
            // The list itself fails on its first attempt with no retries: a crawl error, no records.
            #expect(output.status == 1, "\(output.stderr)")
            for printed in [
                written, output.stderr,
                (try? String(contentsOfFile: directory.path("stats.json"), encoding: .utf8)) ?? "",
            ] {
                #expect(!printed.contains("s3cretkey42"))
            }
            let retried = try Executable.batchfetch().run(
                [
                    "crawl", "--base-url", root, "--api-key", "s3cretkey42", "--details", "--complete", "--retries",
                    "0",
                    "-o", directory.path("second.ndjson"),
                ], deadline: 60)
            // The list was tried once already, so now it succeeds; every facet and lookup fails once.
            let second = try String(contentsOfFile: directory.path("second.ndjson"), encoding: .utf8)
            #expect(retried.status == 1)
            #expect(second.contains("/api/json/v1/***/"), "failed facets carry their redacted URL")
            #expect(!second.contains("s3cretkey42") && !retried.stderr.contains("s3cretkey42"))
            #expect(replica.stats().requestsByURL.keys.contains { $0.contains("/s3cretkey42/") }, "the key was used")
        }
    }
}
