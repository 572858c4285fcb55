import Foundation
import Testing

@testable import BatchFetch
@testable import BatchFetchFiles

/// File names from hostile URLs, and saving under a temporary name then renaming.
struct BodyFileStoreTests {
    private func scratch() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("bodyfiles-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    @Test func namesFromHostileURLsStayInsideTheFolder() {
        let template = FileNameTemplate.standard
        let cases: [(String, String)] = [
            ("http://h/a/b/photo.jpg?x=1#f", "7-photo.jpg"),
            ("http://h/../../etc/passwd", "7-passwd"),
            ("http://h/x/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "7-.._.._etc_passwd"),
            ("http://h/dir/", "7-index"),
            ("http://h", "7-index"),
            ("http://h/a/..", "7-index"),
            ("http://h/caf%C3%A9%0A%00.txt", "7-caf____.txt"),
            ("http://h/a\\b", "7-a_b"),
            ("http://user:secret@h/file", "7-file"),
        ]
        for (url, name) in cases {
            #expect(template.name(index: 7, url: url, sha256: "") == name, "\(url)")
        }
        let bare = try? FileNameTemplate(parsing: "{name}")
        #expect(bare?.name(index: 0, url: "http://h/.hidden", sha256: "") == "_hidden")
        #expect(bare?.name(index: 0, url: "http://h/..", sha256: "") == "index")
        let long = bare?.name(index: 0, url: "http://h/" + String(repeating: "a", count: 500), sha256: "")
        #expect(long?.utf8.count == 200)
    }

    @Test func templatesThatCouldLeaveTheFolderAreRefused() {
        for text in ["../{name}", "/abs/{index}", "{index}/x", "{nope}", "{index", "plain", "a b{index}"] {
            #expect(throws: FetchError.self, "\(text)") { try FileNameTemplate(parsing: text) }
        }
        #expect((try? FileNameTemplate(parsing: "img-{sha256}.jpg"))?.dependsOnContent == true)
        #expect((try? FileNameTemplate(parsing: "{index}-{name}"))?.dependsOnContent == false)
    }

    @Test func aSavedBodyHasItsBytesAndDigestAndNoTemporaryStays() throws {
        let folder = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let store = try BodyFileStore(directory: folder)
        let body = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        let saved = try store.save(body, index: 3, url: "http://h/pic.jpg")
        #expect(saved.path == folder + "/3-pic.jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: saved.path)) == body)
        #expect(saved.bytes == 70_000)
        let abc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        #expect(BodyFileStore.sha256(Data("abc".utf8)) == abc)
        #expect(saved.sha256 == BodyFileStore.sha256(body))
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["3-pic.jpg"])
        #expect(BodyFileStore.isSaved(in: folder, template: .standard, index: 3, url: "http://h/pic.jpg"))
        #expect(!BodyFileStore.isSaved(in: folder, template: .standard, index: 4, url: "http://h/pic.jpg"))
    }

    @Test func aSymbolicLinkUnderTheNameIsReplacedNotFollowed() throws {
        let folder = try self.scratch()
        let outside = try self.scratch()
        defer {
            try? FileManager.default.removeItem(atPath: folder)
            try? FileManager.default.removeItem(atPath: outside)
        }
        let target = outside + "/victim"
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: folder + "/0-victim", withDestinationPath: target)
        #expect(!BodyFileStore.isSaved(in: folder, template: .standard, index: 0, url: "http://h/victim"))
        let store = try BodyFileStore(directory: folder)
        _ = try store.save(Data("new".utf8), index: 0, url: "http://h/victim")
        #expect(try String(contentsOfFile: target, encoding: .utf8) == "keep me")
        #expect(try String(contentsOfFile: folder + "/0-victim", encoding: .utf8) == "new")
        let attributes = try FileManager.default.attributesOfItem(atPath: folder + "/0-victim")
        #expect(attributes[.type] as? FileAttributeType == .typeRegular)
    }

    @Test func twoRecordsUnderOneNameAreAnErrorUnlessTheNameIsTheirContent() throws {
        let folder = try self.scratch()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let byName = try BodyFileStore(directory: folder, template: try FileNameTemplate(parsing: "{name}"))
        _ = try byName.save(Data("one".utf8), index: 0, url: "http://h/a/same")
        #expect(throws: FetchError.self) { try byName.save(Data("two".utf8), index: 1, url: "http://h/b/same") }
        #expect(try String(contentsOfFile: folder + "/same", encoding: .utf8) == "one")
        let byContent = try BodyFileStore(directory: folder, template: try FileNameTemplate(parsing: "{sha256}"))
        let first = try byContent.save(Data("x".utf8), index: 0, url: "http://h/1")
        let second = try byContent.save(Data("x".utf8), index: 1, url: "http://h/2")
        #expect(first.path == second.path)
    }

    @Test func aFolderThatCannotBeMadeIsAConfigurationError() {
        #expect(throws: FetchError.self) { try BodyFileStore(directory: "/proc/self/no/such/folder") }
    }
}
