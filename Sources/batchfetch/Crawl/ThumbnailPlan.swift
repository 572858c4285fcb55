import ArgumentParser
import BatchFetch
import BatchFetchFiles
import Foundation

/// `crawl --thumbnails DIR`: which image each drink names, the file it is saved as, and the
/// download of every distinct one once the records are written.
///
/// A drink's file is named after its image (`<slug>.jpg`, `<slug>-small.jpg` for a preview), so
/// records can name their files before the images are fetched, and a re-run finds what an
/// earlier one saved and fetches only the rest.
///
/// Threading: ``note(_:)`` and ``file(for:)`` under the crawl writer's lock; ``download(with:)``
/// from the command's task once the crawl is done.
struct ThumbnailPlan {
    /// The image sizes TheCocktailDB serves: the full image and three previews.
    enum Size: String, CaseIterable, ExpressibleByArgument {
        case full, small, medium, large
    }

    let directory: String
    let size: Size
    /// Image URLs in the order first seen, each once.
    private(set) var urls: [String] = []
    private var seen: Set<String> = []

    init(directory: String, size: Size) {
        self.directory = directory
        self.size = size
    }

    /// The URL to fetch for a drink's `strDrinkThumb`: the preview's is the image's plus `/small`,
    /// `/medium` or `/large`.
    func source(for thumbnail: String) -> String {
        self.size == .full ? thumbnail : thumbnail + "/" + self.size.rawValue
    }

    /// The path the image of `thumbnail` is saved at.
    func file(for thumbnail: String) -> String {
        BodyFileStore.path(of: self.name(for: thumbnail), in: self.directory)
    }

    /// The file name of the image of `thumbnail`: `<slug>.jpg`, or `<slug>-small.jpg` for a preview.
    private func name(for thumbnail: String) -> String {
        let name = FileNameTemplate.lastSegment(of: thumbnail)
        guard self.size != .full else {
            return FileNameTemplate.safe(name)
        }
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        return FileNameTemplate.safe(name[..<dot] + "-" + self.size.rawValue + name[dot...])
    }

    /// Remembers a drink's image, to be fetched once after the records.
    mutating func note(_ thumbnail: String) {
        if self.seen.insert(thumbnail).inserted {
            self.urls.append(thumbnail)
        }
    }

    /// What the download did.
    struct Outcome {
        var saved = 0
        /// Already in the folder from an earlier run.
        var present = 0
        var failures: [(url: String, error: FetchError)] = []
    }

    /// Fetches every noted image not yet saved and saves it; `observer` sees each result.
    func download(
        with engine: Engine, observer: (@Sendable (FetchResult) -> Void)? = nil
    ) async throws(FetchError) -> Outcome {
        let store = try BodyFileStore(directory: self.directory)
        var outcome = Outcome()
        var wanted: [String] = []
        for thumbnail in self.urls {
            if BodyFileStore.isSaved(in: self.directory, named: self.name(for: thumbnail)) {
                outcome.present += 1
            } else {
                wanted.append(thumbnail)
            }
        }
        let requests = wanted.map { Request(self.source(for: $0)) }
        for await result in engine.results(for: requests) {
            observer?(result)
            if result.error?.kind == .interrupted {
                continue  // the run stopped before it arrived: not saved, and not a failure (a re-run fetches it)
            }
            let thumbnail = wanted[result.index]
            do throws(FetchError) {
                guard case .success(let response) = result.outcome else {
                    throw result.error ?? .cancelled
                }
                guard (200..<300).contains(response.status) else {
                    throw FetchError.httpStatus(response.status, snippet: nil)
                }
                _ = try store.save(response.body, named: self.name(for: thumbnail))
                outcome.saved += 1
            } catch {
                outcome.failures.append((self.source(for: thumbnail), error))
            }
        }
        return outcome
    }
}
