extension Timings {
    /// An attempt's time as consecutive phases, as a waterfall shows them, rather than libcurl's
    /// running totals from the attempt's start: the phases add up to ``Timings/total``.
    ///
    /// After redirects, libcurl adds each hop's phases into its totals, so each phase here is the
    /// sum over the hops too, and ``download`` holds what lies between them.
    public struct Phases: Sendable, Hashable {
        /// Resolving the host name.
        public var nameLookup: Duration
        /// Setting up the TCP connection (0 on a reused one).
        public var connect: Duration
        /// The TLS handshake (0 for plain HTTP or a reused connection).
        public var tlsHandshake: Duration
        /// From the connection being ready to the first byte of the response: sending the
        /// request and the server's time. Until the end when no byte came.
        public var firstByte: Duration
        /// From the first byte of the response to its last.
        public var download: Duration
    }

    /// The phases of the attempt; a phase libcurl reports out of order counts as 0.
    public var phases: Phases {
        let lookupEnd = max(.zero, self.nameLookup)
        let connectEnd = max(lookupEnd, self.connect)
        let tlsEnd = max(connectEnd, self.tlsHandshake)
        let end = max(tlsEnd, self.total)
        // A first byte that never came (0) leaves the whole wait in `firstByte`.
        let firstByteEnd = self.firstByte > .zero ? min(max(tlsEnd, self.firstByte), end) : end
        return Phases(
            nameLookup: lookupEnd, connect: connectEnd - lookupEnd, tlsHandshake: tlsEnd - connectEnd,
            firstByte: firstByteEnd - tlsEnd, download: end - firstByteEnd)
    }
}
