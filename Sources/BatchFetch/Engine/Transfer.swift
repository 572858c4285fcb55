/// One request on its way through the engine: queued, in flight, or waiting to be retried.
///
/// Several identical requests may share one transfer (de-duplication); each keeps its own
/// ``Waiter`` so each gets a result under its own index. The first waiter's result carries the
/// attempts; the others' say whose transfer answered them (``FetchResult/sharedWith``).
///
/// Threading: engine thread only.
final class Transfer {
    let request: Request
    /// The request's hash, its key in the de-duplication table (`nil` when de-duplication is off).
    let hash: Int?
    let submittedAt: UInt64
    var waiters: [Waiter]
    /// Attempts started so far.
    var attempts = 0
    /// When the first attempt started; 0 until then.
    var startedAt: UInt64 = 0
    /// Connections its attempts opened, failed ones included.
    var newConnections = 0
    /// The easy handle carrying the current attempt, while one is in flight: the engine loop's
    /// link from a transfer its state machine stops to the handle to take out of the multi handle.
    var easy: CurlEasy?
    /// Where ``EngineLoop/StateMachine/running`` holds this transfer while an attempt is in flight;
    /// -1 otherwise. Finishing a transfer then costs a swap, not a search.
    var runningSlot = -1
    /// Whether the state machine's table (``EngineLoop/StateMachine/byRequest``) holds this
    /// transfer under ``hash``: taking it out then costs no lookup when it is not there.
    var isIndexed = false
    /// The final outcome, while the transfer stays in the table after finishing to answer later
    /// identical requests (``ReplayCache``).
    var replayOutcome: Result<Response, FetchError>?
    /// The index and tag of the waiter whose result carried the attempts (the first one still
    /// waiting when it finished): the results it answers for others name it
    /// (``FetchResult/sharedWith``). -1 until it finished.
    var ownerIndex = -1
    var ownerTag: Int?
    /// What the engine gathered about the transfer, when it gathers anything
    /// (``Engine/Configuration/details``): made by the first attempt to end.
    var details: TransferDetails?

    init(request: Request, hash: Int?, waiter: Waiter, submittedAt: UInt64) {
        self.request = request
        self.hash = hash
        self.waiters = [waiter]
        self.submittedAt = submittedAt
    }

    /// A helper of a split download (``SplitDownload``): `parent`'s request for a later byte
    /// range, with no waiters (its bytes go to the parent's result) and no place in the
    /// de-duplication table.
    init(helperOf parent: Transfer, submittedAt: UInt64) {
        self.request = parent.request
        self.hash = nil
        self.waiters = []
        self.submittedAt = submittedAt
        self.budget = parent.budget
    }

    /// The byte range of a split download (`--split-min`) this transfer receives; `nil` for a
    /// download in one piece.
    var part: SplitPart?

    /// Whether this attempt is its host's probe (``HostHealth``): its outcome says whether a
    /// suspect host is down.
    var isProbe = false
    /// What an attempt that broke off mid-body had received, for its retry to go on from.
    var resume: ResumePoint?
    /// Its host's budgets, once looked up (``HostBudgets/host(of:now:)``).
    var budget: HostBudgets.Host?
    /// Set on an origin's preflight (``OriginGate``): whose, and which hop.
    var preflight: Preflight?
    /// Its origin's rules let it go: later admissions (after a wait for a token, a retry) do not
    /// ask again.
    var passedGate = false

    struct Preflight {
        let origin: String
        let hop: Int
    }

    /// The URL's host (``HostKey``): the key for per-host pauses after `Retry-After`, host
    /// budgets and host health. Found once: every admission and completion asks for it.
    private(set) lazy var hostKey: Substring = HostKey.of(self.request.url)
}

@available(*, unavailable)
extension Transfer: Sendable {}

/// A consumer waiting for a transfer's result: where to deliver it, and under which index.
struct Waiter {
    let sink: ResultSink
    let index: Int
    /// The submitted request's ``Request/tag``.
    let tag: Int?
    /// What the engine's store needs to complete the result, when it let the request through.
    let ticket: (any StoreTicket)?

    init(_ submission: EngineCore.Submission, ticket: (any StoreTicket)? = nil) {
        self.init(sink: submission.sink, index: submission.index, tag: submission.request.tag, ticket: ticket)
    }

    init(sink: ResultSink, index: Int, tag: Int?, ticket: (any StoreTicket)?) {
        self.sink = sink
        self.index = index
        self.tag = tag
        self.ticket = ticket
    }
}

/// A transfer waiting on the engine's timer heap for its retry (or for its host's `Retry-After`).
struct ScheduledTransfer: Comparable {
    let due: UInt64
    let sequence: UInt64
    let transfer: Transfer

    static func < (lhs: ScheduledTransfer, rhs: ScheduledTransfer) -> Bool {
        (lhs.due, lhs.sequence) < (rhs.due, rhs.sequence)
    }

    static func == (lhs: ScheduledTransfer, rhs: ScheduledTransfer) -> Bool {
        lhs.sequence == rhs.sequence
    }
}

/// Finished transfers the replay cache let go, on their way to a consumer's thread to be freed.
///
/// A transfer is the engine thread's while the engine can reach it. One the replay cache let go is
/// out of the table and the cache's order and in no queue: nothing on the engine thread refers to
/// it any more, and what it holds (its request and outcome, no waiters, no easy handle) may be
/// released on any thread. Hence the unchecked conformance, for this hand-over only.
struct RetiredTransfers: @unchecked Sendable {
    var transfers: [Transfer] = []
}
