import ArgumentParser
import CLinux

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
/// The engine thread is created before any writer lowers itself, so it keeps the process's nice.
struct WriterPriority {
    let nice: Int32

    /// Called for every record; after a thread's first call, a thread-local check.
    @inline(__always)
    func apply() {
        if self.nice > 0 {
            _ = clinux_lower_thread_priority_once(self.nice)
        }
    }
}
