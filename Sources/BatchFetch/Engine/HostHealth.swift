/// Which hosts are down: consecutive connect failures (refused, or timed out) make a host *suspect*, one probe a
/// little later confirms it *down*, and from then on its requests fail at once as
/// ``FetchError/Kind/hostUnreachable`` instead of each waiting out its own connect timeouts and
/// retries while the slots they hold starve every other host. A down host is probed again now and
/// then by one of its requests; any answer (whatever its status) brings it back.
///
/// Pure value driven by the state machine's clock in nanoseconds; it holds entries only for hosts
/// that failed lately, so a healthy run pays one `isEmpty` check a request. Threading: engine thread.
struct HostHealth {
    /// What admission does with a request for a host.
    enum Verdict: Equatable {
        /// Send it (``probe`` says it is the host's probe).
        case go(probe: Bool)
        /// Hold it until then: the host is suspect and its probe is due or under way.
        case hold(until: UInt64)
        /// Fail it without sending: the host is down.
        case fail(FetchError)
    }

    enum State: Equatable {
        case up
        /// Failed `HostHealth.threshold` times in a row; one probe goes at `probeAt`.
        case suspect(probeAt: UInt64, probing: Bool)
        /// The probe failed too; another goes with the first request after `nextProbe`.
        case down(since: UInt64, nextProbe: UInt64, probing: Bool)
    }

    struct Entry {
        var failures = 0
        var firstFailure: UInt64 = 0
        var state = State.up
    }

    /// Failures in a row that make a host suspect. Several transfers to a dead host fail together,
    /// so this many say little more than one; the probe is what confirms it.
    static let threshold = 3
    /// How long after becoming suspect the probe goes: a host that refused for a moment (a restart)
    /// gets a moment to come back.
    static let probeDelay: UInt64 = 1_000_000_000
    /// The most a probe waits for its connection: the host has failed several times already and its
    /// other requests wait meanwhile, so it does not get the whole connect timeout. A SYN lost once
    /// is resent after 1 s and still makes it.
    static let probeConnectTimeout = Duration.seconds(3)
    /// How often a held request looks again while the probe is under way.
    static let holdSlice: UInt64 = 500_000_000
    /// How often a down host is probed again by one of its requests.
    static let reprobeInterval: UInt64 = 30_000_000_000

    private(set) var hosts: [Substring: Entry] = [:]

    /// Whether no host has failed lately (admission then asks nothing).
    var isEmpty: Bool { self.hosts.isEmpty }

    /// Whether an error says the host could not be reached: no connection made, refused or timed
    /// out. A host that accepted the connection and then answered slowly or not at all is up:
    /// its requests end by their own timeouts, and other requests may still be answered.
    static func counts(_ error: FetchError) -> Bool {
        error.kind == .connectFailed || (error.kind == .timeout && error.timedOutConnecting)
    }

    /// What to do with a request for `key` now.
    mutating func admit(_ key: Substring, now: UInt64) -> Verdict {
        guard var entry = self.hosts[key] else {
            return .go(probe: false)
        }
        switch entry.state {
        case .up:
            return .go(probe: false)
        case .suspect(let probeAt, let probing):
            if !probing && now >= probeAt {
                entry.state = .suspect(probeAt: probeAt, probing: true)
                self.hosts[key] = entry
                return .go(probe: true)
            }
            return .hold(until: probing ? now &+ Self.holdSlice : probeAt)
        case .down(let since, let nextProbe, let probing):
            if !probing && now >= nextProbe {
                entry.state = .down(since: since, nextProbe: nextProbe, probing: true)
                self.hosts[key] = entry
                return .go(probe: true)
            }
            return .fail(Self.unreachable(key, entry, now: now))
        }
    }

    /// Whether requests for `key` are being held or failed: its failed attempts are then not retried
    /// on their own schedule (a retry would only be held or failed in turn).
    func isSuspectOrDown(_ key: Substring) -> Bool {
        guard let entry = self.hosts[key] else {
            return false
        }
        return entry.state != .up
    }

    /// An attempt to `key` could not reach it (``counts(_:)``).
    mutating func failed(_ key: Substring, probe: Bool, now: UInt64) {
        var entry = self.hosts[key] ?? Entry()
        if entry.failures == 0 {
            entry.firstFailure = now
        }
        entry.failures += 1
        switch entry.state {
        case .up:
            if entry.failures >= Self.threshold {
                entry.state = .suspect(probeAt: now &+ Self.probeDelay, probing: false)
            }
        case .suspect(let probeAt, let probing):
            if probe {
                entry.state = .down(since: now, nextProbe: now &+ Self.reprobeInterval, probing: false)
            } else {
                entry.state = .suspect(probeAt: probeAt, probing: probing)
            }
        case .down(let since, let nextProbe, let probing):
            if probe {
                entry.state = .down(since: since, nextProbe: now &+ Self.reprobeInterval, probing: false)
            } else {
                entry.state = .down(since: since, nextProbe: nextProbe, probing: probing)
            }
        }
        self.hosts[key] = entry
        if self.hosts.count > 4096 {
            // A list of a million hosts, each failing once, keeps no million entries.
            self.hosts = self.hosts.filter { $0.value.state != .up }
        }
    }

    /// `key`'s probe ended without a verdict (it could not start, or was cancelled): the next
    /// request may probe instead.
    mutating func probeEnded(_ key: Substring) {
        guard var entry = self.hosts[key] else {
            return
        }
        switch entry.state {
        case .up:
            return
        case .suspect(let probeAt, _):
            entry.state = .suspect(probeAt: probeAt, probing: false)
        case .down(let since, let nextProbe, _):
            entry.state = .down(since: since, nextProbe: nextProbe, probing: false)
        }
        self.hosts[key] = entry
    }

    /// `key` answered (any status): it is up, its failures forgotten.
    mutating func answered(_ key: Substring) {
        self.hosts[key] = nil
    }

    static func unreachable(_ key: Substring, _ entry: Entry, now: UInt64) -> FetchError {
        let seconds = Double(now &- entry.firstFailure) / 1e9
        let over = (seconds * 10).rounded() / 10
        return FetchError(
            kind: .hostUnreachable,
            message:
                "host \(key) is unreachable: \(entry.failures) failed connects in a row over \(over) s, "
                + "the last a probe; its requests end unsent until a later probe finds it back")
    }
}
