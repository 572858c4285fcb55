import ArgumentParser
import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The files a command reads and the places it writes, checked before the first request: a run
/// whose output can only fail, or would destroy its own input, stops with exit 2 and one line
/// saying why, before anything is opened for writing.
///
/// Files are compared by device and inode, so a symbolic or hard link to an input is the input.
struct FilePlaces {
    /// A file the command reads: its flag and path (`-` is standard input).
    struct Input {
        let flag: String
        let path: String
    }

    /// A file the command creates or replaces: its flag and path (`-` is standard output, checked
    /// only against the inputs: the shell opened it).
    struct Output {
        let flag: String
        let path: String
    }

    /// A folder the command writes files into (created with its parents when missing).
    struct Folder {
        let flag: String
        let path: String
    }

    var inputs: [Input] = []
    var outputs: [Output] = []
    var folders: [Folder] = []

    /// Why the run cannot go ahead, or `nil` when every place is usable. Creates missing folders
    /// (as `mkdir -p`), and only once every other check passed.
    func problem() -> String? {
        var inputFiles: [(input: Input, identity: FileIdentity)] = []
        for input in self.inputs {
            let identity = input.path == "-" ? FileIdentity(descriptor: 0) : FileIdentity(path: input.path)
            if let identity, identity.isRegularFile {
                inputFiles.append((input, identity))
            }
        }
        var seen: [(output: Output, identity: FileIdentity?, canonical: String)] = []
        for output in self.outputs {
            let identity = output.path == "-" ? FileIdentity(descriptor: 1) : FileIdentity(path: output.path)
            if let identity, let input = inputFiles.first(where: { $0.identity.sameFile(as: identity) })?.input {
                return "\(Self.describe(output)) is \(Self.describe(input)): writing there would destroy it"
            }
            if output.path == "-" {
                continue
            }
            let canonical = Self.canonical(output.path)
            if let earlier = seen.first(where: {
                $0.canonical == canonical || (identity != nil && $0.identity?.sameFile(as: identity!) == true)
            }) {
                return "\(earlier.output.flag) and \(output.flag) name the same file (\(output.path))"
            }
            if let problem = Self.writableFileProblem(output.path, existing: identity) {
                return "cannot write \(output.flag) \(output.path): \(problem)"
            }
            seen.append((output, identity, canonical))
        }
        for folder in self.folders {
            if let identity = FileIdentity(path: folder.path),
                let input = inputFiles.first(where: { FileIdentity(path: Self.parent(of: $0.input.path)) == identity })?
                    .input
            {
                return "\(folder.flag) \(folder.path) holds \(Self.describe(input)): a saved file could replace it; "
                    + "keep the input outside \(folder.path)"
            }
        }
        for folder in self.folders {
            if let problem = Self.makeFolder(folder.path) {
                return "cannot write files in \(folder.flag) \(folder.path): \(problem)"
            }
        }
        return nil
    }

    /// Checks every place, exiting with ``ExitCode/usage`` after one line on standard error when
    /// one is unusable.
    func check() throws {
        if let problem = self.problem() {
            FileHandleOutput.standardError.write("batchfetch: \(problem)\n")
            throw ExitCode.usage
        }
    }

    private static func describe(_ output: Output) -> String {
        output.path == "-" ? "standard output" : "\(output.flag) \(output.path)"
    }

    private static func describe(_ input: Input) -> String {
        input.path == "-" ? "the input (standard input)" : "the input file (\(input.flag) \(input.path))"
    }

    /// Why a file cannot be created or replaced at `path`, or `nil` when it can.
    private static func writableFileProblem(_ path: String, existing: FileIdentity?) -> String? {
        if let existing {
            if existing.isDirectory {
                return "it is a folder"
            }
            return access(path, W_OK) == 0 ? nil : String(cString: strerror(errno))
        }
        let parent = Self.parent(of: path)
        guard let folder = FileIdentity(path: parent) else {
            return "no such folder: \(parent)"
        }
        guard folder.isDirectory else {
            return "\(parent) is not a folder"
        }
        return access(parent, W_OK | X_OK) == 0 ? nil : "\(parent): \(String(cString: strerror(errno)))"
    }

    /// Creates `path` and its missing parents; returns why it is not a writable folder, or `nil`.
    private static func makeFolder(_ path: String) -> String? {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        } catch {
            let underlying = (error as NSError).userInfo[NSUnderlyingErrorKey] as? NSError
            if let code = underlying?.code, underlying?.domain == NSPOSIXErrorDomain {
                return String(cString: strerror(Int32(code)))
            }
            return FileIdentity(path: path).map { $0.isDirectory ? "cannot create it" : "it is not a folder" }
                ?? "cannot create it"
        }
        return access(path, W_OK | X_OK) == 0 ? nil : String(cString: strerror(errno))
    }

    /// The folder a path names its file in (`.` for a bare name).
    static func parent(of path: String) -> String {
        let trimmed = path.count > 1 && path.hasSuffix("/") ? String(path.dropLast()) : path
        guard let slash = trimmed.lastIndex(of: "/") else {
            return "."
        }
        return slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
    }

    /// `path` with its folder resolved (links, `..`), for telling two not-yet-existing outputs apart.
    private static func canonical(_ path: String) -> String {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let folder = realpath(Self.parent(of: path), nil) else {
            return path
        }
        defer { free(folder) }
        return String(cString: folder) + "/" + name
    }
}

/// A file's device and inode, and its type, as `stat` (following links) or `fstat` tell them.
struct FileIdentity: Equatable {
    let device: UInt64
    let inode: UInt64
    let mode: UInt32

    init?(path: String) {
        var status = stat()
        guard stat(path, &status) == 0 else {
            return nil
        }
        self.init(status)
    }

    init?(descriptor: Int32) {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            return nil
        }
        self.init(status)
    }

    private init(_ status: stat) {
        self.device = UInt64(status.st_dev)
        self.inode = UInt64(status.st_ino)
        self.mode = UInt32(status.st_mode)
    }

    var isRegularFile: Bool { self.mode & UInt32(S_IFMT) == UInt32(S_IFREG) }
    var isDirectory: Bool { self.mode & UInt32(S_IFMT) == UInt32(S_IFDIR) }

    func sameFile(as other: FileIdentity) -> Bool {
        self.device == other.device && self.inode == other.inode
    }

    static func == (lhs: FileIdentity, rhs: FileIdentity) -> Bool {
        lhs.sameFile(as: rhs)
    }
}
