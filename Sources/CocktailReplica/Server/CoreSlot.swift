import Synchronization

/// Hands the ``ReplicaCore`` to connections accepted by a server channel that was bound before the
/// core could be built (the core needs the bound port).
///
/// Thread-safe: a `Mutex`. The server channel reads no connections until ``core`` is set (it is
/// bound with `autoRead` off), so reading it earlier is a programming error.
final class CoreSlot: Sendable {
    private let value = Mutex<ReplicaCore?>(nil)

    /// The core; set once, before the channel accepts connections.
    var core: ReplicaCore {
        get {
            guard let core = self.value.withLock({ $0 }) else {
                preconditionFailure("a connection was accepted before the replica core was set")
            }
            return core
        }
        set {
            self.value.withLock { $0 = newValue }
        }
    }
}
