import CocktailDB
import Foundation
import Synchronization

/// Prints a crawl's progress on standard error twice a second, on one line.
final class ProgressReporter: Sendable {
    private let progress: CrawlProgress
    private let enabled: Bool
    private let task = Mutex<Task<Void, Never>?>(nil)

    init(progress: CrawlProgress, enabled: Bool) {
        self.progress = progress
        self.enabled = enabled
    }

    func start() {
        guard self.enabled else {
            return
        }
        let progress = self.progress
        let started = Date()
        let task = Task.detached {
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(500))
                let s = progress.snapshot
                let elapsed = Date().timeIntervalSince(started)
                let rate = elapsed > 0 ? Double(s.requestsDone) / elapsed : 0
                var eta = ""
                if s.facetsDone > 0 && s.facetsTotal > s.facetsDone {
                    let remaining = elapsed / Double(s.facetsDone) * Double(s.facetsTotal - s.facetsDone)
                    eta = String(format: ", ETA %.0f s", remaining)
                }
                let line = String(
                    format: "\r\u{1B}[K facets %d/%d · requests %d done, %d queued · %.0f req/s · %d errors%@",
                    s.facetsDone, s.facetsTotal, s.requestsDone, s.requestsQueued, rate, s.errors, eta)
                FileHandleOutput.standardError.write(line)
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
