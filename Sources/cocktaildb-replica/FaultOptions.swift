import ArgumentParser
import CocktailReplica

extension ReplicaFaults.RetryAfterFormat: ExpressibleByArgument {}

/// The fault-injection flags, mapped one to one onto ``ReplicaFaults``.
struct FaultOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Probability (0-1) of an error status from --fail-status.", valueName: "P"))
    var failRate: Double = 0

    @Option(
        help: ArgumentHelp(
            "Comma-separated statuses for --fail-rate; the first is also --fail-first's (default 503).",
            valueName: "LIST"
        )
    )
    var failStatus: String?

    @Option(help: ArgumentHelp("Requests per second answered normally; the rest get 429.", valueName: "RPS"))
    var throttle: Int?

    @Option(help: "Retry-After of a 429: seconds or http-date.")
    var retryAfterFormat: ReplicaFaults.RetryAfterFormat = .seconds

    @Option(help: ArgumentHelp("Probability of closing the connection without a response.", valueName: "P"))
    var resetRate: Double = 0

    @Option(help: ArgumentHelp("Probability of sending Content-Length, half the body, then closing.", valueName: "P"))
    var truncateRate: Double = 0

    @Option(help: ArgumentHelp("Probability of a 200 with broken JSON (documents only, not images).", valueName: "P"))
    var malformedRate: Double = 0

    @Option(help: ArgumentHelp("Probability of a 200 with Content-Type text/html (documents only).", valueName: "P"))
    var wrongTypeRate: Double = 0

    @Option(help: ArgumentHelp("Probability of an empty 200 body (documents only).", valueName: "P"))
    var emptyBodyRate: Double = 0

    @Option(help: ArgumentHelp("Probability of dripping the body over --slow-ms.", valueName: "P"))
    var slowRate: Double = 0

    @Option(help: ArgumentHelp("How long a slow response takes, in milliseconds.", valueName: "MS"))
    var slowMs: Int = 1000

    @Option(help: ArgumentHelp("Delay before every response: MS or MS±JITTER (also MS+-JITTER).", valueName: "MS"))
    var latency: String?

    @Option(help: ArgumentHelp("The first N requests of every distinct URL fail.", valueName: "N"))
    var failFirst: Int = 0

    /// The fault settings these flags describe.
    func makeFaults() throws -> ReplicaFaults {
        var faults = ReplicaFaults(
            failRate: self.failRate,
            throttle: self.throttle,
            retryAfterFormat: self.retryAfterFormat,
            resetRate: self.resetRate,
            truncateRate: self.truncateRate,
            malformedRate: self.malformedRate,
            wrongTypeRate: self.wrongTypeRate,
            emptyBodyRate: self.emptyBodyRate,
            slowRate: self.slowRate,
            slowMilliseconds: self.slowMs,
            failFirst: self.failFirst
        )
        if let failStatus = self.failStatus {
            let statuses = failStatus.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            guard !statuses.isEmpty, statuses.allSatisfy({ $0 != nil }) else {
                throw ValidationError(
                    "--fail-status wants comma-separated statuses like 500,502,503, got '\(failStatus)'")
            }
            faults.failStatuses = statuses.compactMap { $0 }
            faults.failFirstStatus = faults.failStatuses[0]
        }
        if let latency = self.latency {
            guard let parsed = ReplicaLatency(parsing: latency) else {
                throw ValidationError(
                    "--latency wants MS or MS±JITTER in milliseconds, like 20 or 20±5, got '\(latency)'")
            }
            faults.latency = parsed
        }
        return faults
    }
}
