import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// What `fetch` does at the edges of its input and output: it never destroys its input, finds
/// usage that can only fail before the first request, and says so with exit status 2.
@Suite(.serialized)
struct FetchEdgeTests {
    private func fetch(_ arguments: [String], stdin: String? = nil) throws -> Executable.Output {
        let output = try Executable.batchfetch().run(["fetch", "-q", "--retries", "0"] + arguments, stdin: stdin)
        if output.signal != nil || output.hung {
            Issue.record("batchfetch fetch \(arguments.joined(separator: " ")): \(output.summary)")
        }
        return output
    }

    /// Runs `batchfetch ARGS` through `/bin/sh -c SCRIPT`, where the script says `"$@"` for the
    /// command and adds the shell's redirections.
    private func shell(_ script: String, _ arguments: [String]) throws -> Executable.Output {
        let binary = try Executable.batchfetch().url.path
        return try Executable(path: "/bin/sh").run(["-c", script, binary] + arguments)
    }

    @Test func anOutputThatIsAnInputFileIsRefusedAndTheInputKept() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("fetch-edges")
            let urls = directory.path("urls.txt")
            let list = "\(server.baseURL)/ok\n\(server.baseURL)/ok?size=100\n"
            try list.write(toFile: urls, atomically: true, encoding: .utf8)
            #expect(symlink(urls, directory.path("link.txt")) == 0)
            #expect(link(urls, directory.path("hard.txt")) == 0)

            let cases: [[String]] = [
                ["-i", urls, "-o", urls],
                ["-i", urls, "-o", directory.path("link.txt")],
                ["-i", directory.path("link.txt"), "--stats", directory.path("hard.txt")],
            ]
            for arguments in cases {
                let output = try self.fetch(arguments)
                #expect(output.status == 2, "\(arguments): \(output)")
                #expect(output.stderr.contains("is the input file"), "\(output)")
                #expect(try String(contentsOfFile: urls, encoding: .utf8) == list)
            }
            // The shell opened the output: appending records to the list, or reading it as
            // standard input while -o truncates it.
            let appended = try self.shell("\"$0\" fetch -q -i \"$1\" >> \"$1\"", [urls])
            #expect(appended.status == 2, "\(appended)")
            let redirected = try self.shell("\"$0\" fetch -q -o \"$1\" < \"$1\"", [urls])
            #expect(redirected.status == 2, "\(redirected)")
            #expect(redirected.stderr.contains("standard input"), "\(redirected)")
            #expect(try String(contentsOfFile: urls, encoding: .utf8) == list)
            #expect(server.snapshot.requests == 0)
        }
    }

    @Test func anInputThatCannotBeReadExitsWithUsageAndSaysWhy() throws {
        let directory = try ScratchDirectory("fetch-edges")
        let folder = try self.fetch(["-i", directory.url.path])
        #expect(folder.status == 2, "\(folder)")
        #expect(folder.stderr.contains("it is a folder"), "\(folder)")
        let memory = try self.fetch(["-i", "/proc/self/mem"])
        #expect(memory.status == 2, "\(memory)")
        #expect(memory.stderr.contains("cannot read /proc/self/mem"), "\(memory)")
        let missing = try self.fetch(["-i", directory.path("missing.txt")])
        #expect(missing.status == 2, "\(missing)")
        #expect(missing.stderr.contains("No such file"), "\(missing)")
        // Root reads every file whatever its mode: the permission case means something only without it.
        if getuid() != 0 {
            let locked = directory.path("locked.txt")
            try "http://127.0.0.1:9/\n".write(toFile: locked, atomically: true, encoding: .utf8)
            chmod(locked, 0)
            let output = try self.fetch(["-i", locked])
            #expect(output.status == 2, "\(output)")
            #expect(output.stderr.contains("Permission denied"), "\(output)")
        }
    }

    @Test func outputPlacesThatCanOnlyFailStopTheRunBeforeTheFirstRequest() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("fetch-edges")
            let url = "\(server.baseURL)/ok"
            let input = directory.path("in.txt")
            try "\(url)\n".write(toFile: input, atomically: true, encoding: .utf8)
            let cases: [(arguments: [String], says: String)] = [
                (["--stats", "/no/such/dir/s.json", url], "no such folder: /no/such/dir"),
                (["--stats", directory.url.path, url], "it is a folder"),
                (
                    ["-o", directory.path("r.ndjson"), "--stats", directory.path("./r.ndjson"), url],
                    "name the same file"
                ),
                (["--save-dir", "/proc/self/batchfetch-bodies", url], "cannot write files in --save-dir"),
                (["-i", input, "--save-dir", directory.url.path], "keep the input outside"),
            ]
            for (arguments, says) in cases {
                let output = try self.fetch(arguments)
                #expect(output.status == 2, "\(arguments): \(output)")
                #expect(output.stderr.contains(says), "\(arguments): \(output)")
                #expect(output.stderr.split(separator: "\n").count == 1, "\(arguments): \(output)")
            }
            #expect(server.snapshot.requests == 0)
            #expect(!FileManager.default.fileExists(atPath: directory.path("r.ndjson")))
        }
    }

    @Test func aMissingSaveDirIsCreatedWithItsParents() async throws {
        try await TestHTTPServer.with { server in
            let directory = try ScratchDirectory("fetch-edges")
            let folder = directory.path("a/b/c")
            let output = try self.fetch(["--save-dir", folder, "\(server.baseURL)/ok"])
            #expect(output.status == 0, "\(output)")
            let saved = try FileManager.default.contentsOfDirectory(atPath: folder)
            #expect(saved == ["0-ok"])
        }
    }

    @Test func aWriteThatFailsAfterTheRunStartedExitsNonZero() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/ok"
            // /dev/full accepts the open and fails every write with ENOSPC, as a full disk does.
            let stats = try self.fetch(["--stats", "/dev/full", url])
            #expect(stats.status == 1, "\(stats)")
            #expect(stats.stderr.contains("cannot write stats to /dev/full"), "\(stats)")
            #expect(try stats.records().first?["ok"] as? Bool == true)
            let records = try self.fetch(["-o", "/dev/full", url])
            #expect(records.status == 1, "\(records)")
            #expect(records.stderr.contains("cannot write records"), "\(records)")
        }
    }

    @Test func followTakesAnOptionalCountInEveryDocumentedForm() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/redirect?to=/ok"
            // --follow=0 follows none and fails on the first redirect, as curl's --max-redirs 0 does.
            let forms: [(arguments: [String], status: Int)] = [
                ([url, "--follow"], 200),
                (["--follow", url], 200),
                (["-L", url], 200),
                (["--location", url], 200),
                (["--follow=3", url], 200),
                (["--follow", "2", url], 200),
                ([url], 302),
            ]
            for (arguments, status) in forms {
                let output = try self.fetch(["--status", "200-399"] + arguments)
                #expect(output.status == 0, "\(arguments): \(output)")
                let records = try output.records()
                #expect(records.count == 1, "\(arguments): \(output.stdout)")
                #expect(records.first?["status"] as? Int == status, "\(arguments): \(output.stdout)")
            }
            let none = try self.fetch(["--follow=0", url])
            #expect(none.status == 1, "\(none)")
            #expect((try none.records().first?["error"] as? [String: Any])?["kind"] as? String == "tooManyRedirects")
            let negative = try self.fetch(["--follow=-1", url])
            #expect(negative.status == 2, "\(negative)")
            #expect(negative.stderr.contains("out of range"), "\(negative)")
        }
    }

    @Test func aNegativeNumberIsOutOfRangeNotAMissingValue() throws {
        let cases: [(flag: String, value: String, says: String)] = [
            ("--rate", "-1", "--rate -1"), ("--retries", "-1", "--retries -1"), ("-c", "-4", "--concurrency -4"),
            ("--timeout", "-2", "--timeout -2"), ("--max-body", "-1", "--max-body -1"),
        ]
        for (flag, value, says) in cases {
            let output = try Executable.batchfetch().run(["fetch", flag, value, "http://127.0.0.1:9/"])
            #expect(output.status == 2, "\(flag) \(value): \(output)")
            #expect(output.stderr.contains("\(says) is out of range"), "\(flag) \(value): \(output)")
            #expect(!output.stderr.contains("Missing value"), "\(flag) \(value): \(output)")
        }
    }
}
