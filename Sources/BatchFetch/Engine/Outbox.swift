/// Results the engine thread has collected and not yet handed over, in the order they finished,
/// with the sinks they go to.
///
/// Results are kept in one array of their own and handed over as that array, not copied out of
/// (sink, result) pairs: a copy of a ``FetchResult`` retains each of its references and
/// destroying the original releases them again, a dozen reference-count operations a result on
/// the engine thread, on objects the consumer's core reads next. A sink is stored once per run
/// of results for it; one batch at a time (the usual case) is one run.
///
/// Threading: engine thread only, like the state machine that owns it.
struct Outbox {
    private var results: [FetchResult] = []
    /// Where each run of results for one sink starts in `results`.
    private var runs: [(sink: ResultSink, start: Int)] = []

    var count: Int { self.results.count }
    var isEmpty: Bool { self.results.isEmpty }
    /// The sink of the latest result.
    var lastSink: ResultSink? { self.runs.last?.sink }

    mutating func append(_ sink: ResultSink, _ result: consuming FetchResult) {
        if self.runs.last?.sink !== sink {
            self.runs.append((sink, self.results.count))
        }
        self.results.append(result)
    }

    /// Hands everything over, one call per run, and empties the outbox. A single run goes as the
    /// array itself; several (batches sharing the engine) as slices copied out of it.
    mutating func drain(_ deliver: (ResultSink, [FetchResult]) -> Void) {
        guard let first = self.runs.first else {
            return
        }
        if self.runs.count == 1 {
            var all: [FetchResult] = []
            all.reserveCapacity(self.results.count)
            swap(&all, &self.results)
            self.runs.removeAll(keepingCapacity: true)
            deliver(first.sink, all)
            return
        }
        for (number, run) in self.runs.enumerated() {
            let end = number + 1 < self.runs.count ? self.runs[number + 1].start : self.results.count
            deliver(run.sink, Array(self.results[run.start..<end]))
        }
        self.results.removeAll(keepingCapacity: true)
        self.runs.removeAll(keepingCapacity: true)
    }
}
