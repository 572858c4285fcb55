import Foundation
import TestSupport

/// What one `curl` run saw.
struct CurlResult: Sendable {
    /// curl's exit code (0 ok, 18 partial file, 52 empty reply, 56 receive failure, …).
    var exitCode: Int32
    /// The last response's status, 0 when there was none.
    var status: Int
    /// The last response's headers, names lowercased.
    var headers: [String: String]
    /// The body bytes (of all URLs, when several were fetched).
    var body: [UInt8]
    /// Each URL's status, in order (0 where there was no response).
    var statuses: [Int] = []
    /// Each URL's `Content-Type`, in order (`""` when there was none).
    var contentTypes: [String] = []
    /// Each URL's body, in order.
    var bodies: [[UInt8]] = []
    /// Seconds curl took in all.
    var seconds: Double

    var bodyText: String { String(decoding: self.body, as: UTF8.self) }
}

/// Runs the `curl` command-line client: a real, independent HTTP client for the replica's tests.
enum Curl {
    static let isAvailable = FileManager.default.isExecutableFile(atPath: "/usr/bin/curl")

    /// Fetches `urls` in one curl run (so over one keep-alive connection) with `arguments` added.
    static func fetch(_ urls: [String], arguments: [String] = []) async throws -> CurlResult {
        let scratch = try ScratchDirectory("replica-curl")
        let headerFile = URL(fileURLWithPath: scratch.path("headers"))
        let bodyFiles = urls.indices.map { URL(fileURLWithPath: scratch.path("body-\($0)")) }

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        var curlArguments = ["--silent", "--max-time", "10", "--dump-header", headerFile.path]
        curlArguments += ["--write-out", "%{http_code} %{content_type}\n"] + arguments
        for (url, bodyFile) in zip(urls, bodyFiles) {
            curlArguments += ["--output", bodyFile.path, "--globoff", url]
        }
        process.arguments = curlArguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        let started = Date()
        let exitCode: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { process in
                continuation.resume(returning: process.terminationStatus)
            }
            do {
                try process.run()
            } catch {
                process.terminationHandler = nil
                continuation.resume(throwing: error)
            }
        }
        let written = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let lines = written.split(separator: "\n", omittingEmptySubsequences: false).dropLast()
        let statuses = lines.map { line in Int(line.prefix { $0 != " " }) ?? 0 }
        let contentTypes = lines.map { line in String(line.drop { $0 != " " }.dropFirst()) }
        let headerText = (try? String(contentsOf: headerFile, encoding: .utf8)) ?? ""
        let bodies = bodyFiles.map { Array((try? Data(contentsOf: $0)) ?? Data()) }
        _ = consume scratch  // removed only now that curl's files are read
        return CurlResult(
            exitCode: exitCode,
            status: statuses.last ?? 0,
            headers: Self.lastHeaders(headerText),
            body: bodies.flatMap { $0 },
            statuses: statuses,
            contentTypes: contentTypes,
            bodies: bodies,
            seconds: Date().timeIntervalSince(started)
        )
    }

    /// Fetches one URL.
    static func fetch(_ url: String, arguments: [String] = []) async throws -> CurlResult {
        try await self.fetch([url], arguments: arguments)
    }

    private static func lastHeaders(_ text: String) -> [String: String] {
        let blocks = text.replacingOccurrences(of: "\r", with: "").components(separatedBy: "\n\n")
        guard let last = blocks.last(where: { $0.hasPrefix("HTTP/") }) else { return [:] }
        var headers: [String: String] = [:]
        for line in last.split(separator: "\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return headers
    }
}
