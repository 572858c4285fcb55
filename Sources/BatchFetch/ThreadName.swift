internal import CLinux

/// Names the calling thread as `top -H`, perf, gdb and crash reports show it.
///
/// Foundation on Linux does not hand a `Thread.name` set before `start()` to the system thread:
/// batchfetch's threads showed the name of the dispatch worker that created them
/// (`oot.default-qos`). So each thread names itself first. Linux keeps 15 bytes of a name.
package func nameCurrentThread(_ name: String) {
    _ = clinux_name_thread(String(decoding: name.utf8.prefix(15), as: UTF8.self))
}
