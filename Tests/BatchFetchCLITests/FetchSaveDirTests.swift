import Foundation
import TestSupport
import Testing

/// `fetch --save-dir`, `--skip-existing` and base64 bodies, end to end against the test server.
@Suite(.serialized)
struct FetchSaveDirTests {
    private func records(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    private func run(_ arguments: [String]) throws -> (Int32, [[String: Any]], String) {
        let output = try Executable("batchfetch").run(["fetch", "-q"] + arguments)
        return (output.status, try self.records(output.stdout), output.stderr)
    }

    private func binary(_ n: Int, seed: Int) -> Data {
        Data((0..<n).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ seed) })
    }

    @Test func okBodiesAreSavedWhole() async throws {
        try await TestHTTPServer.with { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("save-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let urls =
                (0..<5).map { "\(server.baseURL)/binary?n=\(40_000 + $0)&seed=\($0)" } + ["\(server.baseURL)/nope"]
            let (status, records, _) = try self.run(["--save-dir", folder] + urls)
            #expect(status == 1, "the 404 fails its record")
            #expect(records.count == 6)
            for index in 0..<5 {
                let record = records[index]
                let path = try #require(record["file"] as? String)
                #expect(path == folder + "/\(index)-binary")
                let saved = try Data(contentsOf: URL(fileURLWithPath: path))
                #expect(saved == self.binary(40_000 + index, seed: index))
                #expect(record["sha256"] as? String == (try sha256Hex(saved)))
                #expect(record["body"] == nil)
            }
            #expect(records[5]["file"] is NSNull)
            #expect((records[5]["error"] as? [String: Any])?["kind"] as? String == "httpStatus")
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 5)
        }
    }

    @Test func aReRunWithSkipExistingFetchesOnlyWhatIsMissing() async throws {
        try await TestHTTPServer.with { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("save-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let urls = (0..<4).map { "\(server.baseURL)/binary?n=1000&seed=\($0)" }
            _ = try self.run(["--save-dir", folder] + urls)
            try FileManager.default.removeItem(atPath: folder + "/2-binary")
            let before = server.counters.withLock { $0.requests }
            let output = try Executable("batchfetch").run(["fetch", "--save-dir", folder, "--skip-existing"] + urls)
            let records = try self.records(output.stdout)
            #expect(output.status == 0)
            #expect(records.map { $0["index"] as? Int } == [2])
            #expect(server.counters.withLock { $0.requests } - before == 1)
            #expect(output.stderr.contains("skipped, already saved: 3"))
            #expect(try Data(contentsOf: URL(fileURLWithPath: folder + "/2-binary")) == self.binary(1000, seed: 2))
        }
    }

    @Test func binaryBodiesAreBase64InAutoAndBase64Modes() async throws {
        try await TestHTTPServer.with { server in
            let image = "\(server.baseURL)/binary?n=20000&seed=3"
            let (_, auto, _) = try self.run([image])
            #expect(auto.first?["body_encoding"] as? String == "base64")
            let body = try #require(auto.first?["body"] as? String)
            #expect(Data(base64Encoded: body) == self.binary(20_000, seed: 3))
            // Not UTF-8 and no binary type: base64 in auto, U+FFFD in text mode.
            let plain = "\(server.baseURL)/binary?n=300&type=text/plain"
            let (_, text, _) = try self.run(["--body", "text", plain])
            #expect(text.first?["body_encoding"] == nil)
            #expect((text.first?["body"] as? String)?.contains("\u{FFFD}") == true)
            let (_, sniffed, _) = try self.run([plain])
            #expect(Data(base64Encoded: sniffed.first?["body"] as? String ?? "") == self.binary(300, seed: 0))
            let json = "\(server.baseURL)/ok"
            let (_, forced, _) = try self.run(["--body", "base64", json])
            let decoded = Data(base64Encoded: forced.first?["body"] as? String ?? "")
            #expect(decoded.map { String(decoding: $0, as: UTF8.self).hasPrefix("{") } == true)
        }
    }

    @Test func aKillAtAnyMomentLeavesNoPartialFileUnderAFinalName() async throws {
        try await TestHTTPServer.with { server in
            let binary = try Executable("batchfetch").url
            var random = SeededGenerator(seed: 26)
            let list = FileManager.default.temporaryDirectory.appendingPathComponent("urls-\(UUID())").path
            defer { try? FileManager.default.removeItem(atPath: list) }
            let urls = (0..<400).map { "\(server.baseURL)/binary?n=\(30_000 + $0 * 97)&seed=\($0)" }
            try urls.joined(separator: "\n").write(toFile: list, atomically: true, encoding: .utf8)
            var killedMidway = 0
            for _ in 0..<20 {
                let folder = FileManager.default.temporaryDirectory.appendingPathComponent("kill-\(UUID())").path
                defer { try? FileManager.default.removeItem(atPath: folder) }
                let process = Process()
                process.executableURL = binary
                process.arguments = ["fetch", "-q", "-c", "8", "--save-dir", folder, "-i", list, "-o", "/dev/null"]
                try process.run()
                usleep(UInt32.random(in: 5_000..<150_000, using: &random))
                kill(process.processIdentifier, SIGKILL)
                process.waitUntilExit()
                let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
                var finished = 0
                for name in names where !name.hasSuffix(".partial") {
                    let index = try #require(Int(name.prefix { $0 != "-" }))
                    let saved = try Data(contentsOf: URL(fileURLWithPath: folder + "/" + name))
                    #expect(saved == self.binary(30_000 + index * 97, seed: index), "\(name) is not whole")
                    finished += 1
                }
                #expect(names.allSatisfy { $0.hasSuffix(".partial") || $0.hasSuffix("-binary") })
                killedMidway += finished < urls.count ? 1 : 0
            }
            #expect(killedMidway > 0, "every run finished before its kill: the test checked nothing")
        }
    }

    @Test func saveDirRefusesOptionsThatWouldNotApply() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("save-\(UUID())").path
        for arguments in [
            ["--save-dir", folder, "--body", "none", "http://127.0.0.1:1/"],
            ["--skip-existing", "http://127.0.0.1:1/"],
            ["--save-dir", folder, "--skip-existing", "--file-name", "{sha256}", "http://127.0.0.1:1/"],
            ["--save-dir", folder, "--file-name", "../{name}", "http://127.0.0.1:1/"],
        ] {
            let output = try Executable("batchfetch").run(["fetch"] + arguments)
            #expect(output.status == 64 || output.status == 2, "\(arguments)")
        }
        #expect(!FileManager.default.fileExists(atPath: folder))
    }
}

/// SHA-256 by an independent implementation (coreutils' sha256sum), lower-case hex.
func sha256Hex(_ data: Data) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    let input = Pipe()
    let output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(data)
    try input.fileHandleForWriting.close()
    let text = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: text.prefix(64), as: UTF8.self)
}
