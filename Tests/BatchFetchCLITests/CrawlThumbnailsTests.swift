import CocktailReplica
import Foundation
import TestSupport
import Testing

/// `crawl --thumbnails DIR`: every drink's image saved once after the records, which name the files.
@Suite(.serialized)
struct CrawlThumbnailsTests {
    private func objects(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        }
    }

    /// The bytes at `url` as an independent client (curl) gets them.
    private func download(_ url: String) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        process.arguments = ["-sf", url]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return data
    }

    private func scratch() -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("thumbs-\(UUID())").path
    }

    @Test func everyDrinksImageIsSavedOnceAndItsRecordNamesTheFile() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(resultCap: 0, selfHostedImages: true)) { server in
            let folder = self.scratch()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let output = try Executable("batchfetch").run([
                "crawl", "--base-url", server.baseURL, "--by", "glass", "--thumbnails", folder,
                "--thumbnail-size", "small",
            ])
            #expect(output.status == 0, "\(output.stderr)")
            let drinks = try self.objects(output.stdout).flatMap { $0["drinks"] as? [[String: Any]] ?? [] }
            let byID = Dictionary(server.catalogue.drinks.map { ($0.id, $0) }) { first, _ in first }
            var files: Set<String> = []
            for drink in drinks {
                let path = try #require(drink["thumbnailFile"] as? String)
                #expect(path.hasPrefix(folder + "/") && path.hasSuffix("-small.jpg"))
                let id = try #require(drink["idDrink"] as? String)
                let served = try self.download(server.imageURL(for: try #require(byID[id]), size: .small))
                #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == served, "\(path)")
                files.insert(path)
            }
            #expect(!files.isEmpty)
            // Each image once: one file per distinct image, nothing else in the folder.
            #expect(Set(try FileManager.default.contentsOfDirectory(atPath: folder)).count == files.count)
            #expect(output.stderr.contains("thumbnails: \(files.count) saved, 0 already there, 0 failed"))
            // A re-run fetches none of them again.
            let again = try Executable("batchfetch").run([
                "crawl", "--base-url", server.baseURL, "--by", "glass", "--thumbnails", folder,
                "--thumbnail-size", "small",
            ])
            #expect(again.stderr.contains("thumbnails: 0 saved, \(files.count) already there, 0 failed"))
        }
    }

    @Test func fullRecordsAndCSVNameTheFilesToo() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(selfHostedImages: true)) { server in
            let folder = self.scratch()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            let output = try Executable("batchfetch").run([
                "crawl", "-q", "--base-url", server.baseURL, "--by", "alcoholic", "--details", "--thumbnails", folder,
            ])
            #expect(output.status == 0, "\(output.stderr)")
            let drinks = try self.objects(output.stdout).flatMap { $0["drinks"] as? [[String: Any]] ?? [] }
            #expect(!drinks.isEmpty)
            for drink in drinks {
                let path = try #require(drink["thumbnailFile"] as? String)
                #expect(FileManager.default.fileExists(atPath: path))
                #expect(drink["strInstructions"] != nil, "the full record is kept around the new field")
            }
            let csv = try Executable("batchfetch").run([
                "crawl", "-q", "--base-url", server.baseURL, "--by", "alcoholic", "--format", "csv", "--thumbnails",
                folder,
            ])
            let header = csv.stdout.split(separator: "\r\n").first.map(String.init)
            #expect(header == "alcoholic,idDrink,strDrink,strDrinkThumb,thumbnailFile,error")
        }
    }

    @Test func aThumbnailThatFailsFailsTheRunButNotTheRecords() async throws {
        try await ReplicaServer.withServer(ReplicaConfiguration(selfHostedImages: true)) { server in
            let folder = self.scratch()
            defer { try? FileManager.default.removeItem(atPath: folder) }
            // A folder where each image's file would go makes every save fail (the folder itself
            // is writable, so the check before the crawl passes).
            let first = try Executable("batchfetch").run([
                "crawl", "-q", "--base-url", server.baseURL, "--by", "alcoholic", "--thumbnails", folder,
            ])
            let files = try self.objects(first.stdout).flatMap { $0["drinks"] as? [[String: Any]] ?? [] }
                .compactMap { $0["thumbnailFile"] as? String }
            #expect(!files.isEmpty)
            for file in files {
                try? FileManager.default.removeItem(atPath: file)
                try FileManager.default.createDirectory(atPath: file, withIntermediateDirectories: true)
            }
            let output = try Executable("batchfetch").run([
                "crawl", "--base-url", server.baseURL, "--by", "alcoholic", "--thumbnails", folder,
            ])
            #expect(output.status == 1)
            #expect(try self.objects(output.stdout).count == server.catalogue.alcoholicFlags.count)
        }
    }
}
