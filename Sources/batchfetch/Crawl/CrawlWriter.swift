import BatchFetch
import CocktailDB
import Dispatch
import Foundation
import Synchronization

/// Writes each facet as soon as it is emitted, in pieces of about ``CrawlOutput/chunkSize`` (a facet
/// of full records can be tens of megabytes), so an interrupted run leaves only complete lines
/// (Ctrl-C takes effect between facets) or, when killed mid-write, one torn last line, which
/// `--resume` discards.
final class CrawlWriter: Sendable {
    private struct State {
        var output: CrawlOutput
        /// Reused from facet to facet: it keeps its capacity of about one chunk.
        var buffer = JSONBytes()
    }

    private let state: Mutex<State>
    private let file: FileHandleOutput
    /// Writes the chunks while the next ones are encoded.
    private let queue: QueuedOutput

    init(output: CrawlOutput, file: FileHandleOutput) {
        self.state = Mutex(State(output: output))
        self.file = file
        self.queue = QueuedOutput(file: file)
    }

    deinit {
        self.queue.close()
    }

    func header() {
        self.state.withLock { state in
            state.buffer.buffer = state.output.header()
            self.drain(&state.buffer)
        }
    }

    func write(_ result: FacetResult) {
        self.state.withLock { state in
            state.output.facet(result, into: &state.buffer) { self.drain(&$0) }
            self.drain(&state.buffer)
        }
    }

    /// Writes the footer and everything still queued, then syncs the file.
    /// The images noted for `--thumbnails`, once every facet is written.
    var thumbnails: ThumbnailPlan? {
        self.state.withLock { $0.output.thumbnails }
    }

    func finish() {
        self.state.withLock { state in
            state.buffer.buffer = state.output.footer()
            self.drain(&state.buffer)
        }
        self.queue.close()
        self.file.flush()
    }

    private func drain(_ json: inout JSONBytes) {
        self.queue.write(&json.buffer)
    }
}
