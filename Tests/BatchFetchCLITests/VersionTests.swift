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

    @Test func versionNamesTheSIMDLevelWhichBatchfetchSIMDLowersOrCaps() throws {
        let best = SIMDLevel.best.rawValue
        let lines = { (output: Executable.Output) in output.stdout.split(separator: "\n").map(String.init) }
        // Empty counts as unset (the test process may have the variable set).
        let automatic = try Executable("batchfetch").run(["--version"], environment: ["BATCHFETCH_SIMD": ""])
        #expect(lines(automatic).contains { $0.hasPrefix("SIMD: \(best) (the CPU's best") }, "\(automatic.stdout)")
        let scalar = try Executable("batchfetch").run(["--version"], environment: ["BATCHFETCH_SIMD": "scalar"])
        #expect(lines(scalar).contains("SIMD: scalar (BATCHFETCH_SIMD; the CPU's best is \(best))"), "\(scalar.stdout)")
        // The other architecture's level is more than this CPU has: capped at its best.
        let other = SIMDLevel.best == .neon ? "avx2" : "neon"
        let capped = try Executable("batchfetch").run(["--version"], environment: ["BATCHFETCH_SIMD": other])
        #expect(
            lines(capped).contains("SIMD: \(best) (BATCHFETCH_SIMD=\(other) capped: the CPU's best is \(best))"),
            "\(capped.stdout)")
        let unknown = try Executable("batchfetch").run(["--version"], environment: ["BATCHFETCH_SIMD": "avx3"])
        #expect(unknown.status == 2)
        #expect(unknown.stderr.contains("BATCHFETCH_SIMD=avx3 names no SIMD level"), "\(unknown.stderr)")
    }
}
