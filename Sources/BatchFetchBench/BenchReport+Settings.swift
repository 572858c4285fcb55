import BatchFetch

extension BenchReport {
    /// How a run was made: what `bench compare`, `merge` and `report` need besides its figures.
    public struct Settings: Sendable, Hashable, Codable {
        /// A name for the run in reports and comparisons (`--label`); `nil` when none was given.
        public var label: String?
        /// When the run started, in seconds since the Unix epoch.
        public var startTime: Double
        /// How many distinct requests were cycled over.
        public var distinctRequests: Int
        /// The request count it stopped at (`-n`), or `nil` when it ran for a duration.
        public var stopRequests: Int?
        /// The duration it ran for in seconds (`-d`), or `nil` when it stopped at a count.
        public var stopDurationSeconds: Double?
        /// The series' interval in seconds.
        public var intervalSeconds: Double
        /// Retries allowed per request.
        public var retries: Int
        /// How many runs were merged into this report (1 for a run of its own).
        public var runs: Int = 1
        /// `--stages` as given, or `nil` for a constant pace.
        public var stages: String?

        /// Creates settings.
        public init(
            label: String?, startTime: Double, distinctRequests: Int, stop: LoadPlan.Stop, interval: Duration,
            retries: Int
        ) {
            self.label = label
            self.startTime = BenchRecorder.rounded(startTime, 6)
            self.distinctRequests = distinctRequests
            switch stop {
            case .count(let count):
                self.stopRequests = count
            case .duration(let duration):
                self.stopDurationSeconds = BenchRecorder.seconds(duration)
            }
            self.intervalSeconds = BenchRecorder.seconds(interval)
            self.retries = retries
        }

        enum CodingKeys: String, CodingKey {
            case label
            case startTime = "start_time"
            case distinctRequests = "distinct_requests"
            case stopRequests = "stop_requests"
            case stopDurationSeconds = "stop_duration_s"
            case intervalSeconds = "interval_s"
            case retries, runs, stages
        }

        /// Encodes every key, absent values as `null`.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(self.label, forKey: .label)
            try container.encode(self.startTime, forKey: .startTime)
            try container.encode(self.distinctRequests, forKey: .distinctRequests)
            try container.encode(self.stopRequests, forKey: .stopRequests)
            try container.encode(self.stopDurationSeconds, forKey: .stopDurationSeconds)
            try container.encode(self.intervalSeconds, forKey: .intervalSeconds)
            try container.encode(self.retries, forKey: .retries)
            try container.encode(self.runs, forKey: .runs)
            try container.encode(self.stages, forKey: .stages)
        }
    }

    /// The run's whole histograms, ``LatencyHistogram/encoded`` (HdrHistogram's compressed V2
    /// encoding, base64; values in microseconds).
    public struct Histograms: Sendable, Hashable, Codable {
        /// Latency from the intended start: what ``BenchReport/latency`` summarises.
        public var latency: String
        /// Service time: the final attempt's transfer (``BenchReport/Phases/total``'s samples).
        public var service: String

        /// Creates the pair.
        public init(latency: String, service: String) {
            self.latency = latency
            self.service = service
        }
    }
}
