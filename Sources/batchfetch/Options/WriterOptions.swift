import ArgumentParser
import Glibc

/// How the threads that turn results into records share the CPU with the engine thread.
struct WriterOptions: ParsableArguments {
    @Option(
        parsing: .unconditional,
        help: ArgumentHelp(
            "Run the threads that decode and write records N nice levels below batchfetch's own priority "
                + "(0 to 19; default 10), so that where cores are short (a server on the same machine) "
                + "the network thread comes first and writing catches up while it waits; 0: equal.",
            valueName: "N"))
    var writerNice: Int = 10

    func validate() throws {
        if !(0...19).contains(self.writerNice) {
            throw ValidationError("--writer-nice \(self.writerNice) is out of range: give 0 to 19")
        }
    }

    var priority: WriterPriority {
        WriterPriority(nice: Int32(self.writerNice))
    }
}

/// Lowers the priority of each thread that writes records, the first time it writes one.
///
/// Why: on two cores shared with a local server, three threads want the CPU (the engine's, the
/// server's and the writer's); at equal priority the scheduler often keeps the engine thread
/// waiting behind the writer on one core while the other idles, and every socket waits with it.
/// On Linux the nice value is each thread's own; the engine thread is started before any writer
/// lowers itself, so it keeps the process's priority.
struct WriterPriority {
    let nice: Int32

    /// Marks the threads already lowered: a thread-local slot, as Swift has no thread-local
    /// variables.
    private static let lowered: pthread_key_t? = {
        var key = pthread_key_t()
        return pthread_key_create(&key, nil) == 0 ? key : nil
    }()

    /// Called for every record; after a thread's first call, one thread-local read.
    @inline(__always)
    func apply() {
        guard self.nice > 0, let key = Self.lowered, pthread_getspecific(key) == nil else {
            return
        }
        // Any non-nil value marks the thread; the slot is never freed, so it needs no destructor.
        _ = pthread_setspecific(key, UnsafeRawPointer(bitPattern: 1))
        self.lower()
    }

    /// Raises the calling thread's nice value by ``nice``, to at most 19. A refusal changes nothing
    /// but the order in which threads get a core, so it is not reported.
    private func lower() {
        let which = __priority_which_t(PRIO_PROCESS.rawValue)
        errno = 0
        let current = getpriority(which, 0)
        guard current != -1 || errno == 0 else {
            return
        }
        let target = min(19, current + self.nice)
        if target != current {
            _ = setpriority(which, 0, target)
        }
    }
}
