#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The files of one `--warc` name: `NAME.warc.gz`, then `NAME-00001.warc.gz`, `NAME-00002.warc.gz`, …
/// A resumed run (`--resume`) finishes the ones a killed run left open and writes on after them.
extension WARCArchive {
    /// Whether a file of the series holds that name, finished or still open.
    static func isTaken(_ path: String) -> Bool {
        access(path, F_OK) == 0 || access(path + ".open", F_OK) == 0
    }

    /// The number of the first name in `path`'s series that no file holds, finished or open (0 is
    /// `path` itself): where a run that continues the series starts.
    public static func firstFreeNumber(in path: String) -> Int {
        var number = 0
        while Self.isTaken(number == 0 ? path : Self.rotatedPath(path, number: number)) {
            number += 1
        }
        return number
    }

    /// The `.open` files of `path`'s series, up to its first free name: what killed runs left.
    public static func openFiles(in path: String) -> [String] {
        (0..<Self.firstFreeNumber(in: path)).map { number in
            (number == 0 ? path : Self.rotatedPath(path, number: number)) + ".open"
        }.filter { access($0, F_OK) == 0 }
    }
}
