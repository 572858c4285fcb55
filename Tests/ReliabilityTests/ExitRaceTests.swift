import Foundation
import TestSupport
import Testing

/// The engine thread ends while the command exits: nothing it still does may race what `exit()`
/// tears down.
///
/// `exit()` runs OpenSSL's atexit handler (`OPENSSL_cleanup`), which frees the globals that
/// OpenSSL's thread-exit destructor uses. The engine thread had OpenSSL state (it runs
/// `curl_global_init`, even for plain HTTP), released it only from that destructor, and ended
/// after `Engine.shutdown()` had returned: `fetch` died of SIGSEGV about once in thousands of runs
/// (FetchOptionsTests in CI, status 11). A preloaded shim makes the window wide enough to hit on
/// every run: an exiting thread waits 200 ms before each OpenSSL lock, and `exit()` lingers 300 ms
/// after OpenSSL's cleanup, so the waiting destructor runs on freed memory while the process lives.
@Suite(.serialized)
struct ExitRaceTests {
    @Test(.enabled(if: ExitRaceTests.compiler != nil, "no C compiler to build the shim"))
    func fetchExitsCleanlyWhenItsEngineThreadIsSlowToEnd() async throws {
        let scratch = try ScratchDirectory("bf-exit-race")
        let shim = try Self.buildShim(in: scratch.path("exit-race-shim"))
        try await TestHTTPServer.with { server in
            for attempt in 0..<5 {
                let output = try Executable("batchfetch").run(
                    ["fetch", "-q", "\(server.baseURL)/ok"], environment: ["LD_PRELOAD": shim])
                #expect(output.stderr.contains("exit-race shim loaded"), "attempt \(attempt): \(output)")
                // The crash is on the engine thread; `exit(0)` on another sometimes wins and hides
                // it from the status, but never from Swift's crash report on standard error.
                #expect(output.signal == nil && !output.stderr.contains("crashed"), "attempt \(attempt): \(output)")
                #expect(output.status == 0, "attempt \(attempt): \(output)")
                #expect(output.stdout.contains("\"ok\":true"), "attempt \(attempt): \(output)")
            }
        }
    }

    /// A C compiler, to build the shim (Debian's `gcc`, which scripts/setup's toolchain brings).
    static let compiler: String? = ["/usr/bin/cc", "/usr/bin/gcc", "/usr/bin/clang"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }

    /// Compiles ``shimSource`` into `<base>.so` and returns that path.
    static func buildShim(in base: String) throws -> String {
        let source = base + ".c"
        let library = base + ".so"
        try Self.shimSource.write(toFile: source, atomically: true, encoding: .utf8)
        let build = Process()
        build.executableURL = URL(fileURLWithPath: try #require(Self.compiler))
        build.arguments = ["-shared", "-fPIC", "-O1", "-o", library, source, "-ldl", "-lpthread"]
        try build.run()
        build.waitUntilExit()
        try #require(build.terminationStatus == 0, "the shim did not compile")
        return library
    }

    /// Widens the race: an exiting thread (one whose thread-specific destructors run) waits 200 ms
    /// before each OpenSSL lock it takes, and `exit()` waits 300 ms after OpenSSL's atexit cleanup
    /// (handlers run in reverse order of registration, and this one registers before libcurl
    /// initialises OpenSSL). The shim's own destructor key is created first, so it runs first and
    /// marks the thread as exiting before OpenSSL's destructor runs.
    static let shimSource = """
        #define _GNU_SOURCE
        #include <dlfcn.h>
        #include <pthread.h>
        #include <stdio.h>
        #include <stdlib.h>
        #include <sys/syscall.h>
        #include <unistd.h>

        static pthread_key_t exiting_key;
        static __thread int exiting;

        static void mark_exiting(void *value) { (void)value; exiting = 1; }
        static void linger(void) { usleep(300000); }

        __attribute__((constructor)) static void setup(void) {
            pthread_key_create(&exiting_key, mark_exiting);
            atexit(linger);
            fputs("exit-race shim loaded\\n", stderr);
        }

        int CRYPTO_THREAD_write_lock(void *lock) {
            static int (*real)(void *);
            if (!real) real = (int (*)(void *))dlsym(RTLD_NEXT, "CRYPTO_THREAD_write_lock");
            if (syscall(SYS_gettid) != getpid()) {
                if (exiting) usleep(200000);
                else pthread_setspecific(exiting_key, (void *)1);
            }
            return real(lock);
        }
        """
}
