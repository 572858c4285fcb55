/// An iterator over a batch's results (``FetchResults``, ``AsyncFetchResults``).
public protocol BatchResultsIterator: AsyncIteratorProtocol where Element == FetchResult, Failure == Never {
    /// How many results ``next()`` can return without waiting; a writer flushes its output when
    /// this is 0, so records reach a pipe promptly without a write per record.
    var readyCount: Int { get }

    /// The next result; `nil` at the end of the batch.
    mutating func next() async -> FetchResult?
}

/// The results of one batch, in completion order or in input order, as an `AsyncSequence`.
///
/// Iterating it drives the batch: requests are read from the input only as the consumer takes
/// results, at most ``Engine/Configuration/readAhead`` ahead. In input order, a ``Reassembler``
/// also keeps the input from running more than its window past the oldest result not yet
/// emitted, and stops reading while the results waiting for it hold more than
/// ``Engine/Configuration/reorderBufferBytes`` of bodies, so one slow request stalls reading
/// instead of growing memory. Iterate it once, from one task.
public struct FetchResults<Requests: Sequence<Request>>: AsyncSequence {
    public typealias Element = FetchResult
    public typealias Failure = Never

    let engine: Engine
    let requests: Requests
    /// The reassembly window in input order; `nil` for completion order.
    let orderWindow: Int?

    public func makeAsyncIterator() -> Iterator {
        var input = self.requests.makeIterator()
        return Iterator(base: BatchIterator(engine: self.engine, orderWindow: self.orderWindow) { input.next() })
    }

    /// Iterates a batch. Dropping the iterator before the end cancels what is still outstanding.
    public struct Iterator: BatchResultsIterator {
        // All state lives in a non-generic type: this library's generic code is not specialised
        // for the caller's sequence type, and every step through a generic iterator's stored
        // properties looked its metadata up at run time.
        var base: BatchIterator

        /// How many results ``next()`` can return without waiting; a writer flushes its output when
        /// this is 0, so records reach a pipe promptly without a write per record.
        public var readyCount: Int { self.base.received.ready.count }

        public mutating func next() async -> FetchResult? {
            await self.base.next()
        }
    }
}

/// The state and steps of iterating one batch, with the input read through a closure.
struct BatchIterator {
    private let core: EngineCore
    private let maxURLLength: Int
    /// The read-ahead: ``Engine/Configuration/readAhead``, or without one 4 × the in-flight cap,
    /// growing up to ``maxReadAhead`` while bodies are small (see ``currentReadAhead``).
    private let readAhead: Int
    private let maxReadAhead: Int
    /// Body bytes the read-ahead may grow to hold: ``readAheadBytes``, and in input order no more
    /// than the reorder buffer's budget, which a caller sets to bound what waits.
    private let growthBytes: Int
    /// Body bytes and bodies received so far, for their mean size.
    private var bodyBytes = 0
    private var bodies = 0
    private let refillThreshold: Int
    private let batch: BatchGuard
    /// ``Engine/Configuration/yieldsAnsweredOnCancel``.
    private let yieldsAnsweredOnCancel: Bool
    private let input: () -> Request?
    private var inputExhausted = false
    private var nextIndex = 0
    /// Submitted to the engine and not yet received back.
    private var outstanding = 0
    private(set) var received: ReceivedResults

    init(engine: Engine, orderWindow: Int?, input: @escaping () -> Request?) {
        let budget = engine.configuration.reorderBufferBytes
        self.received = ReceivedResults(engine: engine, orderWindow: orderWindow)
        self.core = engine.core
        self.maxURLLength = engine.configuration.maxURLLength
        self.readAhead = engine.configuration.effectiveReadAhead
        // With per-host budgets a list sorted by host keeps every host busy only if the engine
        // sees past the current host: read much further ahead, still within the body-byte bound.
        let deepest =
            engine.configuration.hostLimits == nil ? 4 * self.readAhead : Swift.max(4 * self.readAhead, 16_384)
        self.maxReadAhead = engine.configuration.readAhead == nil ? deepest : self.readAhead
        self.growthBytes = orderWindow == nil ? Self.readAheadBytes : Swift.min(Self.readAheadBytes, budget)
        // Refill in chunks, so a consumer taking one result at a time does not cost one
        // cross-thread hand-over and wake-up per request.
        self.refillThreshold = Swift.max(1, self.readAhead / 8)
        self.batch = BatchGuard(core: engine.core)
        self.yieldsAnsweredOnCancel = engine.configuration.yieldsAnsweredOnCancel
        self.input = input
    }

    mutating func next() async -> FetchResult? {
        while true {
            self.refill()
            if let result = self.received.popFirst() {
                return result
            }
            if self.outstanding == 0 {
                // Every result was received and every gap filled, or input order lost one.
                let pending = self.received.order?.pending ?? 0
                precondition(pending == 0, "input order lost results: \(pending) waiting with nothing outstanding")
                self.batch.finished = true
                return nil
            }
            let results = await self.batch.sink.take()
            if results.isEmpty || Task.isCancelled {
                if self.yieldsAnsweredOnCancel {
                    await self.received.receiveLast(results + self.batch.interrupt())
                    self.outstanding = 0
                    self.inputExhausted = true
                    continue
                }
                self.batch.cancel()
                self.outstanding = 0
                self.inputExhausted = true
                self.received.removeAll()
                return nil
            }
            self.outstanding -= results.count
            for result in results {
                if let body = result.response?.body {
                    self.bodyBytes += body.count
                    self.bodies += 1
                }
            }
            self.received.receive(results)
        }
    }

    /// Bytes of bodies the read-ahead may grow to hold, judged by their mean size so far.
    static let readAheadBytes = 64 << 20

    /// The read-ahead for the next refill: the base one, or while that many bodies of the mean
    /// size so far stay within ``growthBytes``, more, up to ``maxReadAhead``. A deeper queue
    /// keeps the engine busy while the consumer works through a burst of large bodies, and the
    /// byte bound keeps what waits for a slow reader where the base read-ahead of larger bodies
    /// would put it.
    private var currentReadAhead: Int {
        guard self.maxReadAhead > self.readAhead, self.bodies > 0 else {
            return self.readAhead
        }
        let mean = Swift.max(1, self.bodyBytes / self.bodies)
        return Swift.min(self.maxReadAhead, Swift.max(self.readAhead, self.growthBytes / mean))
    }

    /// The most requests a batch has outstanding however many wait at their hosts.
    static let maxOutstanding = 16_384

    private mutating func refill() {
        // Requests waiting in their hosts' queues (a dead or slow host's, beyond its share) do not
        // count against the read-ahead, up to a bound: else they fill it, and the other hosts run
        // dry while the list waits to be read.
        let waiting = Swift.min(self.core.waitingAtHosts.load(ordering: .relaxed), self.outstanding)
        var room = Swift.min(
            self.currentReadAhead - (self.outstanding - waiting), Self.maxOutstanding - self.outstanding)
        if let order = self.received.order {
            room = order.isOverBudget ? 0 : Swift.min(room, order.limit - self.nextIndex)
        }
        guard !self.inputExhausted,
            room >= self.refillThreshold || (self.outstanding == 0 && self.received.ready.isEmpty)
        else {
            return
        }
        var submissions: [EngineCore.Submission] = []
        submissions.reserveCapacity(Swift.max(room, 1))
        let now = MonotonicClock.now()
        var taken = 0
        while taken < Swift.max(room, 1) {
            guard let request = self.input() else {
                self.inputExhausted = true
                break
            }
            taken += 1
            let index = self.nextIndex
            self.nextIndex += 1
            if let error = request.validate(maxURLLength: self.maxURLLength) {
                // In input order it waits its turn like any other result.
                self.received.insert([
                    ReceivedResults.refusal(of: request, index: index, error: error, store: self.received.store)
                ])
            } else {
                submissions.append(
                    EngineCore.Submission(request: request, index: index, sink: self.batch.sink, submittedAt: now))
            }
        }
        self.outstanding += submissions.count
        self.core.submit(submissions)
    }
}

/// Cancels a batch's outstanding transfers when its iterator goes away before the end.
final class BatchGuard {
    let sink = ResultSink()
    private let core: EngineCore
    var finished = false

    init(core: EngineCore) {
        self.core = core
    }

    func cancel() {
        guard !self.finished else {
            return
        }
        self.finished = true
        self.sink.cancel()
        self.core.cancel(self.sink)
    }

    /// Stops the batch keeping what was answered: the engine drops its transfers, answering each
    /// request they leave as `interrupted`. - Returns: everything the engine then held for it.
    func interrupt() async -> [FetchResult] {
        guard !self.finished else {
            return []
        }
        self.finished = true
        self.sink.interrupt()
        if !self.core.cancel(self.sink) {
            self.sink.interruptionDone()
        }
        return await self.sink.takeInterrupted()
    }

    deinit {
        self.cancel()
    }
}
