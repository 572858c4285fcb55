import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `batchfetch fetch` options end to end, against the replica and the test server.
@Suite(.serialized)
struct FetchOptionsTests {
    private func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// Runs `batchfetch fetch -q` with `arguments`: its status, its records, and the whole output,
    /// whose ``Executable/Output/summary`` goes in status expectations' messages. A run that a
    /// signal killed or that hung is an issue of its own, recorded before its output is parsed:
    /// a crash is then reported as one, with its standard error, not as a wrong status or as
    /// records that do not parse.
    private func run(
        _ arguments: [String], stdin: String? = nil
    ) throws -> (Int32, [[String: Any]], Executable.Output) {
        let output = try Executable("batchfetch").run(["fetch", "-q"] + arguments, stdin: stdin)
        if output.signal != nil || output.hung {
            Issue.record("batchfetch fetch -q \(arguments.joined(separator: " ")): \(output.summary)")
        }
        return (output.status, try self.records(output.stdout), output)
    }

    @Test func bodiesAreEmbeddedAsJSONOrTextOrLeftOut() async throws {
        try await ReplicaServer.withServer { server in
            let id = try #require(server.catalogue.drinks.first?.id)
            let url = server.url("lookup.php?i=\(id)")
            let (_, auto, _) = try self.run([url])
            let body = try #require(auto.first?["body"] as? [String: Any])
            #expect((body["drinks"] as? [[String: Any]])?.first?["idDrink"] as? String == id)
            #expect(auto.first?["content_type"] as? String == "application/json")
            let (_, path, _) = try self.run(["--content-path", "drinks", url])
            #expect((path.first?["body"] as? [[String: Any]])?.count == 1)
            let (_, text, _) = try self.run(["--body", "text", url])
            #expect((text.first?["body"] as? String)?.hasPrefix("{\"drinks\":[{") == true)
            let (_, none, _) = try self.run(["--body", "none", url])
            #expect(none.first?["body"] is NSNull)
            // Without a body the engine only counts it: the size is still the body's.
            #expect(none.first?["bytes"] as? Int == auto.first?["bytes"] as? Int)
            #expect((none.first?["bytes"] as? Int ?? 0) > 0)
            let (status, missing, output) = try self.run(["--content-path", "ingredients", url])
            #expect(status == 1, "\(output)")
            #expect((missing.first?["error"] as? [String: Any])?["kind"] as? String == "missingKey")
        }
    }

    @Test func nonJSONBodiesAreStringsInAutoModeAndErrorsInJSONMode() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/headers"
            let (autoStatus, auto, autoOutput) = try self.run([url])
            #expect(autoStatus == 0, "\(autoOutput)")
            #expect((auto.first?["body"] as? String)?.contains("user-agent: batchfetch/") == true)
            let (jsonStatus, json, jsonOutput) = try self.run(["--body", "json", url])
            #expect(jsonStatus == 1, "\(jsonOutput)")
            #expect((json.first?["error"] as? [String: Any])?["kind"] as? String == "invalidJSON")
        }
    }

    /// `auto` embeds a body that is JSON and quotes any other text, whatever byte it starts with
    /// (a body whose first byte cannot start JSON skips the validator: same records).
    @Test func autoModeEmbedsJSONAndQuotesOtherText() async throws {
        try await TestHTTPServer.with { server in
            let bodies = [" \n<p>hi</p>", " 12 ", "nope", "[1,2]", "-x", "\"quoted\"", "{\"a\":"]
            let urls = bodies.map { body in
                "\(server.baseURL)/echo?text=\(body.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "")"
            }
            let (status, records, output) = try self.run(urls)
            #expect(status == 0, "\(output)")
            let found = records.map { $0["body"] }
            #expect(found.count == bodies.count)
            #expect(found[0] as? String == " \n<p>hi</p>")
            #expect(found[1] as? Int == 12)
            #expect(found[2] as? String == "nope")
            #expect(found[3] as? [Int] == [1, 2])
            #expect(found[4] as? String == "-x")
            #expect(found[5] as? String == "quoted")
            #expect(found[6] as? String == "{\"a\":")
        }
    }

    @Test func compressedResponsesAreAskedForAndDecodedUnlessTurnedOff() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/gzip"
            let (status, records, output) = try self.run([url])
            #expect(status == 0, "\(output)")
            #expect((records.first?["body"] as? [String: Any])?["compressed"] as? Bool == true)
            #expect(server.snapshot.acceptingEncodings == 1)
            let (plainStatus, plain, plainOutput) = try self.run(["--no-compressed", url])
            #expect(plainStatus == 0, "\(plainOutput)")
            #expect((plain.first?["body"] as? [String: Any])?["compressed"] as? Bool == true)
            #expect(server.snapshot.acceptingEncodings == 1, "--no-compressed sends no Accept-Encoding")
        }
    }

    /// batchfetch tells libcurl "no proxy" once when the environment names none (see
    /// `CurlGlobal.environmentNamesAProxy`); one that does must still be used, and `no_proxy` honoured.
    @Test func aProxyNamedInTheEnvironmentIsUsed() async throws {
        try await TestHTTPServer.with { proxy in
            try await TestHTTPServer.with { origin in
                let url = "\(origin.baseURL)/headers"
                let proxied = try Executable("batchfetch").run(
                    ["fetch", "-q", url], environment: ["http_proxy": proxy.baseURL, "no_proxy": "", "NO_PROXY": ""])
                #expect(proxied.status == 0, "\(proxied)")
                #expect(proxy.snapshot.requests == 1 && origin.snapshot.requests == 0)
                let bypassed = try Executable("batchfetch").run(
                    ["fetch", "-q", url], environment: ["http_proxy": proxy.baseURL, "no_proxy": "127.0.0.1"])
                #expect(bypassed.status == 0, "\(bypassed)")
                #expect(proxy.snapshot.requests == 1 && origin.snapshot.requests == 1, "no_proxy goes around it")
                _ = try self.run([url])
                #expect(proxy.snapshot.requests == 1 && origin.snapshot.requests == 2)
            }
        }
    }

    @Test func theStatusListDecidesWhatIsOk() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/status/404"
            let (strict, records, strictOutput) = try self.run([url])
            #expect(strict == 1 && records.first?["ok"] as? Bool == false, "\(strictOutput)")
            let (lenient, accepted, lenientOutput) = try self.run(["--status", "200-299,404", url])
            #expect(lenient == 0 && accepted.first?["ok"] as? Bool == true, "\(lenientOutput)")
            let bad = try Executable("batchfetch").run(["fetch", "--status", "2xx", url])
            #expect(bad.status == 2, "\(bad)")
        }
    }

    @Test func headersAreSentAndInjectionIsRefused() async throws {
        try await TestHTTPServer.with { server in
            let (_, records, _) = try self.run(
                ["--body", "text", "-H", "X-Team: data", "--user-agent", "pipeline/1", "\(server.baseURL)/headers"])
            let body = try #require(records.first?["body"] as? String)
            #expect(body.contains("x-team: data") && body.contains("user-agent: pipeline/1"))
            let injected = try Executable("batchfetch").run([
                "fetch", "-H", "X-A: 1\r\nX-Evil: 2", "\(server.baseURL)/ok",
            ])
            #expect(injected.status == 2, "\(injected)")
            #expect(injected.stderr.contains("CR, LF"))
            #expect(server.snapshot.requests == 1)
        }
    }

    @Test func inputOrderIsTheDefaultAndCompletionOrderKeepsEveryRecord() async throws {
        try await TestHTTPServer.with { server in
            let urls = (0..<60).map { "\(server.baseURL)/delay?ms=\($0 % 6 == 0 ? 40 : 1)&i=\($0)" } + ["not a url"]
            let (_, ordered, _) = try self.run(["-c", "8"] + urls)
            #expect(ordered.compactMap { $0["index"] as? Int } == Array(0...60))
            let (_, completion, _) = try self.run(["-c", "8", "--order", "completion"] + urls)
            let indices = completion.compactMap { $0["index"] as? Int }
            #expect(indices.sorted() == Array(0...60))
            #expect(indices != Array(0...60), "slow early requests finish after fast later ones")
        }
    }

    @Test func shardsPartitionTheInputAndMergeBackToOneRun() async throws {
        // Background jobs and `wait` run the shards: bash and coreutils are on every machine.
        try await self.checkShardsMergeBackToOneRun { fetch, directory in
            """
            for k in 0 1 2; do \(fetch) --shard $k/3 > \(directory)/shard.$k.ndjson & done
            wait
            """
        }
    }

    /// The README's GNU parallel recipe, word for word. GNU parallel is not on a new machine and
    /// `scripts/setup` does not install it, so this runs only where it is; the test above checks
    /// the same partition and merge with plain background jobs everywhere.
    @Test(.enabled(if: FetchOptionsTests.hasGNUParallel, "GNU parallel is not installed"))
    func shardsRunByGNUParallelMergeBackToOneRun() async throws {
        try await self.checkShardsMergeBackToOneRun { fetch, directory in
            "parallel -j 3 '\(fetch) --shard {}/3 > \(directory)/shard.{}.ndjson' ::: 0 1 2"
        }
    }

    static let hasGNUParallel: Bool = {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/bin/sh")
        probe.arguments = ["-c", "command -v parallel >/dev/null 2>&1 && parallel --version 2>/dev/null | grep -q GNU"]
        guard (try? probe.run()) != nil else { return false }
        probe.waitUntilExit()
        return probe.terminationStatus == 0
    }()

    /// Fetches 200 URLs (plus a comment, a blank line and a refused URL) whole and in 3 shards:
    /// the shards partition the records, and `launch` (a shell script that runs every shard of
    /// `fetch` into `shard.K.ndjson` under the directory) followed by `sort -m` gives the whole run.
    private func checkShardsMergeBackToOneRun(
        launch: (_ fetch: String, _ directory: String) -> String
    ) async throws {
        try await TestHTTPServer.with { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bf-shard-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let list = directory.appendingPathComponent("urls.txt").path
            let lines = (0..<200).map { "\(server.baseURL)/ok?i=\($0)" } + ["# comment", "", "file:///x"]
            try Data(lines.joined(separator: "\n").utf8).write(to: URL(fileURLWithPath: list))
            let (_, whole, _) = try self.run(["--body", "none", "-i", list])
            var union: [Int] = []
            for k in 0..<3 {
                let (_, part, _) = try self.run(["--body", "none", "--shard", "\(k)/3", "-i", list])
                union += part.compactMap { $0["index"] as? Int }
                #expect(part.count > 30, "shard \(k) has \(part.count) records")
            }
            #expect(union.sorted() == Array(0..<201))
            #expect(Set(union).count == union.count, "shards overlap")

            // sort -m merges the shards (each in input order) by index into one run's records.
            let binary = try Executable("batchfetch").url.path
            let fetch = "\(binary) fetch -q --body none -i \(list)"
            let script = """
                export LC_ALL=C
                \(launch(fetch, directory.path))
                sort -m -t: -k2,2n \(directory.path)/shard.*.ndjson
                """
            let shell = Process()
            shell.executableURL = URL(fileURLWithPath: "/bin/bash")
            shell.arguments = ["-c", script]
            let pipe = Pipe()
            let errors = Pipe()
            shell.standardOutput = pipe
            shell.standardError = errors
            try shell.run()
            let merged = try self.records(
                String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            shell.waitUntilExit()
            func comparable(_ records: [[String: Any]]) -> [String] {
                records.map { record in
                    "\(record["index"] ?? "")|\(record["url"] ?? "")|\(record["status"] ?? "")|\(record["ok"] ?? "")"
                }
            }
            // The shard holding file:///x exits 1, as a run with a failed record does; so the
            // script's status says nothing here, and the merged records say everything.
            #expect(comparable(merged) == comparable(whole), "shard script stderr: \(stderr)")
        }
    }

    @Test func recordsFlowWhileStandardInputIsStillOpen() async throws {
        try await TestHTTPServer.with { server in
            let process = Process()
            process.executableURL = try Executable("batchfetch").url
            process.arguments = ["fetch", "-q", "-i", "-"]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            input.fileHandleForWriting.write(Data("\(server.baseURL)/ok?first\n".utf8))
            // The first record must arrive while the pipe is still open.
            let bytes = output.fileHandleForReading.readThroughFirstLine(within: 10)
            let firstLine = String(decoding: bytes, as: UTF8.self)
            if !bytes.contains(0x0A) {
                process.terminate()
            }
            #expect(firstLine.contains("\"index\":0") && firstLine.contains("\"ok\":true"))
            input.fileHandleForWriting.write(Data("\(server.baseURL)/ok?second\n".utf8))
            try input.fileHandleForWriting.close()
            let rest = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(rest.contains("\"index\":1"))
            #expect(process.terminationStatus == 0)
        }
    }
}
