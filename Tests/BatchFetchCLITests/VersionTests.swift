import BatchFetch
import Foundation
import TestSupport
import Testing

/// `batchfetch --version` says what a bug report needs.
struct VersionTests {
    @Test func versionNamesBatchfetchLibcurlTLSHTTP2AndDecoders() throws {
        let output = try Executable("batchfetch").run(["--version"])
        #expect(output.status == 0)
        let lines = output.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == "batchfetch \(BatchFetch.version)")
        // The libcurl it runs with is the one libcurl itself reports (`libcurl/X.Y.Z …`).
        let running = BatchFetch.libcurlVersion.split(separator: " ").first?.split(separator: "/").last
        #expect(lines.contains { $0.hasPrefix("libcurl \(running ?? "?") (built against ") })
        #expect(lines.contains { $0.hasPrefix("TLS: ") })
        #expect(lines.contains { $0.hasPrefix("HTTP/2: ") })
        #expect(lines.contains { $0.hasPrefix("decoders: ") && $0.contains("gzip") })
    }
}
