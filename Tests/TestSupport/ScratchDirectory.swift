import Foundation

/// A scratch directory under the system's temporary directory, removed when the test is done.
package struct ScratchDirectory: ~Copyable {
    package let url: URL

    /// Creates `<tmp>/<prefix>-<UUID>`.
    package init(_ prefix: String) throws {
        self.url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: self.url, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    package func path(_ name: String) -> String {
        self.url.appendingPathComponent(name).path
    }

    deinit {
        try? FileManager.default.removeItem(at: self.url)
    }
}
