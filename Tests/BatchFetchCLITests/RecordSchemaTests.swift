import CocktailReplica
import Foundation
import TestSupport
import Testing

/// Real outputs of every command checked against the schemas `batchfetch schema` publishes, with
/// an independent draft 2020-12 validator (Python's jsonschema, which scripts/setup installs).
@Suite(.serialized)
struct RecordSchemaTests {
    /// The package's root, from this file's path.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// Validates each of `documents` (JSON texts) against `batchfetch schema <schema>`; returns the
    /// validator's complaints, one line each, or a line saying why it could not run.
    private func violations(of documents: [String], schema: String) throws -> [String] {
        let directory = try ScratchDirectory("schema")
        let schemaFile = directory.path("schema.json")
        let printed = try Executable.batchfetch().run(["schema", schema])
        #expect(printed.status == 0, "\(printed)")
        try printed.stdout.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let documentsFile = directory.path("documents.ndjson")
        try documents.joined(separator: "\n").write(toFile: documentsFile, atomically: true, encoding: .utf8)
        let script = """
            import json, sys
            from jsonschema import Draft202012Validator
            schema = json.load(open(sys.argv[1]))
            Draft202012Validator.check_schema(schema)
            validator = Draft202012Validator(schema)
            bad = 0
            for number, line in enumerate(open(sys.argv[2], encoding="utf-8"), 1):
                if not line.strip():
                    continue
                for error in validator.iter_errors(json.loads(line)):
                    bad += 1
                    print(f"document {number}: {'/'.join(map(str, error.absolute_path))}: {error.message[:300]}")
            sys.exit(1 if bad else 0)
            """
        let output = try Executable(path: "/usr/bin/env").run(["python3", "-c", script, schemaFile, documentsFile])
        if output.status != 0 && output.stdout.isEmpty {
            return ["the validator did not run (scripts/setup --build-tests installs jsonschema): \(output)"]
        }
        return output.stdout.split(separator: "\n").map(String.init)
    }

    private func lines(_ text: String) -> [String] {
        text.split(separator: "\n").map(String.init)
    }

    @Test func theDocsCopiesAreWhatTheCommandPrints() throws {
        for schema in ["fetch", "crawl", "bench", "bench-series"] {
            let printed = try Executable.batchfetch().run(["schema", schema])
            let file = Self.root.appendingPathComponent("docs/schema/\(schema).schema.json")
            let kept = try String(contentsOf: file, encoding: .utf8)
            #expect(
                printed.stdout == kept, "docs/schema/\(schema).schema.json differs: batchfetch schema \(schema) > it")
        }
    }

    @Test func fetchRecordsOfEveryBodyModeAndErrorMatchTheSchema() async throws {
        try await TestHTTPServer.with { server in
            let base = server.baseURL
            let urls = [
                "\(base)/ok", "\(base)/ok", "\(base)/status/404", "\(base)/binary?n=300", "\(base)/headers",
                "\(base)/echo?text=caf%E9&type=text/plain;charset=iso-8859-1", "\(base)/bytes?n=0",
                "file:///etc/passwd", "not a url", "http://127.0.0.1:9/refused", "\(base)/redirect?to=/ok",
                #"{"url":"\#(base)/ok","method":"POST","body":{"a":1},"id":7,"meta":{"row":[1,"x"]}}"#,
                #"{"url":"\#(base)/ok","surprise":1,"id":"bad"}"#,
            ]
            var records: [String] = []
            let runs: [[String]] = [
                [], ["--body", "json"], ["--body", "text"], ["--body", "base64"], ["--body", "none"],
                ["--content-path", "data"], ["--order", "completion", "--no-dedup"], ["--follow"],
                ["--fields", "all"], ["--fields", "all", "--follow", "--body", "none"],
                ["--robots", "obey"], ["--robots", "report"],
            ]
            server.robots.withLock { $0 = RobotsReply(text: "User-agent: *\nDisallow: /status/\n") }
            for arguments in runs {
                let output = try Executable.batchfetch().run(["fetch", "-q", "--retries", "0"] + arguments + urls)
                #expect(output.status == 1, "\(arguments): \(output)")
                records += self.lines(output.stdout)
            }
            let directory = try ScratchDirectory("schema-files")
            let saved = try Executable.batchfetch().run(
                ["fetch", "-q", "--retries", "0", "--save-dir", directory.path("bodies")] + urls)
            records += self.lines(saved.stdout)
            let cached = try Executable.batchfetch().run(
                ["fetch", "-q", "--retries", "0", "--cache", directory.path("cache"), "--max-age", "60"] + urls)
            records += self.lines(cached.stdout)
            #expect(records.count == (runs.count + 2) * urls.count)
            #expect(records.contains { $0.contains("\"shared_with\":") })
            #expect(records.contains { $0.contains("\"body_encoding\":\"base64\"") })
            #expect(records.contains { $0.contains("\"sha256\":\"") })
            #expect(records.contains { $0.contains("\"cache\":\"miss\"") })
            #expect(records.contains { $0.contains("\"meta\":{\"row\":[1,\"x\"]}") })
            #expect(records.contains { $0.contains("\"kind\":\"invalidRequest\"") })
            #expect(records.contains { $0.contains("\"redirects\":[{\"url\":") })
            #expect(records.contains { $0.contains("\"attempt_log\":[{\"status\":404") })
            #expect(records.contains { $0.contains("\"rule\":\"Disallow: /status/\",\"line\":2}") })
            #expect(records.contains { $0.contains("\"robots\":{\"allowed\":false,\"rule\":\"Disallow: /status/\"}") })
            let problems = try self.violations(of: records, schema: "fetch")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test func mergedShardRecordsMatchTheSchema() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("schema-merge")
            let input = directory.path("urls.txt")
            let urls =
                (0..<40).map { "\(server.baseURL)/ok?size=\($0 + 20)" } + ["file:///x", "\(server.baseURL)/ok?size=20"]
            try urls.joined(separator: "\n").write(toFile: input, atomically: true, encoding: .utf8)
            var shards: [String] = []
            for shard in 0..<2 {
                let file = directory.path("shard.\(shard).ndjson")
                let output = try Executable.batchfetch().run([
                    "fetch", "-q", "--shard", "\(shard)/2", "-i", input, "-o", file, "--stats",
                    directory.path("shard.\(shard).stats.json"),
                ])
                #expect(output.status <= 1, "\(output)")
                shards.append(file)
            }
            let merged = try Executable.batchfetch().run(["merge", "-q"] + shards)
            let records = self.lines(merged.stdout)
            #expect(records.count == urls.count, "\(merged)")
            let problems = try self.violations(of: records, schema: "fetch")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test func warcRecordsMatchTheSchema() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("schema-warc")
            let output = try Executable.batchfetch().run([
                "fetch", "-q", "--warc", directory.path("s.warc.gz"), "--fields", "warc", "--retries", "0",
                server.baseURL + "/ok", server.baseURL + "/status/404", "http://127.0.0.1:1/",
            ])
            let records = self.lines(output.stdout)
            #expect(records.count == 3, "\(output)")
            #expect(records.contains { $0.contains("\"warc\":{\"file\":\"s.warc.gz\",\"offset\":") })
            #expect(records.contains { $0.contains("\"warc\":null") })
            let problems = try self.violations(of: records, schema: "fetch")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test func aRecordThatBreaksTheSchemaIsCaught() throws {
        let good =
            #"{"index":0,"url":"http://a/","status":200,"ok":true,"attempts":1,"bytes":2,"time_ms":1.5,"total_ms":1.5,"content_type":null,"body":{},"error":null}"#
        #expect(try self.violations(of: [good], schema: "fetch").isEmpty)
        let extraField = good.replacingOccurrences(of: "\"index\":0", with: "\"index\":0,\"surprise\":1")
        let okWithError = good.replacingOccurrences(of: "\"error\":null", with: #""error":{"kind":"x","message":"y"}"#)
        let bodyAndFile = good.replacingOccurrences(of: "\"body\":{}", with: #""body":{},"file":"f","sha256":null"#)
        #expect(try self.violations(of: [extraField, okWithError, bodyAndFile], schema: "fetch").count >= 3)
    }

    @Test func crawlLinesOfEveryFormMatchTheSchema() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(selfHostedImages: true)) { server in
            var lines: [String] = []
            let directory = try ScratchDirectory("schema-crawl")
            let runs: [[String]] = [
                [], ["--details"], ["--by", "glass", "--complete"],
                ["--by", "alcoholic", "--details", "--thumbnails", directory.path("images")],
            ]
            for arguments in runs {
                let output = try Executable.batchfetch().run(["crawl", "-q", "--base-url", server.baseURL] + arguments)
                #expect(output.status == 0, "\(arguments): \(output)")
                lines += self.lines(output.stdout)
            }
            let json = try Executable.batchfetch().run(
                ["crawl", "-q", "--base-url", server.baseURL, "--by", "ingredient", "--format", "json"])
            let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [Any])
            lines += try array.map { String(decoding: try JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }
            let problems = try self.violations(of: lines, schema: "crawl")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test func crawlLinesWithAFailedFacetFromARealServerMatchTheSchema() async throws {
        // Half the requests fail with 500: with one retry some facets still fail, and their lines
        // carry the error.
        let faults = ReplicaFaults(failRate: 0.5, failStatuses: [500])
        try await ReplicaServer.withServer(ReplicaConfiguration(faults: faults)) { server in
            let output = try Executable.batchfetch().run(
                ["crawl", "-q", "--retries", "1", "--base-url", server.baseURL])
            let lines = self.lines(output.stdout)
            #expect(lines.contains { $0.contains("\"error\":{") }, "no failed facet: \(output)")
            let problems = try self.violations(of: lines, schema: "crawl")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test func benchReportsMatchTheSchema() async throws {
        try await TestHTTPServer.with { server in
            let good = try Executable.batchfetch().run(["bench", "--json", "-n", "200", "\(server.baseURL)/ok"])
            let open = try Executable.batchfetch().run(
                ["bench", "--json", "-n", "50", "--rate", "500", "\(server.baseURL)/status/503", "--retries", "1"])
            let failed = try Executable.batchfetch().run(
                ["bench", "--json", "-n", "4", "--retries", "0", "http://127.0.0.1:9/"])
            let reports = [good, open, failed].map { $0.stdout.trimmingCharacters(in: .whitespacesAndNewlines) }
            let problems = try self.violations(of: reports, schema: "bench")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }

    @Test func benchSeriesLinesMatchTheSchema() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("schema-series")
            let series = directory.path("series.ndjson")
            let output = try Executable.batchfetch().run([
                "bench", "-q", "-n", "300", "--rate", "1000", "--retries", "0", "--interval", "50ms", "--series",
                series, "\(server.baseURL)/ok", "\(server.baseURL)/status/503", "http://127.0.0.1:9/",
            ])
            #expect(output.status == 1, "\(output)")
            let lines = self.lines(try String(contentsOfFile: series, encoding: .utf8))
            #expect(lines.count >= 3, "\(lines)")
            let problems = try self.violations(of: lines, schema: "bench-series")
            #expect(problems.isEmpty, "\(problems.prefix(10).joined(separator: "\n"))")
        }
    }
}
