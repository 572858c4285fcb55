import NIOCore
import Synchronization

/// Every drink's image in every ``DrinkImageSize``, as responses: JPEG bytes with their headers.
///
/// Images are assembled per request from a ``JPEGStripePool`` (a few `memcpy`s), not cached: a
/// catalogue's images would take hundreds of megabytes at the scales benchmarks use, and
/// assembling one costs less than sending it. A pool is painted on the first request for its
/// size (a few milliseconds), so a replica that serves no images pays nothing for them.
///
/// Thread-safe: the pools sit behind a `Mutex` held only to look one up or store it, never while
/// painting; two threads racing to paint the same pool paint the same bytes, and one copy wins.
final class ImageStore: Sendable {
    /// The `Content-Type` of every image.
    static let contentType = "image/jpeg"

    private let seed: UInt64
    private let validators: Bool
    private let pools = Mutex<[DrinkImageSize: JPEGStripePool]>([:])

    /// - Parameters:
    ///   - seed: the catalogue seed; with the slug it decides every byte.
    ///   - validators: whether responses carry `ETag` and `Last-Modified`.
    init(seed: UInt64, validators: Bool) {
        self.seed = seed
        self.validators = validators
    }

    /// The response for the image of `slug` (the name in `strDrinkThumb`) at `size`.
    func document(slug: some StringProtocol, size: DrinkImageSize) -> Document {
        let image = self.image(slug: slug, size: size)
        return Document(
            body: image.body,
            contentType: Self.contentType,
            entityTag: self.validators ? Validators.entityTag(hash: image.hash) : nil
        )
    }

    /// The JPEG bytes of `slug` at `size`, with a hash of them.
    func image(slug: some StringProtocol, size: DrinkImageSize) -> (body: ByteBuffer, hash: UInt64) {
        let pool = self.pool(for: size)
        // Keyed by pixels, not size: the full image and /large pick the same stripes.
        let selection = SplitMix64.mix(self.seed ^ StableHash.fnv1a(slug.utf8) ^ UInt64(size.pixels) << 32)
        return pool.image(selection: selection, comment: "TheCocktailDB replica: \(slug).jpg\(size.pathSuffix)")
    }

    private func pool(for size: DrinkImageSize) -> JPEGStripePool {
        if let pool = self.pools.withLock({ $0[size] }) {
            return pool
        }
        let painted = JPEGStripePool(seed: self.seed, size: size)
        return self.pools.withLock { pools in
            if let existing = pools[size] {
                return existing
            }
            pools[size] = painted
            return painted
        }
    }
}
