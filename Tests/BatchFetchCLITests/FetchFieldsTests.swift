import Foundation
import TestSupport
import Testing

/// `fetch --fields`: the response facts a record ends with when asked for, one test per field,
/// and records that stay as they were when not.
@Suite(.serialized)
struct FetchFieldsTests {
    /// Every field `all` adds, in record order.
    static let keys = ["headers", "redirects", "final_url", "timings", "remote", "tls", "attempt_log"]

    /// Runs `batchfetch fetch -q`; its output and its records by index.
    private func fetch(_ arguments: [String]) async throws -> (Executable.Output, [Int: [String: Any]]) {
        let output = try await CacheCommandTests.batchfetch(["fetch", "-q"] + arguments)
        #expect(output.signal == nil && !output.hung, "\(output.summary)")
        var records: [Int: [String: Any]] = [:]
        for line in output.stdout.split(separator: "\n") {
            let record = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            records[try #require(record["index"] as? Int)] = record
        }
        return (output, records)
    }

    private static func escaped(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }

    @Test func recordsWithoutFieldsAreAsBeforeAndFieldsComeLastInOneOrder() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/ok"
            let (plain, _) = try await self.fetch([url])
            let line = plain.stdout.trimmingCharacters(in: .newlines)
            #expect(line.hasSuffix(#","error":null}"#), "\(line)")
            for key in Self.keys {
                #expect(!line.contains("\"\(key)\":"), "\(key) in a record without --fields")
            }
            // Asked in another order, written in the one order, after everything else.
            let (all, records) = try await self.fetch([
                "--fields", "attempts,tls,remote,timings,redirects,headers", url,
            ])
            let record = try #require(records[0])
            #expect(Set(record.keys).isSuperset(of: Self.keys))
            let text = all.stdout
            let positions = try Self.keys.map { key in
                try #require(text.range(of: ",\"\(key)\":")?.lowerBound, "\(key)")
            }
            #expect(positions == positions.sorted())
            #expect(text.contains(#""error":null,"headers":{"#))
            // The fields before them are those of the plain record.
            let prefix = { (line: String) in line.replacing(/"(time|total)_ms":[0-9.]+/, with: "") }
            #expect(prefix(String(text.prefix { $0 != "\n" })).hasPrefix(String(prefix(line).dropLast())))
        }
    }

    @Test func headersHoldEveryFieldOfTheFinalResponseLowerCasedAndTheirBytesMadeSafe() async throws {
        let scratch = try ScratchDirectory("bf-fields-headers")
        var response = Array("HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nSet-Cookie: a=1\r\nX-Name: caf".utf8)
        response += [0xE9] + Array("\r\nset-cookie: b=2\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi".utf8)
        try await RawRequestRecorder.with(response: response) { recorder in
            let file = scratch.path("records.ndjson")
            _ = try await self.fetch(["--fields", "headers", "-o", file, "\(recorder.baseURL)/raw"])
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            // The Latin-1 byte is not copied into the record: it stays UTF-8.
            let text = try #require(String(validating: bytes, as: UTF8.self))
            let record = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
            let headers = try #require(record["headers"] as? [String: [String]])
            #expect(
                headers == [
                    "content-type": ["text/plain"], "set-cookie": ["a=1", "b=2"], "x-name": ["caf\u{FFFD}"],
                    "content-length": ["2"], "connection": ["close"],
                ])
            #expect(text.contains(#""headers":{"content-type":["text/plain"],"set-cookie":["a=1","b=2"],"x-name""#))
        }
        try await TestHTTPServer.with { server in
            // After a redirect, the final response's fields only; a record with no response has null.
            let url = "\(server.baseURL)/redirect?to=/ok"
            let (_, records) = try await self.fetch(["--follow", "--fields", "headers", url, "file:///x"])
            let headers = try #require(records[0]?["headers"] as? [String: [String]])
            #expect(headers["content-type"] == ["application/json"] && headers["location"] == nil)
            #expect(records[1]?["headers"] is NSNull)
        }
    }

    @Test func redirectsListEachHopWithItsStatusAndTheFinalURLWithCredentialsRedacted() async throws {
        try await TestHTTPServer.with { server in
            // Relative Locations, so that the credentials are in the authority alone, which records redact.
            let base = "http://user:secret@127.0.0.1:\(server.port)"
            let middle = "/redirect?to=" + Self.escaped("/ok?last=1")
            let first = base + "/redirect?to=" + Self.escaped(middle)
            let (output, records) = try await self.fetch(["--follow", "--fields", "redirects", first])
            #expect(!output.stdout.contains("secret"), "\(output.stdout)")
            let record = try #require(records[0])
            let hops = try #require(record["redirects"] as? [[String: Any]])
            #expect(hops.map { $0["status"] as? Int } == [302, 302])
            let redacted = "http://user:***@127.0.0.1:\(server.port)"
            #expect(hops.map { $0["url"] as? String } == [redacted + first.dropFirst(base.count), redacted + middle])
            #expect(record["final_url"] as? String == redacted + "/ok?last=1")
            #expect(record["status"] as? Int == 200)

            // Not followed: the 302 is the response, no hop, and the final URL is the request's.
            let plain = "\(server.baseURL)/redirect?to=/ok"
            let (_, unfollowed) = try await self.fetch(["--fields", "redirects", plain])
            #expect(unfollowed[0]?["status"] as? Int == 302)
            #expect((unfollowed[0]?["redirects"] as? [Any])?.isEmpty == true)
            #expect(unfollowed[0]?["final_url"] as? String == plain)

            // Refused (a file: Location), by libcurl for a GET and by batchfetch for a PUT: the
            // refused redirect is the last hop and final_url the URL it named, as after any hop.
            let refused = "\(server.baseURL)/redirect?to=" + Self.escaped("file:///etc/passwd")
            let put = #"{"url":"\#(refused)","method":"PUT","body_text":"x"}"#
            let (_, stopped) = try await self.fetch(["--follow", "--fields", "redirects", refused, put])
            #expect(stopped.count == 2)
            for record in stopped.values {
                #expect((record["error"] as? [String: Any])?["kind"] as? String == "unsupportedScheme")
                #expect(record["status"] as? Int == 302)
                let hops = record["redirects"] as? [[String: Any]] ?? []
                #expect(hops.map { $0["url"] as? String } == [refused] && hops.map { $0["status"] as? Int } == [302])
                #expect(record["final_url"] as? String == "file:///etc/passwd")
            }
        }
    }

    @Test func timingsArePhasesThatAddUpToTheAttemptAndTheRequestTimeCoversRetries() async throws {
        try await TestHTTPServer.with { server in
            let retried = "\(server.baseURL)/flaky?key=timings&fail=1&status=503&retryAfter=1"
            let (_, records) = try await self.fetch(["--fields", "timings", retried, retried, "file:///x"])
            let record = try #require(records[0])
            let timings = try #require(record["timings"] as? [String: Double])
            let phases = ["dns_ms", "connect_ms", "tls_ms", "first_byte_ms", "download_ms"]
            let total = try #require(timings["total_ms"])
            let sum = phases.compactMap { timings[$0] }.reduce(0, +)
            #expect(phases.allSatisfy { (timings[$0] ?? -1) >= 0 }, "\(timings)")
            #expect(abs(sum - total) < 0.01, "phases \(sum) ms, total \(total) ms")
            #expect(total == record["time_ms"] as? Double && timings["tls_ms"] == 0)
            #expect(timings["first_byte_ms"] ?? 0 > 0 && timings["queue_ms"] ?? -1 >= 0)
            // The request's time holds the one-second Retry-After; the final attempt's does not.
            #expect(timings["request_ms"] ?? 0 >= 1000 && total < 1000)
            #expect(timings["request_ms"] == record["total_ms"] as? Double)
            #expect(records[1]?["shared_with"] as? Int == 0 && records[1]?["timings"] is NSNull)
            #expect(records[2]?["timings"] is NSNull, "nothing was sent")
        }
    }

    @Test func remoteNamesTheServersAddressAndWhetherTheConnectionWasReused() async throws {
        try await TestHTTPServer.with { server in
            let urls = ["\(server.baseURL)/ok?i=0", "\(server.baseURL)/ok?i=1"]
            let (_, records) = try await self.fetch(
                ["-c", "1", "--order", "completion", "--fields", "remote,tls"] + urls)
            let remotes = try (0..<2).map { try #require(records[$0]?["remote"] as? [String: Any]) }
            for remote in remotes {
                #expect(remote["ip"] as? String == "127.0.0.1" && remote["port"] as? Int == server.port)
                #expect(remote["http_version"] as? String == "HTTP/1.1")
            }
            // One connection: the first request opened it, the second reused it.
            #expect(remotes.compactMap { $0["reused"] as? Bool }.sorted { !$0 && $1 } == [false, true])
            #expect(records.values.allSatisfy { $0["tls"] is NSNull }, "plain HTTP has no TLS")
            #expect(server.snapshot.connectionsAccepted == 1)
        }
    }

    @Test func theAttemptLogHasEachAttemptsStatusOrErrorAndItsRetryAfter() async throws {
        try await TestHTTPServer.with { server in
            let retried = "\(server.baseURL)/flaky?key=log&fail=1&status=503&retryAfter=1"
            let refused = "http://127.0.0.1:1/x"
            let (_, records) = try await self.fetch(
                ["--retries", "1", "--fields", "attempts", retried, refused, retried])
            let log = try #require(records[0]?["attempt_log"] as? [[String: Any]])
            #expect(log.map { $0["status"] as? Int } == [503, 200])
            #expect(log.map { $0["retry_after_ms"] as? Double } == [1000, nil])
            #expect(log.allSatisfy { $0["error"] is NSNull && ($0["time_ms"] as? Double ?? 0) > 0 })
            #expect(log.count == records[0]?["attempts"] as? Int)

            let failures = try #require(records[1]?["attempt_log"] as? [[String: Any]])
            #expect(failures.count == 2 && failures.count == records[1]?["attempts"] as? Int)
            #expect(failures.allSatisfy { $0["status"] is NSNull })
            #expect(
                failures.map { ($0["error"] as? [String: Any])?["kind"] as? String } == [
                    "connectFailed", "connectFailed",
                ])
            // The copy made no attempt of its own.
            #expect(records[2]?["shared_with"] as? Int == 0 && (records[2]?["attempt_log"] as? [Any])?.isEmpty == true)
        }
    }

    @Test func includeIsAnAliasAllAsksForEveryFieldAndAnUnknownNameIsAUsageError() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/ok"
            let (_, included) = try await self.fetch(["--include", "headers", "--include", "remote", url])
            #expect(included[0]?["headers"] is [String: Any] && included[0]?["remote"] is [String: Any])
            #expect(included[0]?["timings"] == nil && included[0]?["attempt_log"] == nil)
            let (_, all) = try await self.fetch(["--fields", "all", url])
            #expect(Set(try #require(all[0]).keys).isSuperset(of: Self.keys))
            let wrong = try await CacheCommandTests.batchfetch(["fetch", "--fields", "headers,cookies", url])
            #expect(wrong.status == 2 && wrong.stdout.isEmpty)
            #expect(wrong.stderr.contains("unknown field 'cookies'") && wrong.stderr.contains("attempts"))
        }
    }

    @Test func headSendsHEADAndRecordsTheHeadersAsCurlIShowsThem() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/ok"
            let (output, records) = try await self.fetch(["-I", url])
            #expect(output.status == 0, "\(output.summary)")
            let record = try #require(records[0])
            #expect(record["status"] as? Int == 200 && record["bytes"] as? Int == 0)
            let headers = try #require(record["headers"] as? [String: [String]], "\(record)")
            #expect(headers["content-length"] != nil)
            #expect(record["timings"] == nil, "-I adds the headers alone")
            #expect(server.arrivals.map { $0.head.prefix(5) } == ["HEAD "])
            for (conflict, message) in [(["-X", "POST"], "-X POST"), (["-d", "x"], "sends no body")] {
                let refused = try await CacheCommandTests.batchfetch(["fetch", "--head"] + conflict + [url])
                #expect(refused.status == 2 && refused.stderr.contains(message), "\(refused.summary)")
            }
            #expect(server.arrivals.count == 1)
        }
    }
}
