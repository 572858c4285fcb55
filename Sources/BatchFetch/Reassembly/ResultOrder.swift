import DequeModule

/// Puts a batch's results back into input order, and counts the body bytes of those waiting for
/// an earlier one, so a batch iterator can pause reading when they hold too much.
///
/// The count window alone cannot bound memory and keep transfers going at once: it must be wide
/// enough that one slow request does not stop the engine (many times the cap), and that many
/// 64 KB bodies would be hundreds of megabytes. The byte budget stops reading once the waiting
/// results hold that much, whatever their number.
///
/// Threading: owned by one batch iterator.
struct ResultOrder {
    private var reassembler: Reassembler<FetchResult>
    /// Body bytes of the results inserted and not yet emitted.
    private(set) var heldBytes = 0
    private let byteBudget: Int

    init(window: Int, byteBudget: Int) {
        self.reassembler = Reassembler(window: window)
        self.byteBudget = max(0, byteBudget)
    }

    /// The first index that may not be requested yet.
    var limit: Int { self.reassembler.limit }

    /// How many results wait for an earlier one.
    var pending: Int { self.reassembler.pending }

    /// Whether the waiting results hold more body bytes than the budget: read no more requests
    /// until the one they wait for arrives. Never true when nothing waits, so a paused reader
    /// always has an outstanding request to wait for.
    var isOverBudget: Bool { self.heldBytes > self.byteBudget }

    /// Inserts results that arrived in any order, and appends those now ready to `ready`, in
    /// input order. Results are moved from `results` (left empty) through the reassembler into
    /// `ready`, never copied: a copy retains every reference a result holds.
    mutating func insert(_ results: inout [FetchResult], readyInto ready: inout Deque<FetchResult>) {
        // From the back: popping the last element moves it out (the reassembler's slots take
        // any order).
        while let result = results.popLast() {
            let index = result.index
            self.heldBytes += result.bodyByteCount
            do throws(Reassembler<FetchResult>.InsertError) {
                try self.reassembler.insert(result, at: index)
            } catch {
                // The iterators never request past `limit` and the engine answers each index once.
                preconditionFailure("result \(index) outside the reassembly window: \(error)")
            }
        }
        while let result = self.reassembler.popNext() {
            self.heldBytes -= result.bodyByteCount
            ready.append(result)
        }
    }

    /// Appends every result still waiting to `ready`, in input order, each gap before one of them
    /// filled by `gap(index)`: for a batch that stopped early (``Engine/Configuration/yieldsAnsweredOnCancel``).
    mutating func flush(into ready: inout Deque<FetchResult>, gap: (Int) -> FetchResult) {
        while self.reassembler.pending > 0 {
            if let result = self.reassembler.popNext() {
                self.heldBytes -= result.bodyByteCount
                ready.append(result)
            } else {
                ready.append(gap(self.reassembler.next))
                self.reassembler.skipNext()
            }
        }
    }
}

extension FetchResult {
    /// The size of the response body, 0 without a response.
    var bodyByteCount: Int {
        if case .success(let response) = self.outcome {
            return response.body.count
        }
        return 0
    }
}
