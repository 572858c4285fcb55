import AsyncHTTPClient
import Foundation
import NIOCore

/// `ahc-fetch -i LIST [-c N]`: fetches every URL of LIST (one per line) with async-http-client,
/// at most N (default 64) in flight, and parses each body with JSONSerialization — the way a
/// Swift server user would write a batch fetcher without batchfetch. Bodies are then dropped.
/// Prints one summary line to standard error; exits 1 when any request failed.
@main
struct AHCFetch {
    struct Outcome: Sendable {
        var ok: Bool
        var bytes: Int
    }

    static func main() async throws {
        var listPath: String?
        var concurrency = 64
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "-i": listPath = arguments.next()
            case "-c": concurrency = Int(arguments.next() ?? "") ?? 0
            default:
                FileHandle.standardError.write(Data("usage: ahc-fetch -i LIST [-c N]\n".utf8))
                exit(2)
            }
        }
        guard let listPath, concurrency > 0, let text = try? String(contentsOfFile: listPath, encoding: .utf8) else {
            FileHandle.standardError.write(Data("usage: ahc-fetch -i LIST [-c N]\n".utf8))
            exit(2)
        }
        let urls = text.split(separator: "\n").map(String.init)

        var configuration = HTTPClient.Configuration()
        configuration.httpVersion = .http1Only
        // One connection per in-flight request, as curl --parallel-max and batchfetch -c do.
        configuration.connectionPool = .init(
            idleTimeout: .seconds(60),
            concurrentHTTP1ConnectionsPerHostSoftLimit: concurrency
        )
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)

        var ok = 0
        var failed = 0
        var bytes = 0
        await withTaskGroup(of: Outcome.self) { group in
            var next = 0
            func submit() {
                let url = urls[next]
                next += 1
                group.addTask { await Self.fetch(url, with: client) }
            }
            while next < min(concurrency, urls.count) {
                submit()
            }
            while let outcome = await group.next() {
                if outcome.ok { ok += 1 } else { failed += 1 }
                bytes += outcome.bytes
                if next < urls.count {
                    submit()
                }
            }
        }
        try await client.shutdown()
        FileHandle.standardError.write(Data("ahc-fetch: \(ok) ok, \(failed) failed, \(bytes) body bytes\n".utf8))
        if failed > 0 {
            exit(1)
        }
    }

    static func fetch(_ url: String, with client: HTTPClient) async -> Outcome {
        do {
            let response = try await client.execute(HTTPClientRequest(url: url), timeout: .seconds(30))
            let body = try await response.body.collect(upTo: 64 << 20)
            let data = Data(body.readableBytesView)
            _ = try JSONSerialization.jsonObject(with: data)
            return Outcome(ok: (200..<300).contains(Int(response.status.code)), bytes: data.count)
        } catch {
            return Outcome(ok: false, bytes: 0)
        }
    }
}
