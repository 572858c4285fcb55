import CocktailDB
import Foundation
import Synchronization

/// Prints progress on standard error twice a second, on one line that it rewrites.
final class ProgressReporter: Sendable {
    private let enabled: Bool
    private let line: @Sendable (_ elapsed: Double) -> String
    private let task = Mutex<Task<Void, Never>?>(nil)

    /// - Parameter line: the progress text, given the seconds since `start()`.
    init(enabled: Bool, line: @escaping @Sendable (_ elapsed: Double) -> String) {
        self.enabled = enabled
        self.line = line
    }

    /// A crawl's progress: facets done, requests, rate, errors, ETA.
    convenience init(progress: CrawlProgress, enabled: Bool) {
        self.init(enabled: enabled) { elapsed in
            let s = progress.snapshot
            let rate = elapsed > 0 ? Double(s.requestsDone) / elapsed : 0
            var eta = ""
            if s.facetsDone > 0 && s.facetsTotal > s.facetsDone {
                let remaining = elapsed / Double(s.facetsDone) * Double(s.facetsTotal - s.facetsDone)
                eta = String(format: ", ETA %.0f s", remaining)
            }
            return String(
                format: "facets %d/%d · requests %d done, %d queued · %.0f req/s · %d errors%@",
                s.facetsDone, s.facetsTotal, s.requestsDone, s.requestsQueued, rate, s.errors, eta)
        }
    }

    func start() {
        guard self.enabled else {
            return
        }
        let line = self.line
        let started = Date()
        let task = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let text = line(Date().timeIntervalSince(started))
                FileHandleOutput.standardError.write("\r\u{1B}[K " + text)
            }
        }
        self.task.withLock { $0 = task }
    }

    func stop() {
        guard let task = self.task.withLock({ $0 }) else {
            return
        }
        task.cancel()
        FileHandleOutput.standardError.write("\r\u{1B}[K")
    }
}
