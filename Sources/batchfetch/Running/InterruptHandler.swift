import Dispatch

#if canImport(Glibc)
    import Glibc
#endif

/// Runs `handler` on SIGINT and SIGTERM, on a dispatch queue, instead of the default of dying
/// with unflushed output.
final class InterruptHandler {
    private let sources: [any DispatchSourceSignal]

    init(_ handler: @escaping @Sendable () -> Void) {
        var sources: [any DispatchSourceSignal] = []
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler(handler: handler)
            source.resume()
            sources.append(source)
        }
        self.sources = sources
    }

    func cancel() {
        for source in self.sources {
            source.cancel()
        }
    }
}
