import Foundation
import TestSupport
import Testing

@testable import BatchFetch

/// What ``Engine/shutdown()`` promises a caller that goes on to exit the process.
extension EngineTests {
    /// The engine thread's loop, and with it the multi handle, the share and every easy handle, is
    /// released before the thread says it exited. It used to be released after: `shutdown()`
    /// returned while `curl_multi_cleanup` still ran, and `fetch` went on to `exit()` beside it.
    @Test func shutdownReturnsOnlyOnceTheEngineThreadReleasedItsLibcurlHandles() async throws {
        try await TestHTTPServer.with { server in
            let engine = try Engine(configuration: .testing())
            let result = await engine.fetch(Request("\(server.baseURL)/ok"))
            #expect(result.response?.status == 200)
            await engine.shutdown()
            #expect(!engine.core.exitedWithLibcurlHandlesAlive)
        }
    }

    /// The engine thread carries its name where `top -H`, perf and crash reports read it (Linux's
    /// `comm`), not the name of the dispatch worker that started it.
    @Test func theEngineThreadCarriesItsName() async throws {
        let engine = try Engine(configuration: .testing())
        let tasks = try FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")
        let names = tasks.compactMap {
            try? String(contentsOfFile: "/proc/self/task/\($0)/comm", encoding: .utf8)
                .trimmingCharacters(in: .newlines)
        }
        #expect(names.contains(Engine.threadName), "threads: \(names)")
        await engine.shutdown()
    }
}
