import Foundation
import TestSupport
import Testing

/// `fetch`'s request flags end to end, as curl spells them: what the server receives for `-X`,
/// `-d`, `--data-binary`, `--json`, `-u`, `-b`, `--cookie-jar` and `--proxy`, and where
/// credentials never appear.
@Suite(.serialized)
struct FetchRequestTests {
    /// Runs `batchfetch fetch -q --retries 0 ARGS`: its status, its records and its whole output.
    func run(
        _ arguments: [String], stdin: String? = nil
    ) async throws -> (status: Int32, records: [[String: Any]], output: Executable.Output) {
        let output = try await Executable.batchfetch().runOffPool(
            ["fetch", "-q", "--retries", "0"] + arguments, stdin: stdin)
        if output.signal != nil || output.hung {
            Issue.record("batchfetch fetch \(arguments.joined(separator: " ")): \(output.summary)")
        }
        return (output.status, try output.records(), output)
    }

    /// What the server's `/request` route saw, from a record's embedded body.
    struct Seen {
        let method: String
        let target: String
        let headers: [(String, String)]
        let body: String

        init(_ record: [String: Any]?) throws {
            let body = try #require(record?["body"] as? [String: Any], "\(String(describing: record))")
            self.method = body["method"] as? String ?? ""
            self.target = body["target"] as? String ?? ""
            self.headers = (body["headers"] as? [[String]] ?? []).map { ($0[0], $0[1]) }
            self.body = body["body"] as? String ?? ""
        }

        func header(_ name: String) -> [String] {
            self.headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }
    }

    @Test func methodAndBodyFlagsSendWhatCurlSends() async throws {
        let directory = try ScratchDirectory("fetch-requests")
        let form = directory.path("form.txt")
        try "a=1\r\nb=2\n".write(toFile: form, atomically: true, encoding: .utf8)
        let binary = directory.path("body.bin")
        try Data("line 1\nline 2\n".utf8).write(to: URL(fileURLWithPath: binary))
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let cases: [(arguments: [String], method: String, body: String, type: [String])] = [
                ([], "GET", "", []),
                (["-X", "DELETE"], "DELETE", "", []),
                (["-d", "a=1", "-d", "b=2"], "POST", "a=1&b=2", ["application/x-www-form-urlencoded"]),
                (["-X", "PUT", "--data", "x"], "PUT", "x", ["application/x-www-form-urlencoded"]),
                (["-d", "@\(form)"], "POST", "a=1b=2", ["application/x-www-form-urlencoded"]),
                (["--data-binary", "@\(binary)"], "POST", "line 1\nline 2\n", ["application/x-www-form-urlencoded"]),
                (["-H", "Content-Type: text/plain", "-d", "hi"], "POST", "hi", ["text/plain"]),
                (["--json", #"{"q": 1}"#], "POST", #"{"q": 1}"#, ["application/json"]),
                (["-X", "PATCH", "--json", "@\(binary)"], "PATCH", "line 1\nline 2\n", ["application/json"]),
            ]
            for (arguments, method, body, type) in cases {
                let (status, records, output) = try await self.run(arguments + [url])
                #expect(status == 0, "\(arguments): \(output)")
                let seen = try Seen(records.first)
                #expect(seen.method == method, "\(arguments)")
                #expect(seen.body == body, "\(arguments)")
                #expect(seen.header("Content-Type") == type, "\(arguments)")
            }
            let (_, json, _) = try await self.run(["--json", "{}", "-H", "Accept: text/csv", url])
            #expect(try Seen(json.first).header("Accept") == ["text/csv"], "-H wins over --json's Accept")
        }
    }

    /// `-L` as curl's `--follow`: a 303 makes a GET without the body or its `Content-Type`; a
    /// 302 or 307 repeats a PUT or DELETE whole.
    @Test func followedRedirectsChangeTheMethodOnlyWhereRFC9110Says() async throws {
        try await TestHTTPServer.with { server in
            let url = { (status: Int) in "\(server.baseURL)/redirect?status=\(status)&to=%2Frequest" }
            let cases: [(arguments: [String], method: String, body: String, type: [String])] = [
                (["-X", "PUT", "--json", #"{"a":1}"#, url(303)], "GET", "", []),
                (["-X", "PUT", "--json", #"{"a":1}"#, url(302)], "PUT", #"{"a":1}"#, ["application/json"]),
                (["-X", "DELETE", url(303)], "GET", "", []),
                (["-X", "DELETE", url(307)], "DELETE", "", []),
                (["-d", "x=1", url(301)], "GET", "", []),
                (["-d", "x=1", url(308)], "POST", "x=1", ["application/x-www-form-urlencoded"]),
            ]
            for (arguments, method, body, type) in cases {
                let (status, records, output) = try await self.run(["-L"] + arguments)
                #expect(status == 0, "\(arguments): \(output)")
                let seen = try Seen(records.first)
                #expect(seen.method == method, "\(arguments)")
                #expect(seen.body == body, "\(arguments)")
                #expect(seen.header("Content-Type") == type, "\(arguments)")
            }
        }
    }

    @Test func badRequestFlagsAreUsageErrorsBeforeAnyRequest() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let cases: [(arguments: [String], says: String)] = [
                (["-X", "GET /x"], "-X/--method: 'GET /x' is not a method (a method is one token"),
                (["-X", "PUT\r\nX-Injected: 1"], #"'PUT\r\nX-Injected: 1' is not a method"#),
                (["-X", ""], "'' is not a method"),
                (["-d", "a", "--json", "{}"], "give the body with one of"),
                (["-d", "@/no/such/file"], "cannot read /no/such/file"),
                (["--data-binary", "@-"], "standard input carries the requests"),
                (["-u", "no-colon-secret"], "-u/--user takes USER:PASSWORD"),
                (["--input-format", "xml"], "input-format"),
                (["--proxy", "http://p\r\n:1"], "--proxy must not contain control characters"),
                (["--proxy", "ftp://127.0.0.1:21"], "--proxy: the proxy's scheme 'ftp' is not one libcurl speaks"),
                (["--proxy", "gopher://p:70"], "scheme 'gopher'"),
            ]
            for (arguments, says) in cases {
                let output = try await Executable.batchfetch().runOffPool(["fetch", "-q"] + arguments + [url])
                #expect(output.status == 2, "\(arguments): \(output)")
                #expect(output.stderr.contains(says), "\(arguments): \(output)")
                #expect(!output.stderr.contains("no-colon-secret"), "the -u value is never echoed")
            }
            #expect(server.snapshot.requests == 0)
        }
    }

    /// `-u` becomes `Authorization: Basic`, which no record, message, stats file or shard manifest
    /// shows.
    @Test func userCredentialsAreSentButNeverWritten() async throws {
        let directory = try ScratchDirectory("fetch-requests")
        let stats = directory.path("stats.json")
        try await TestHTTPServer.with { server in
            let (status, records, output) = try await self.run([
                "-u", "ann:s3cret", "--shard", "0/1", "--stats", stats, "\(server.baseURL)/request",
                "http://127.0.0.1:1/refused",
            ])
            #expect(status == 1, "\(output)")
            let basic = "Basic " + Data("ann:s3cret".utf8).base64EncodedString()
            #expect(try Seen(records.first).header("Authorization") == [basic])
            // The echoed request is the server's doing; batchfetch's own output never names it.
            let ours = output.stdout.replacingOccurrences(of: basic, with: "") + output.stderr
            #expect(!ours.contains("s3cret") && !ours.contains(Data("ann:s3cret".utf8).base64EncodedString()))
            let written = try String(contentsOfFile: stats, encoding: .utf8)
            #expect(!written.contains("s3cret"))
            let object = try JSONSerialization.jsonObject(with: Data(written.utf8)) as? [String: Any]
            let command = (object?["shard"] as? [String: Any])?["command"] as? [String] ?? []
            #expect(command.dropFirst().prefix(3) == ["fetch", "-q", "--retries"], "\(written)")
            #expect(command.contains("-u") && command[(command.firstIndex(of: "-u") ?? 0) + 1] == "***")
        }
    }

    @Test func cookiesAreSentAndTheBatchsJarIsSaved() async throws {
        let directory = try ScratchDirectory("fetch-cookies")
        let jar = directory.path("jar.txt")
        try await TestHTTPServer.with { server in
            let set = "\(server.baseURL)/set-cookie?cookie=sid%3D42%3B%20Path%3D%2F"
            // One in flight: the second request leaves after the first response set the cookie.
            let (status, records, output) = try await self.run([
                "-c", "1", "-b", "given=1", "--cookie-jar", jar, set, "\(server.baseURL)/request",
            ])
            #expect(status == 0, "\(output)")
            #expect(try Seen(records[0]).header("Cookie") == ["given=1"])
            let second = try Seen(records[1]).header("Cookie").first ?? ""
            #expect(
                Set(second.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }) == [
                    "given=1", "sid=42",
                ])
            #expect(try String(contentsOfFile: jar, encoding: .utf8).contains("\tsid\t42"))
            // The jar starts the next run; a missing file is an empty jar, as in curl.
            let (_, again, _) = try await self.run([
                "-b", jar, "-b", directory.path("none.txt"), "\(server.baseURL)/request",
            ])
            #expect(try Seen(again.first).header("Cookie") == ["sid=42"])
        }
    }

    /// With a jar, a request's answer depends on what earlier answers set: identical requests
    /// are each sent, not joined (issue 51). The third sees the cookie the second set.
    @Test func withACookieJarIdenticalRequestsAreEachSent() async throws {
        let directory = try ScratchDirectory("fetch-cookie-dedup")
        try await TestHTTPServer.with { server in
            let request = "\(server.baseURL)/request"
            let set = "\(server.baseURL)/set-cookie?cookie=a%3D1%3B%20Path%3D%2F"
            let (status, records, output) = try await self.run([
                "-c", "1", "--cookie-jar", directory.path("jar.txt"), request, set, request,
            ])
            #expect(status == 0, "\(output)")
            #expect(records.count == 3 && records[2]["shared_with"] == nil, "\(records)")
            #expect(try Seen(records[0]).header("Cookie").isEmpty)
            #expect(try Seen(records[2]).header("Cookie") == ["a=1"])
            #expect(server.arrivals.count == 3)
            // Without a jar the third is the first's, as before.
            let (_, plain, _) = try await self.run(["-c", "1", request, set, request])
            #expect(plain[2]["shared_with"] as? Int == 0)
        }
    }

    @Test func aProxyFromTheFlagCarriesTheRequestsAndNoproxyBypassesIt() async throws {
        try await TestHTTPServer.with { server in
            let (status, records, output) = try await self.run([
                "--proxy", server.baseURL, "http://proxied.invalid/request",
            ])
            #expect(status == 0, "\(output)")
            #expect(try Seen(records.first).target == "http://proxied.invalid/request")
            let dead = ["--proxy", "http://127.0.0.1:1", "\(server.baseURL)/request"]
            let (refused, _, _) = try await self.run(dead)
            #expect(refused == 1)
            let (bypassed, _, bypassOutput) = try await self.run(["--noproxy", "127.0.0.1"] + dead)
            #expect(bypassed == 0, "\(bypassOutput)")
            // The environment's proxy works as before, and --noproxy applies to it too.
            let environment = ["http_proxy": "http://127.0.0.1:1"]
            let fromEnvironment = try await Executable.batchfetch().runOffPool(
                ["fetch", "-q", "--retries", "0", "\(server.baseURL)/request"], environment: environment)
            #expect(fromEnvironment.status == 1, "\(fromEnvironment)")
            let excepted = try await Executable.batchfetch().runOffPool(
                ["fetch", "-q", "--retries", "0", "--noproxy", "127.0.0.1", "\(server.baseURL)/request"],
                environment: environment)
            #expect(excepted.status == 0, "\(excepted)")
        }
    }
}

extension FetchRequestTests {
    /// --retry-all-methods reaches the engine: a POST answered 500 is sent again only with it.
    @Test func retryAllMethodsResendsAPostAfterA500() async throws {
        try await TestHTTPServer.with { server in
            let post = ["-X", "POST", "--retries", "2", "--body", "none"]
            let (_, once, _) = try await self.run(post + ["\(server.baseURL)/flaky?key=plain&fail=1&status=500"])
            #expect(once.first?["attempts"] as? Int == 1 && once.first?["status"] as? Int == 500)
            let (status, again, output) = try await self.run(
                post + ["--retry-all-methods", "\(server.baseURL)/flaky?key=all&fail=1&status=500"])
            #expect(status == 0, "\(output)")
            #expect(again.first?["attempts"] as? Int == 2 && again.first?["status"] as? Int == 200)
        }
    }

    /// bench takes the request flags that fit beside its own (-X, -H, --data, --data-binary, -u)
    /// and JSON request lines.
    @Test func benchSendsTheRequestsTheFlagsAndLinesDescribe() async throws {
        let directory = try ScratchDirectory("bench-requests")
        let input = directory.path("requests.txt")
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            try "\(url)?a\n{\"url\":\"\(url)?b\",\"method\":\"PUT\",\"body_text\":\"line\"}\n"
                .write(toFile: input, atomically: true, encoding: .utf8)
            let output = try await Executable.batchfetch().runOffPool([
                "bench", "-q", "-n", "4", "-c", "1", "--retries", "0", "-X", "PATCH", "-H", "X-B: 1", "--data", "flag",
                "-u", "u:p", "-i", input,
            ])
            #expect(output.status == 0, "\(output)")
            let arrivals = server.arrivals
            #expect(arrivals.count == 4)
            let a = arrivals.filter { $0.target.hasSuffix("?a") }
            let b = arrivals.filter { $0.target.hasSuffix("?b") }
            #expect(a.count == 2 && a.allSatisfy { $0.head.hasPrefix("PATCH ") && $0.body == Array("flag".utf8) })
            #expect(b.count == 2 && b.allSatisfy { $0.head.hasPrefix("PUT ") && $0.body == Array("line".utf8) })
            #expect(arrivals.allSatisfy { $0.head.contains("X-B: 1") && $0.head.contains("Authorization: Basic ") })
            let bad = try await Executable.batchfetch().runOffPool(["bench", "-n", "1", "\(url)", "{\"url\":1}"])
            #expect(bad.status == 2 && bad.stderr.contains("field 'url' is not a string"), "\(bad)")
        }
    }
}
