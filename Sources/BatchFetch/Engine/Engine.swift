import Foundation
import Synchronization

/// Fetches batches of HTTP requests with libcurl's multi interface: many transfers in flight under
/// one cap, connections kept alive and reused, results streamed out as they complete.
///
/// One dedicated thread owns the libcurl multi handle (libcurl's rule: one thread per multi handle
/// at a time). Requests reach it through a locked inbox and `curl_multi_wakeup`; results leave
/// through per-batch buffers that consuming tasks await. Nothing is decoded on that thread.
///
/// ```swift
/// try await withEngine { engine in
///     for await result in engine.results(for: urls.map { Request($0) }) {
///         print(result.index, result.response?.status ?? 0)
///     }
/// }
/// ```
///
/// Threading: every method may be called from any thread or task. Prefer ``withEngine(configuration:_:)``,
/// which always joins the thread; otherwise call ``shutdown()`` when done.
public final class Engine: Sendable {
    /// The engine thread's name, as `top -H`, perf and crash reports show it.
    package static let threadName = "batchfetch-curl"

    /// The configuration the engine was created with.
    public let configuration: Configuration
    let core: EngineCore
    /// The response store (on-disk cache), when ``Configuration/cache`` asks for one.
    let store: (any ResponseStore)?

    /// Starts an engine and its thread.
    /// - Throws: ``FetchError`` when the configuration is invalid or libcurl cannot start.
    public init(configuration: Configuration = Configuration()) throws(FetchError) {
        if let problem = Engine.problem(with: configuration) {
            throw FetchError(kind: .invalidConfiguration, message: problem)
        }
        self.configuration = configuration
        self.store = configuration.cache.map { $0.makeStore(defaultFields: configuration.fieldsTheCacheSees) }
        let core = EngineCore()
        self.core = core
        let store = self.store
        let started = Mutex<Result<Void, FetchError>?>(nil)
        let ready = DispatchSemaphore(value: 0)
        let thread = Thread {
            nameCurrentThread(Engine.threadName)
            let failure = Engine.runLoop(configuration: configuration, core: core, store: store) {
                started.withLock { $0 = .success(()) }
                ready.signal()
            }
            // The loop and every libcurl handle are gone by now (see `runLoop`), and so is what
            // OpenSSL kept for this thread: only then may `shutdown()` return, and its caller go
            // on to exit the process while this thread ends.
            CurlGlobal.releaseThreadState()
            core.threadExited()
            if let failure {
                started.withLock { $0 = .failure(failure) }
                ready.signal()
            }
        }
        thread.name = Engine.threadName
        thread.start()
        ready.wait()
        if case .failure(let error) = started.withLock({ $0 }) {
            self.store?.close()
            throw error
        }
    }

    deinit {
        self.core.requestShutdown()
        self.store?.close()
    }

    /// What the cache did so far; `nil` when the engine has none.
    public var cacheStatistics: HTTPCacheStatistics? {
        self.store?.statistics
    }

    /// Each host's requests, statuses, pauses and peak rate, by host as URLs name it, once the
    /// engine has shut down; empty without ``Configuration/hostLimits``.
    public var hostStatistics: [String: HostCounts] {
        self.core.hostCounts.withLock { $0 }
    }

    /// Fetches every request of `requests` and yields one result per request, in completion order.
    ///
    /// The sequence is read lazily, no further ahead than ``Configuration/readAhead`` of what the
    /// consumer has taken, so memory stays flat for any input size. Requests that cannot be sent
    /// (bad URL, scheme, header) yield an error result in place without touching the network.
    /// Cancelling the consuming task, or dropping the iterator, cancels the batch's transfers.
    public func results<Requests: Sequence<Request>>(for requests: Requests) -> FetchResults<Requests> {
        FetchResults(engine: self, requests: requests, orderWindow: nil)
    }

    /// Like ``results(for:)``, but yields results in input order, each as soon as every earlier
    /// one has been yielded.
    ///
    /// - Parameter window: how many requests may be read past the oldest one not yet yielded
    ///   (default ``Configuration/reorderWindow``); with ``Configuration/reorderBufferBytes``,
    ///   this bounds memory when an early request is slow.
    public func orderedResults<Requests: Sequence<Request>>(
        for requests: Requests, window: Int? = nil
    ) -> FetchResults<Requests> {
        let window = Swift.max(window ?? self.configuration.effectiveReorderWindow, 1)
        return FetchResults(engine: self, requests: requests, orderWindow: window)
    }

    /// Fetches one request.
    public func fetch(_ request: Request) async -> FetchResult {
        for await result in self.results(for: CollectionOfOne(request)) {
            return result
        }
        return FetchResult(index: 0, request: request, outcome: .failure(.cancelled), attempts: 0)
    }

    /// Cancels everything outstanding (each gets a ``FetchError/Kind/cancelled`` result), stops the
    /// engine thread and waits for it to release every libcurl handle, and for the cache to write
    /// what it holds. Idempotent.
    public func shutdown() async {
        self.core.requestShutdown()
        await self.core.waitForExit()
        if let store = self.store {
            // The final commit blocks: wait for it on a thread of its own, off the cooperative pool.
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    store.close()
                    continuation.resume()
                }
                thread.start()
            }
        }
    }

    /// The engine thread's work: creates the loop, calls `started` once it can be woken, runs it
    /// until shutdown, and releases it, with the multi handle, the share and the header list,
    /// before returning.
    ///
    /// A function of its own because the release must happen here. The loop held in a local of the
    /// thread's closure lived to the end of that closure, after `threadExited()`: `shutdown()`
    /// returned while `curl_multi_cleanup` and `curl_share_cleanup` still ran on this thread, and
    /// the command went on to `exit()`, whose handlers (OpenSSL's `OPENSSL_cleanup` among them)
    /// then ran beside libcurl's teardown. `withExtendedLifetime` only kept the loop alive at
    /// least that long; it did not end its life there.
    /// - Returns: why the loop could not start, or `nil` once it ran and stopped.
    private static func runLoop(
        configuration: Configuration, core: EngineCore, store: (any ResponseStore)?, started: () -> Void
    ) -> FetchError? {
        let loop: EngineLoop
        do throws(FetchError) {
            loop = try EngineLoop(configuration: configuration, core: core, store: store)
        } catch {
            let late = core.loopStopped()
            EngineCore.answerLate(late)
            return error
        }
        core.loopStarted(wakeup: loop.multi.wakeup)
        started()
        loop.run()
        return nil
    }

    private static func problem(with configuration: Configuration) -> String? {
        if configuration.maxInFlight < 1 {
            return "maxInFlight must be at least 1 (got \(configuration.maxInFlight))"
        }
        if configuration.maxBodyBytes < 0 {
            return "maxBodyBytes must not be negative"
        }
        if configuration.timeout.map({ $0 <= .zero }) == true || configuration.idleTimeout.map({ $0 <= .zero }) == true
            || configuration.connectTimeout <= .zero
        {
            return "timeouts must be positive"
        }
        if let rate = configuration.rateLimit, !(rate.requestsPerSecond > 0) || !rate.requestsPerSecond.isFinite {
            return "the rate limit must be a positive number of requests per second"
        }
        if case .follow(let max) = configuration.redirects, max < 0 {
            return "the redirect limit must not be negative"
        }
        if let error = configuration.headers.lazy.compactMap({ $0.validationError() }).first {
            return error.message
        }
        if HeaderField.breaksTheHeaderBlock(configuration.userAgent) {
            return "the user agent must not contain CR, LF or NUL"
        }
        if let encoding = configuration.acceptEncoding, HeaderField.breaksTheHeaderBlock(encoding) {
            return "the accepted encodings must not contain CR, LF or NUL"
        }
        if let cookie = configuration.cookies?.header, HeaderField.breaksTheHeaderBlock(cookie) {
            return "the cookies must not contain CR, LF or NUL"
        }
        if let proxy = configuration.proxy, let problem = Configuration.problem(withProxy: proxy) {
            return problem
        }
        return nil
    }
}

/// Runs `body` with a new engine and always shuts the engine down afterwards, also when `body` throws.
public func withEngine<Result>(
    configuration: Engine.Configuration = Engine.Configuration(),
    isolation: isolated (any Actor)? = #isolation,
    _ body: (Engine) async throws -> Result
) async throws -> Result {
    let engine = try Engine(configuration: configuration)
    do {
        let result = try await body(engine)
        await engine.shutdown()
        return result
    } catch {
        await engine.shutdown()
        throw error
    }
}
