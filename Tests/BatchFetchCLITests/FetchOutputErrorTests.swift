import Foundation
import TestSupport
import Testing

/// Issue 51: a failed output (here a full disk) leaves whole records only, and the run says what
/// it wrote, what it fetched and did not write, and what it never fetched.
@Suite(.serialized)
struct FetchOutputErrorTests {
    /// Mounts a 64 KiB tmpfs at `path`; `false` where that is not allowed (not root, a container).
    private static func mountSmallDisk(at path: String) -> Bool {
        let mount = Process()
        mount.executableURL = URL(fileURLWithPath: "/bin/mount")
        mount.arguments = ["-t", "tmpfs", "-o", "size=64k", "tmpfs", path]
        mount.standardError = FileHandle.nullDevice
        guard (try? mount.run()) != nil else {
            return false
        }
        mount.waitUntilExit()
        return mount.terminationStatus == 0
    }

    private static func unmount(_ path: String) {
        let umount = Process()
        umount.executableURL = URL(fileURLWithPath: "/bin/umount")
        umount.arguments = [path]
        try? umount.run()
        umount.waitUntilExit()
    }

    @Test(.enabled(if: getuid() == 0, "mounting a small tmpfs needs root"))
    func aFullDiskLeavesWholeRecordsAndTheSummarySaysWhatIsMissing() async throws {
        let directory = try ScratchDirectory("fetch-output-error")
        let disk = directory.path("disk")
        try FileManager.default.createDirectory(atPath: disk, withIntermediateDirectories: true)
        guard Self.mountSmallDisk(at: disk) else {
            print("FetchOutputErrorTests: skipped, cannot mount a tmpfs here")
            return
        }
        defer { Self.unmount(disk) }
        try await TestHTTPServer.with { server in
            let count = 2_000
            let input = directory.path("urls.txt")
            let urls = (0..<count).map { "\(server.baseURL)/ok?size=1000&i=\($0)" }
            try (urls.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
            let output = disk + "/out.ndjson"
            let stats = directory.path("stats.json")
            let run = try await Executable.batchfetch().runOffPool(
                ["fetch", "-c", "4", "-i", input, "-o", output, "--stats", stats])
            #expect(run.status == 1)
            #expect(run.stderr.contains("No space left on device"), "\(run.stderr)")

            let (_, unfetched) = try Self.expectWholeRecords(
                in: output, stats: stats, stderr: run.stderr, error: "No space left on device", count: count)
            // It stopped promptly: most of the input was never sent.
            let sent = server.snapshot.arrivals["/ok"]?.count ?? 0
            #expect(sent < count / 2, "the server saw \(sent) requests")
            #expect(unfetched >= count - sent)
        }
    }

    /// What every failed output leaves: the file at `output` holds whole JSON lines only (at
    /// least one), which the summary in `stderr` and the `--stats` file count; both name `error`;
    /// the records written, fetched and not written, and never fetched add up to `count`.
    /// - Returns: the file's bytes and the input lines never fetched.
    static func expectWholeRecords(
        in output: String, stats: String, stderr: String, error: String, count: Int
    ) throws -> (bytes: Data, unfetched: Int) {
        let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(!bytes.isEmpty, "records were written before the error")
        #expect(bytes.last == 0x0A, "the file ends with a whole line")
        let lines = bytes.split(separator: 0x0A)
        for line in lines {
            #expect(
                (try? JSONSerialization.jsonObject(with: Data(line))) != nil, "\(String(decoding: line, as: UTF8.self))"
            )
        }
        #expect(stderr.contains("fetch: \(lines.count) records, \(lines.count) ok, 0 failed in "), "\(stderr)")
        #expect(stderr.contains("not written (\(error)): "), "\(stderr)")
        let written = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
        #expect(written["records"] as? Int == lines.count)
        #expect(written["outputError"] as? String == error)
        #expect(written["interrupted"] as? Bool == false)
        let unwritten = try #require(written["unwritten"] as? Int)
        let unfetched = try #require(written["unfetched"] as? Int)
        #expect(lines.count + unwritten + unfetched == count)
        return (bytes, unfetched)
    }

    /// `fetch … | head -1`: the reader goes away after the first record. The summary and
    /// `--stats` count the records the pipe took whole, say how many were fetched and not written
    /// and how many lines were never fetched, name the error and say interrupted; exit 141.
    @Test func aClosedOutputPipeIsCountedAndNamedInTheSummaryAndStats() async throws {
        let directory = try ScratchDirectory("fetch-output-epipe")
        try await TestHTTPServer.with { server in
            let count = 2_000
            let size = 1_000
            let input = directory.path("urls.txt")
            let urls = (0..<count).map { "\(server.baseURL)/ok?size=\(size)&i=\($0)" }
            try (urls.joined(separator: "\n") + "\n").write(toFile: input, atomically: true, encoding: .utf8)
            let stats = directory.path("stats.json")
            let errors = directory.path("stderr.txt")
            #expect(FileManager.default.createFile(atPath: errors, contents: nil))
            let process = Process()
            process.executableURL = try Executable.batchfetch().url
            process.arguments = ["fetch", "--progress", "never", "-c", "4", "-i", input, "--stats", stats]
            let output = Pipe()
            process.standardOutput = output
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: errors))
            try process.run()
            let reader = output.fileHandleForReading
            // F_GETPIPE_SZ (1032), which Glibc's Swift module leaves out (it needs _GNU_SOURCE).
            let pipeCapacity = Int(fcntl(reader.fileDescriptor, 1032))
            #expect(pipeCapacity > 0)
            let read = reader.readThroughFirstLine(within: 10)
            try reader.close()
            let exited = await eventually(30) { !process.isRunning }
            if !exited {
                kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            #expect(exited, "the run went on after its reader went away")
            #expect(process.terminationStatus == 141)

            let summary = try String(contentsOfFile: errors, encoding: .utf8)
            #expect(summary.contains("interrupted: the output's reader went away"), "\(summary)")
            #expect(summary.contains("not written (Broken pipe): "), "\(summary)")
            let written = try #require(
                try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: stats))) as? [String: Any])
            #expect(written["outputError"] as? String == "Broken pipe")
            #expect(written["interrupted"] as? Bool == true)
            let records = try #require(written["records"] as? Int)
            let unwritten = try #require(written["unwritten"] as? Int)
            let unfetched = try #require(written["unfetched"] as? Int)
            #expect(records + unwritten + unfetched == count)
            // Whole records only: at least the lines read, at most those and what the pipe held.
            let linesRead = read.split(separator: 0x0A, omittingEmptySubsequences: false).count - 1
            #expect(linesRead >= 1)
            #expect(records >= linesRead && records <= linesRead + pipeCapacity / size, "\(records) records")
            #expect(written["ok"] as? Int == records)
            let sent = server.snapshot.arrivals["/ok"]?.count ?? 0
            #expect(sent < count / 2, "the server saw \(sent) requests")
            #expect(unfetched >= count - sent)
        }
    }
}
