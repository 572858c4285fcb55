import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `fetch --save-dir` streams each body into its file as it arrives: large bodies, bodies past the
/// in-memory limit, transfers cut mid-body, retries, and memory that does not grow with the files.
@Suite(.serialized)
struct FetchSaveDirStreamingTests {
    private func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    private func run(_ arguments: [String]) throws -> (Int32, [[String: Any]]) {
        let output = try Executable("batchfetch").run(["fetch", "-q"] + arguments)
        return (output.status, try self.records(output.stdout))
    }

    private func binary(_ n: Int, seed: Int) -> Data {
        Data((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
    }

    private func folder() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("stream-\(UUID())").path
    }

    private func names(in folder: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
    }

    @Test func bodiesOfManyChunksAreSavedByteForByte() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let sizes = [1_000_000, 65_536, 65_537, 3_000_001]
            let urls = sizes.enumerated().map { "\(server.baseURL)/binary?n=\($1)&seed=\($0)" }
            let (status, records) = try self.run(["--save-dir", folder] + urls)
            #expect(status == 0)
            for (index, size) in sizes.enumerated() {
                let saved = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(index)-binary"))
                let expected = self.binary(size, seed: index)
                #expect(saved == expected, "body \(index) of \(size) bytes")
                #expect(records[index]["sha256"] as? String == (try sha256Hex(expected)))
                #expect(records[index]["bytes"] as? Int == size)
            }
            #expect(self.names(in: folder).count == sizes.count)
        }
    }

    /// Whether `folder`'s file system has unnamed files (`O_TMPFILE`: `__O_TMPFILE | O_DIRECTORY`).
    private func hasUnnamedFiles(_ folder: String) -> Bool {
        let descriptor = open(folder, O_RDWR | O_DIRECTORY | 0o20_000_000, 0o600)
        guard descriptor >= 0 else {
            return false
        }
        close(descriptor)
        return true
    }

    /// Streamed bodies go into unnamed files where the file system has them: a kill in the middle of
    /// many large bodies leaves no temporary behind, and what has a name is whole.
    @Test func aKillMidBodyLeavesNoTemporaryBehind() async throws {
        try await TestHTTPServer.with { server in
            // Large enough that eight in flight are still being written when the first is named.
            let sizes = (0..<24).map { 8_000_000 + $0 * 7919 }
            let urls = sizes.map { "\(server.baseURL)/bytes?n=\($0)" }
            var random = SeededGenerator(seed: 2026)
            var killedMidway = 0
            for _ in 0..<5 {
                let folder = self.folder()
                defer { try? FileManager.default.removeItem(atPath: folder) }
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
                guard self.hasUnnamedFiles(folder) else {
                    return  // named temporaries there: aKillAtAnyMomentLeavesNoPartialFileUnderAFinalName covers them
                }
                let process = Process()
                process.executableURL = try Executable("batchfetch").url
                process.arguments = ["fetch", "-q", "-c", "8", "--save-dir", folder, "-o", "/dev/null"] + urls
                try process.run()
                // Killed once the first body has its name, while the next ones are being written.
                let deadline = Date().addingTimeInterval(10)
                while self.names(in: folder).allSatisfy({ $0.hasSuffix(".partial") }) && Date() < deadline {
                    usleep(1_000)
                }
                usleep(UInt32.random(in: 0..<20_000, using: &random))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let names = self.names(in: folder)
                #expect(names.allSatisfy { !$0.hasSuffix(".partial") }, "\(names)")
                for name in names {
                    let index = try #require(Int(name.prefix { $0 != "-" }))
                    let saved = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
                    #expect(saved == Data(repeating: UInt8(ascii: "a"), count: sizes[index]), "\(name) is not whole")
                }
                killedMidway += !names.isEmpty && names.count < sizes.count ? 1 : 0
            }
            #expect(killedMidway > 0, "no run was killed between its first and last body: nothing was checked")
        }
    }

    /// A re-run over the files of an earlier one replaces each (an unnamed file cannot be linked
    /// over a name, so the old file is unlinked first), symbolic links included, not what they point to.
    @Test func aRerunReplacesEarlierFilesAndLinks() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let outside = folder + "-outside"
            defer { try? FileManager.default.removeItem(atPath: outside) }
            try Data("keep".utf8).write(to: URL(fileURLWithPath: outside))
            try Data("old".utf8).write(to: URL(fileURLWithPath: folder + "/0-binary"))
            try FileManager.default.createSymbolicLink(atPath: folder + "/1-binary", withDestinationPath: outside)
            let urls = (0..<2).map { "\(server.baseURL)/binary?n=\(100_000 + $0)&seed=\($0)" }
            let (status, records) = try self.run(["--save-dir", folder] + urls)
            #expect(status == 0)
            for index in 0..<2 {
                let saved = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(index)-binary"))
                #expect(saved == self.binary(100_000 + index, seed: index))
                #expect(records[index]["ok"] as? Bool == true)
            }
            let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/1-binary")
            #expect(attributes[.type] as? FileAttributeType == .typeRegular, "the link itself was replaced")
            #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Data("keep".utf8))
            #expect(self.names(in: folder) == ["0-binary", "1-binary"])
        }
    }

    /// A URL given twice is fetched once; its one streamed body is named for the first record and
    /// copied for the second, both whole, with the same digest.
    @Test func aRepeatedURLGivesEachRecordAWholeFile() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let url = "\(server.baseURL)/binary?n=200003&seed=7"
            let (status, records) = try self.run(["--save-dir", folder, url, url])
            #expect(status == 0)
            let expected = self.binary(200_003, seed: 7)
            for index in 0..<2 {
                let saved = try Data(contentsOf: URL(fileURLWithPath: folder + "/\(index)-binary"))
                #expect(saved == expected, "record \(index)")
                #expect(records[index]["sha256"] as? String == (try sha256Hex(expected)))
            }
            #expect(self.names(in: folder) == ["0-binary", "1-binary"])
        }
    }

    @Test func aBodyLargerThanTheInMemoryLimitIsSavedAndTheFileLimitHolds() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let size = (64 << 20) + 100_003
            let (status, records) = try self.run(["--save-dir", folder, "\(server.baseURL)/bytes?n=\(size)"])
            #expect(status == 0)
            let path = try #require(records.first?["file"] as? String)
            #expect(
                records.first?["sha256"] as? String == (try sha256Hex(Data(repeating: UInt8(ascii: "a"), count: size))))
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            #expect((attributes[.size] as? NSNumber)?.intValue == size)
            // --max-body bounds files too: the transfer stops there and leaves nothing behind.
            let small = self.folder()
            defer { try? FileManager.default.removeItem(atPath: small) }
            let (refused, failed) = try self.run(
                ["--save-dir", small, "--max-body", "100000", "\(server.baseURL)/binary?n=1000000"])
            #expect(refused == 1)
            #expect((failed.first?["error"] as? [String: Any])?["kind"] as? String == "tooLarge")
            #expect(self.names(in: small) == [])
        }
    }

    @Test func aTransferCutMidBodyLeavesNoFile() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let urls = [
                "\(server.baseURL)/cut?n=1000000", "\(server.baseURL)/cut?n=40000", "\(server.baseURL)/status/500",
            ]
            let (status, records) = try self.run(["--save-dir", folder, "--retries", "0"] + urls)
            #expect(status == 1)
            #expect(records.map { $0["ok"] as? Bool } == [false, false, false])
            #expect(records.map { $0["file"] is NSNull } == [true, true, true])
            #expect(self.names(in: folder) == [], "no file and no .partial")
        }
    }

    @Test func aRetriedTransfersFileHoldsOnlyTheFinalAttempt() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let urls = [
                "\(server.baseURL)/cut?n=1000000&seed=7&key=a&fail=2",
                "\(server.baseURL)/flaky?key=b&fail=1",
            ]
            let (status, records) = try self.run(["--save-dir", folder, "--retries", "3"] + urls)
            #expect(status == 0)
            #expect(records.map { $0["attempts"] as? Int } == [3, 2])
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/0-cut")) == self.binary(1_000_000, seed: 7))
            #expect(try String(contentsOfFile: folder + "/1-flaky", encoding: .utf8) == "{\"ok\":true,\"hits\":2}")
            #expect(self.names(in: folder) == ["0-cut", "1-flaky"])
        }
    }

    @Test func aURLRepeatedInOneBatchGetsAWholeFilePerRecord() async throws {
        try await TestHTTPServer.with { server in
            let folder = self.folder()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let url = "\(server.baseURL)/binary?n=200000&seed=9"
            let (status, _) = try self.run(["--save-dir", folder, url, url, url])
            #expect(status == 0)
            #expect(self.names(in: folder) == ["0-binary", "1-binary", "2-binary"])
            for name in self.names(in: folder) {
                #expect(
                    try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name)) == self.binary(200_000, seed: 9))
            }
        }
    }

    @Test func peakMemoryDoesNotGrowWithTheNumberOfFiles() async throws {
        try await TestHTTPServer.with { server in
            var peaks: [Int] = []
            for count in [40, 400] {
                let folder = self.folder()
                defer { try? FileManager.default.removeItem(atPath: folder) }
                let list = folder + ".urls"
                defer { try? FileManager.default.removeItem(atPath: list) }
                let urls = (0..<count).map { "\(server.baseURL)/bytes?n=1000000&i=\($0)" }
                try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
                let peak = try peakResidentKilobytes(
                    try Executable("batchfetch").url.path,
                    ["fetch", "-q", "-c", "16", "--save-dir", folder, "-i", list, "-o", "/dev/null"])
                #expect(self.names(in: folder).count == count)
                peaks.append(peak)
            }
            // 400 MB of bodies against 40 MB: a client holding whole bodies (16 in flight, more
            // waiting for their turn) would need tens of MB more for the larger run.
            #expect(peaks[1] - peaks[0] < 12 * 1024, "peak RSS \(peaks[0]) KB for 40 files, \(peaks[1]) KB for 400")
        }
    }
}

/// Runs `path` with `arguments` and returns its peak resident memory in KB (`wait4`'s `ru_maxrss`).
private func peakResidentKilobytes(_ path: String, _ arguments: [String]) throws -> Int {
    let argv = ([path] + arguments).map { strdup($0) } + [nil]
    defer { argv.forEach { free($0) } }
    var pid: pid_t = 0
    let spawned = posix_spawn(&pid, path, nil, nil, argv, environ)
    guard spawned == 0 else {
        throw POSIXError(POSIXErrorCode(rawValue: spawned) ?? .EINVAL)
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
    return usage.ru_maxrss
}
