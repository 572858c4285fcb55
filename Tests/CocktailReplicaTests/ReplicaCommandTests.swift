import Foundation
import Testing

/// The `cocktaildb-replica` executable: announces itself, serves, and stops cleanly on signals.
struct ReplicaCommandTests {
    /// The executable sits beside the test resources in the build folder.
    static let executable: URL? = {
        guard let resources = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else { return nil }
        let candidate = resources.deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("cocktaildb-replica")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }()

    static let canRun = Self.executable != nil && Curl.isAvailable

    @Test(.enabled(if: Self.canRun)) func announcesItsURLServesAndExitsZeroOnSIGTERM() async throws {
        let running = try Self.launch(["--port", "0", "--seed", "5", "--scale", "0.1"])
        let line = try await running.firstLine()
        let match = try #require(line.wholeMatch(of: /listening (http:\/\/127\.0\.0\.1:\d+\/api\/json\/v1\/1\/)/))
        let result = try await Curl.fetch(String(match.1) + "list.php?a=list")
        #expect(result.status == 200)
        #expect(
            result.bodyText
                == #"{"drinks":[{"strAlcoholic":"Alcoholic"},{"strAlcoholic":"Non alcoholic"},{"strAlcoholic":"Optional alcohol"}]}"#
        )
        running.process.terminate()
        #expect(await running.exit() == 0)
    }

    @Test(.enabled(if: Self.canRun)) func selfHostedImagesPointThumbnailsAtTheReplica() async throws {
        let running = try Self.launch(["--self-hosted-images", "--scale", "0.1"])
        let line = try await running.firstLine()
        let match = try #require(line.wholeMatch(of: /listening (http:\/\/127\.0\.0\.1:\d+)\/api\/json\/v1\/1\//))
        let root = String(match.1)
        let record = try await Curl.fetch(root + "/api/json/v1/1/random.php")
        let thumbnail = try #require(record.bodyText.firstMatch(of: /"strDrinkThumb":"([^"]+)"/)).1
            .replacingOccurrences(of: "\\/", with: "/")
        #expect(thumbnail.wholeMatch(of: /http:\/\/127\.0\.0\.1:\d+\/images\/media\/drink\/[a-z0-9]+\.jpg/) != nil)
        #expect(thumbnail.hasPrefix(root + "/"))
        let image = try await Curl.fetch(thumbnail + "/small")
        #expect(image.status == 200)
        #expect(image.headers["content-type"] == "image/jpeg")
        #expect(image.body.starts(with: [0xFF, 0xD8]))
        running.process.terminate()
        #expect(await running.exit() == 0)
    }

    @Test(.enabled(if: Self.canRun)) func exitsZeroOnSIGINT() async throws {
        let running = try Self.launch(["--fail-first", "1"])
        let line = try await running.firstLine()
        #expect(line.hasPrefix("listening http://127.0.0.1:"))
        running.process.interrupt()
        #expect(await running.exit() == 0)
    }

    @Test(.enabled(if: Self.canRun)) func rejectsInvalidFlagsWithAUsageError() async throws {
        for arguments in [["--fail-rate", "2"], ["--latency", "soon"], ["--fail-status", "5xx"], ["--scale", "0"]] {
            let running = try Self.launch(arguments)
            #expect(await running.exit() == 64, "\(arguments)")
        }
    }

    struct Running: Sendable {
        let process: Process
        let output: Pipe

        /// The first stdout line, read off the cooperative pool.
        func firstLine() async throws -> String {
            let handle = self.output.fileHandleForReading
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    var bytes: [UInt8] = []
                    while !bytes.contains(UInt8(ascii: "\n")) {
                        let chunk = handle.availableData
                        if chunk.isEmpty { break }
                        bytes += chunk
                    }
                    let line = bytes.split(separator: UInt8(ascii: "\n")).first.map {
                        String(decoding: $0, as: UTF8.self)
                    }
                    continuation.resume(returning: line ?? "")
                }
            }
        }

        /// Waits for the exit status (at most 10 s, then kills it).
        func exit() async -> Int32 {
            let process = self.process
            return await withCheckedContinuation { continuation in
                DispatchQueue.global().async {
                    let deadline = Date().addingTimeInterval(10)
                    while process.isRunning && Date() < deadline {
                        usleep(10_000)
                    }
                    if process.isRunning {
                        kill(process.processIdentifier, SIGKILL)
                        process.waitUntilExit()
                        continuation.resume(returning: -1)
                    } else {
                        continuation.resume(returning: process.terminationStatus)
                    }
                }
            }
        }
    }

    static func launch(_ arguments: [String]) throws -> Running {
        guard let executable = Self.executable else {
            throw CocoaError(.fileNoSuchFile)
        }
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        return Running(process: process, output: output)
    }
}
