/// An error from the replica: a bad configuration, or a server that could not start.
///
/// Compare ``kind`` to tell errors apart; ``message`` says what happened and what to do.
public struct ReplicaError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Stable kinds of replica errors.
    public enum Kind: String, Sendable, Hashable {
        /// A configuration value is out of range or malformed.
        case invalidConfiguration
        /// The host is not a loopback address and non-loopback binding was not allowed.
        case nonLoopbackHost
        /// Binding the listening socket failed (address in use, no such interface, …).
        case bindFailed
    }

    /// What kind of error this is.
    public let kind: Kind
    /// A sentence for a person.
    public let message: String

    /// The ``message``.
    public var description: String { self.message }

    static func invalidConfiguration(_ message: String) -> ReplicaError {
        ReplicaError(kind: .invalidConfiguration, message: message)
    }
}
