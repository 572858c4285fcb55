/// The shared, immutable-or-locked parts of a running replica, handed to every connection's handler.
///
/// Thread-safe: its own properties are immutable; ``DocumentStore`` and ``StatsRecorder`` lock.
final class ReplicaCore: Sendable {
    let configuration: ReplicaConfiguration
    let catalogue: Catalogue
    let router: Router
    let documents: DocumentStore
    let images: ImageStore
    let planner: FaultPlanner
    let stats: StatsRecorder
    /// Whether a throttle is configured (read per request, so kept out of the configuration struct).
    let throttles: Bool

    /// - Parameter imageBase: the root `strDrinkThumb` names, when not the public host's.
    init(configuration: ReplicaConfiguration, catalogue: Catalogue, imageBase: String? = nil) {
        self.configuration = configuration
        self.catalogue = catalogue
        self.router = Router(catalogue: catalogue)
        self.documents = DocumentStore(
            catalogue: catalogue,
            resultCap: configuration.resultCap,
            imageBase: imageBase,
            limit: configuration.documentCacheLimit,
            validators: configuration.validators
        )
        self.images = ImageStore(seed: catalogue.seed, validators: configuration.validators)
        self.planner = FaultPlanner(seed: configuration.seed, faults: configuration.faults)
        self.stats = StatsRecorder(throttle: configuration.faults.throttle)
        self.throttles = configuration.faults.throttle != nil
    }

    /// The drink `random.php` serves for attempt `attempt` of `target`: seeded, so reproducible.
    func randomDrinkPosition(target: String, attempt: Int) -> Int {
        let hash = SplitMix64.mix(
            self.configuration.seed ^ StableHash.fnv1a(target.utf8) ^ (UInt64(attempt) &* 0x9E37_79B9_7F4A_7C15)
        )
        var generator = SplitMix64(seed: hash)
        return generator.below(self.catalogue.drinks.count)
    }
}
