import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// JSON request lines at the sizes an input can reach: a body file of hundreds of megabytes
/// streams in constant memory, and a 10 MB line is one request like any other.
@Suite(.serialized)
struct HostileRequestTests {
    /// Runs `batchfetch ARGS` under python3, which reports the peak resident set of its only
    /// child (`ru_maxrss` of `RUSAGE_CHILDREN`, in KiB) as the last line of standard output.
    private func measured(_ arguments: [String], stdin: String) async throws -> (Executable.Output, Int) {
        let script = """
            import resource, subprocess, sys
            code = subprocess.run(sys.argv[1:]).returncode
            sys.stdout.flush()
            print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
            sys.exit(code)
            """
        let binary = try Executable.batchfetch().url.path
        let output = try await Executable(path: "/usr/bin/env").runOffPool(
            ["python3", "-c", script, binary] + arguments, stdin: stdin, deadline: 300)
        let peak = output.stdout.split(separator: "\n").last.flatMap { Int($0) } ?? -1
        return (output, peak)
    }

    /// A sparse file of 256 MiB (zeros that take no disk) as a `body_file`: the server counts every
    /// byte, and the command's peak memory stays that of a small batch, a quarter of the body.
    /// (1 GiB streams the same way, in the same memory, but the debug test server's seconds of
    /// CPU to take it in starved the timing tests that run beside it.)
    @Test func aLargeBodyFileStreamsInConstantMemory() async throws {
        let directory = try ScratchDirectory("hostile-body-file")
        let path = directory.path("sparse.bin")
        let size = 256 << 20
        let descriptor = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        #expect(descriptor >= 0)
        #expect(ftruncate(descriptor, off_t(size)) == 0)
        close(descriptor)
        try await TestHTTPServer.with { server in
            let line = #"{"url":"\#(server.baseURL)/request","body_file":"\#(path)","id":"big"}"#
            let (output, peakKiB) = try await self.measured(
                ["fetch", "-q", "--retries", "0", "--timeout", "240", "--body", "none"], stdin: line + "\n")
            #expect(output.status == 0, "\(output)")
            #expect(output.stdout.contains(#""id":"big""#) && output.stdout.contains(#""ok":true"#), "\(output)")
            let arrival = try #require(server.arrivals.first)
            #expect(arrival.bodyBytes == size)
            #expect(arrival.head.contains("Content-Length: \(size)"))
            #expect(peakKiB > 0 && peakKiB < 64 * 1024, "peak RSS \(peakKiB) KiB for a 256 MiB body")
        }
    }

    /// One line of 10 MB (a `body_text`) beside small ones: its request is sent whole, and the
    /// lines around it are read as usual.
    @Test func aTenMegabyteLineIsOneRequest() async throws {
        try await TestHTTPServer.with { server in
            let url = "\(server.baseURL)/request"
            let big = String(repeating: "y", count: 10 << 20)
            let input = [
                "\(url)?before",
                #"{"url":"\#(url)?big","body_text":"\#(big)","id":1}"#,
                "\(url)?after",
            ].joined(separator: "\n")
            let (output, _) = try await self.measured(
                ["fetch", "-q", "--retries", "0", "--body", "none"], stdin: input)
            #expect(output.status == 0, "\(output.summary)")
            let records = output.stdout.split(separator: "\n").dropLast()
            #expect(records.count == 3)
            #expect(records[1].hasPrefix(#"{"index":1,"id":1,"url":"#))
            let arrival = try #require(server.arrivals.first { $0.target.hasSuffix("?big") })
            #expect(arrival.bodyBytes == big.utf8.count)
            #expect(server.snapshot.requests == 3)
        }
    }
}
