/// The results of a batch whose requests come from an `AsyncSequence`, such as lines arriving on
/// a pipe: results flow while the input is still being produced.
///
/// A feeder task reads the input and hands each request to the engine as soon as it arrives,
/// as long as it holds a credit; the consumer returns credits as it takes results (completion
/// order) or as results are emitted (input order), so memory stays bounded however fast the
/// input is and however slow the consumer. Iterate it once, from one task.
public struct AsyncFetchResults<Input: AsyncSequence & Sendable>: AsyncSequence where Input.Element == Request {
    public typealias Element = FetchResult
    public typealias Failure = Never

    let engine: Engine
    let input: Input
    let orderWindow: Int?

    public func makeAsyncIterator() -> Iterator {
        Iterator(engine: self.engine, input: self.input, orderWindow: self.orderWindow)
    }

    /// Iterates the batch. Dropping it before the end cancels the feeder and outstanding transfers.
    public struct Iterator: BatchResultsIterator {
        private let batch: BatchGuard
        private let credits: Credits
        private let feederGuard: FeederGuard
        private var receivedCount = 0
        private var received: ReceivedResults
        /// ``Engine/Configuration/yieldsAnsweredOnCancel``.
        private let yieldsAnsweredOnCancel: Bool

        init(engine: Engine, input: Input, orderWindow: Int?) {
            self.yieldsAnsweredOnCancel = engine.configuration.yieldsAnsweredOnCancel
            let batch = BatchGuard(core: engine.core)
            // A credit comes back when its result is received; in input order, the gate also keeps
            // the input within the reorder window and pauses it over the byte budget.
            let credits = Credits(engine.configuration.effectiveReadAhead)
            let sink = batch.sink
            let core = engine.core
            let maxURLLength = engine.configuration.maxURLLength
            self.batch = batch
            self.credits = credits
            self.received = ReceivedResults(engine: engine, orderWindow: orderWindow)
            if let order = self.received.order {
                credits.gate(limit: order.limit, paused: false)
            }
            let store = engine.store
            let feeder = Task {
                var index = 0
                do {
                    for try await request in input {
                        guard await credits.acquire(index: index), !Task.isCancelled else {
                            break
                        }
                        if let error = request.validate(maxURLLength: maxURLLength) {
                            sink.deliver([
                                ReceivedResults.refusal(of: request, index: index, error: error, store: store)
                            ])
                        } else {
                            let submission = EngineCore.Submission(
                                request: request, index: index, sink: sink, submittedAt: MonotonicClock.now())
                            core.submit([submission])
                        }
                        index += 1
                    }
                } catch {
                    // An input that fails ends the batch after what it produced; the failure is the
                    // producer's to report (e.g. an unreadable file), not a request's.
                }
                sink.inputEnded(total: index)
            }
            self.feederGuard = FeederGuard(feeder: feeder, credits: credits, core: core)
        }

        /// How many results ``next()`` can return without waiting; a writer flushes its output when
        /// this is 0, so records reach a pipe promptly without a write per record.
        public var readyCount: Int { self.received.ready.count }

        public mutating func next() async -> FetchResult? {
            while true {
                if let result = self.received.popFirst() {
                    return result
                }
                if let total = self.batch.sink.inputTotal, self.receivedCount >= total {
                    self.batch.finished = true
                    return nil
                }
                let results = await self.batch.sink.take()
                if Task.isCancelled {
                    if self.yieldsAnsweredOnCancel, !self.batch.finished {
                        // The feeder first: what it hands over afterwards the engine drops unsent.
                        self.feederGuard.stop()
                        self.received.receiveLast(results + (await self.batch.interrupt()))
                        continue
                    }
                    self.batch.cancel()
                    self.feederGuard.stop()
                    return nil
                }
                let count = results.count
                self.receivedCount += count
                self.received.receive(results)
                if let order = self.received.order {
                    self.credits.gate(limit: order.limit, paused: order.isOverBudget, releasing: count)
                } else {
                    self.credits.release(count)
                }
            }
        }
    }
}

/// Stops the feeder when the iterator goes away; meanwhile the engine lends its credits one for each
/// request waiting at its host, so that a dead host's waiting requests do not stop the input.
final class FeederGuard: Sendable {
    private let feeder: Task<Void, Never>
    private let credits: Credits
    private let core: EngineCore

    init(feeder: Task<Void, Never>, credits: Credits, core: EngineCore) {
        self.feeder = feeder
        self.credits = credits
        self.core = core
        core.register(credits, for: self)
    }

    func stop() {
        self.core.unregister(self)
        self.feeder.cancel()
        self.credits.close()
    }

    deinit {
        self.stop()
    }
}

extension Engine {
    /// Fetches requests as an asynchronous input produces them (a pipe, a socket, another batch's
    /// results), yielding results in completion order while the input is still open.
    public func results<Input: AsyncSequence & Sendable>(streaming input: Input) -> AsyncFetchResults<Input>
    where Input.Element == Request {
        AsyncFetchResults(engine: self, input: input, orderWindow: nil)
    }

    /// Like ``results(streaming:)``, in input order, reading at most `window` requests past the
    /// oldest result not yet yielded (default ``Configuration/reorderWindow``), and none while the
    /// results waiting for it hold more than ``Configuration/reorderBufferBytes`` of bodies.
    public func orderedResults<Input: AsyncSequence & Sendable>(
        streaming input: Input, window: Int? = nil
    ) -> AsyncFetchResults<Input> where Input.Element == Request {
        AsyncFetchResults(
            engine: self, input: input, orderWindow: Swift.max(window ?? self.configuration.effectiveReorderWindow, 1))
    }
}
