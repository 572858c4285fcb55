import Foundation

/// `scripts/warc-check` run from the tests, for ``OutsideReader`` and ``ReplayReader``: its
/// standard output, or why it could not run. The script runs from the package root, found from
/// this file's path (`Tests/TestSupport/WARCCheckScript.swift`); it blocks while the readers run.
package enum WARCCheckScript {
    /// A reader could not be installed: the script said `warc-check: SKIPPED: …` and exited 3.
    package struct Unavailable: Error, CustomStringConvertible {
        package let description: String
    }

    /// The script failed, or what it printed is not what was asked for: a test that needed it fails.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
    }

    /// With `BATCHFETCH_WARC_READERS_REQUIRED=1` in the environment, a reader that cannot be
    /// installed fails the test instead of skipping it (for a machine where pip is known to work).
    package static var required: Bool {
        ProcessInfo.processInfo.environment["BATCHFETCH_WARC_READERS_REQUIRED"] == "1"
    }

    package static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The script's standard output for `arguments`, `input` on its standard input (a few hundred
    /// bytes at most, which a pipe takes without a reader).
    /// - Throws: ``Unavailable`` when it said SKIPPED; ``Failure`` for any other non-zero exit.
    package static func run(_ arguments: [String], input: String = "") throws -> String {
        let process = Process()
        process.executableURL = self.root.appendingPathComponent("scripts/warc-check")
        process.arguments = arguments
        // Standard error to a file: read after the exit, it cannot fill a pipe and stall the script.
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent(
            "warc-check-\(UUID().uuidString).err")
        guard FileManager.default.createFile(atPath: errors.path, contents: nil) else {
            throw Failure(description: "cannot create \(errors.path)")
        }
        defer { try? FileManager.default.removeItem(at: errors) }
        let errorHandle = try FileHandle(forWritingTo: errors)
        defer { try? errorHandle.close() }
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardError = errorHandle
        process.standardInput = stdin
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let data = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        if process.terminationStatus == 3, text.hasPrefix("warc-check: SKIPPED") {
            throw Unavailable(description: text.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard process.terminationStatus == 0 else {
            let said = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            throw Failure(
                description: "scripts/warc-check \(arguments.first ?? "") failed with status "
                    + "\(process.terminationStatus): \(text)\(said)")
        }
        return text
    }
}
