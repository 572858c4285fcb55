import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `batchfetch crawl` end to end: the real executable against the replica on loopback.
@Suite(.serialized)
struct CrawlCommandTests {
    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    @Test func ndjsonLinesFollowTheCategoryListWithTheirDrinks() async throws {
        try await ReplicaServer.withServer { server in
            let output = try Executable("batchfetch").run(["crawl", "--base-url", server.baseURL, "-q"])
            #expect(output.status == 0, "\(output.stderr)")
            let lines = try self.objects(output.stdout)
            #expect(lines.compactMap { $0["category"] as? String } == server.catalogue.categories.map(\.name))
            for (line, category) in zip(lines, server.catalogue.categories) {
                let ids = (line["drinks"] as? [[String: Any]])?.compactMap { $0["idDrink"] as? String }
                #expect(ids == Array(category.drinkIDs.prefix(100)))
            }
        }
    }

    @Test func outputPlacesThatCanOnlyFailStopTheCrawlBeforeItStarts() async throws {
        try await ReplicaServer.withServer { server in
            let directory = try ScratchDirectory("crawl-places")
            let file = directory.path("c.ndjson")
            let cases: [(arguments: [String], says: String)] = [
                (["-o", file, "--stats", file], "name the same file"),
                (["--stats", "/no/such/dir/s.json"], "no such folder"),
                (["--thumbnails", "/proc/self/batchfetch-images"], "cannot write files in --thumbnails"),
            ]
            for (arguments, says) in cases {
                let output = try Executable("batchfetch").run(
                    ["crawl", "--base-url", server.baseURL, "-q"] + arguments)
                #expect(output.status == 2, "\(arguments): \(output)")
                #expect(output.stderr.contains(says), "\(arguments): \(output)")
                #expect(output.stdout.isEmpty, "\(arguments)")
            }
            #expect(!FileManager.default.fileExists(atPath: file))
        }
    }

    @Test func jsonIsOneArrayOfTheSameObjects() async throws {
        try await ReplicaServer.withServer { server in
            let ndjson = try Executable("batchfetch").run([
                "crawl", "--base-url", server.baseURL, "-q", "--by", "glass",
            ])
            let json = try Executable("batchfetch").run(
                ["crawl", "--base-url", server.baseURL, "-q", "--by", "glass", "--format", "json"])
            #expect(json.status == 0)
            let array = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [[String: Any]])
            let lines = try self.objects(ndjson.stdout)
            #expect(array.count == lines.count && array.count == server.catalogue.glasses.count)
            #expect(array.compactMap { $0["glass"] as? String } == lines.compactMap { $0["glass"] as? String })
        }
    }

    @Test func csvParsesBackWithACSVReader() async throws {
        try await ReplicaServer.withServer { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bf-csv-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("catalogue.csv").path
            let crawl = try Executable("batchfetch").run(
                ["crawl", "--base-url", server.baseURL, "-q", "--details", "--format", "csv", "-o", file])
            #expect(crawl.status == 0, "\(crawl.stderr)")
            // Python's csv module is an independent RFC 4180 reader.
            let script = """
                import csv, json, sys
                rows = list(csv.reader(open(sys.argv[1], newline='')))
                print(json.dumps({"header": rows[0], "widths": sorted(set(len(r) for r in rows)), "rows": len(rows) - 1,
                                  "instructions": [r[8] for r in rows[1:4]]}))
                """
            let python = Process()
            python.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            python.arguments = ["python3", "-c", script, file]
            let pipe = Pipe()
            python.standardOutput = pipe
            try python.run()
            let data = pipe.fileHandleForReading.readDataToEndOfFile()
            python.waitUntilExit()
            let parsed = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
            let header = try #require(parsed["header"] as? [String])
            #expect(header.prefix(3) == ["category", "idDrink", "strDrink"])
            #expect(parsed["widths"] as? [Int] == [header.count])
            let expected = server.catalogue.categories.map { min(100, $0.drinkIDs.count) }.reduce(0, +)
            #expect(parsed["rows"] as? Int == expected)
            #expect((parsed["instructions"] as? [String])?.allSatisfy { !$0.isEmpty } == true)
        }
    }

    /// `-o` to a regular file starts write-back as it goes and fsyncs at the end; to a FIFO it can
    /// do neither. Both must hold the very bytes the crawl writes to standard output.
    @Test func outputFilesAndFIFOsGetTheBytesOfStandardOutput() async throws {
        try await ReplicaServer.withServer { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("bf-out-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let arguments = ["crawl", "--base-url", server.baseURL, "-q", "--details", "--by", "ingredient"]
            let standard = try Executable("batchfetch").run(arguments)
            #expect(standard.status == 0, "\(standard.stderr)")
            #expect(standard.stdout.utf8.count > 1 << 20, "enough output for several write-back calls")

            let file = directory.appendingPathComponent("crawl.ndjson").path
            let toFile = try Executable("batchfetch").run(arguments + ["-o", file])
            #expect(toFile.status == 0, "\(toFile.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == Data(standard.stdout.utf8))

            let fifo = directory.appendingPathComponent("crawl.fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            // The reader opens the FIFO first, so the crawl's open does not block forever, and
            // copies it to a file, so neither blocks on a pipe nobody drains.
            let copy = directory.appendingPathComponent("fifo-copy.ndjson").path
            #expect(FileManager.default.createFile(atPath: copy, contents: nil))
            let reader = Process()
            reader.executableURL = URL(fileURLWithPath: "/bin/cat")
            reader.arguments = [fifo]
            reader.standardOutput = try FileHandle(forWritingTo: URL(fileURLWithPath: copy))
            try reader.run()
            let toFIFO = try Executable("batchfetch").run(arguments + ["-o", fifo])
            reader.waitUntilExit()
            let received = try Data(contentsOf: URL(fileURLWithPath: copy))
            #expect(toFIFO.status == 0, "\(toFIFO.stderr)")
            #expect(received == Data(standard.stdout.utf8))
        }
    }

    @Test func resumingIntoAFileThatIsNotOursIsRefused() async throws {
        try await ReplicaServer.withServer { server in
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("bf-foreign-\(UUID().uuidString)")
                .path
            try Data("this is not ours\n".utf8).write(to: URL(fileURLWithPath: file))
            defer { try? FileManager.default.removeItem(atPath: file) }
            let output = try Executable("batchfetch").run([
                "crawl", "--base-url", server.baseURL, "-o", file, "--resume",
            ])
            #expect(output.status == 2)
            #expect(output.stderr.contains("refusing"))
            #expect(try String(contentsOfFile: file, encoding: .utf8) == "this is not ours\n", "the file is left alone")
            let usage = try Executable("batchfetch").run(["crawl", "--resume"])
            #expect(usage.status == 2)
        }
    }

    /// Interrupt a crawl to a file at 20 seeded random moments (SIGINT and SIGKILL), resume each
    /// time, and the final file must be byte-identical to an uninterrupted run's.
    @Test func interruptedCrawlsResumeToTheSameBytes() async throws {
        var replica = ReplicaConfiguration()
        replica.faults.latency = ReplicaLatency(milliseconds: 4)
        try await ReplicaServer.withServer(replica) { server in
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "bf-resume-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let reference = directory.appendingPathComponent("reference.ndjson").path
            let arguments = ["crawl", "--base-url", server.baseURL, "--details", "--complete", "-q", "-c", "8"]
            let full = try Executable("batchfetch").run(arguments + ["-o", reference])
            #expect(full.status == 0, "\(full.stderr)")
            let expected = try Data(contentsOf: URL(fileURLWithPath: reference))

            var generator = SeededGenerator(seed: 7)
            var cutShort = 0
            for point in 0..<20 {
                let file = directory.appendingPathComponent("run\(point).ndjson").path
                let signal = point % 2 == 0 ? SIGINT : SIGKILL
                let delay = UInt32.random(in: 50_000...400_000, using: &generator)
                let process = Process()
                process.executableURL = try Executable("batchfetch").url
                process.arguments = arguments + ["-o", file]
                process.standardError = FileHandle.nullDevice
                try process.run()
                usleep(delay)
                kill(process.processIdentifier, signal)
                process.waitUntilExit()
                if process.terminationReason == .exit {
                    #expect(
                        [0, 130].contains(process.terminationStatus), "point \(point): \(process.terminationStatus)")
                }
                let partial = (try? Data(contentsOf: URL(fileURLWithPath: file))) ?? Data()
                cutShort += partial.count < expected.count ? 1 : 0
                let resumed = try Executable("batchfetch").run(arguments + ["-o", file, "--resume"])
                #expect(resumed.status == 0, "point \(point): \(resumed.stderr)")
                let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
                #expect(
                    bytes == expected, "point \(point) (\(signal == SIGINT ? "SIGINT" : "SIGKILL") after \(delay) µs)")
            }
            #expect(cutShort >= 10, "only \(cutShort) of 20 interruptions landed mid-crawl")
        }
    }
}
