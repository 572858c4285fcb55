import NIOCore

/// Pre-encoded stripes of one image size, from which every drink's JPEG of that size is assembled.
///
/// Why stripes: encoding a 700 px JPEG costs milliseconds, and a benchmark asks for tens of
/// thousands of distinct images, too many to cache. So the headers declare a restart interval of
/// one MCU row: each row (a 16 px stripe) is then a self-contained, byte-aligned piece of
/// entropy-coded data (the DC predictors reset at every `RSTm` marker, T.81 F.1.1.3), and any
/// sequence of stripes of the right width, joined by `RST0`…`RST7` in turn, is a valid scan. The
/// pool holds ``levels`` × ``stripesPerLevel`` stripes painted once; an image picks a detail
/// level and then one stripe per row, all from a generator seeded by the catalogue seed and the
/// slug. Assembling is a few dozen `memcpy`s, the pictures are real
/// image data (an abstract of colour bands and texture that any decoder shows), and 16^rows
/// choices per level (16^7 for the 100 px preview, 16^44 at 700 px) keep every drink's image distinct.
///
/// The full image and `/large` share their pool's stripes and their choices (both are 700 px),
/// painted with more texture for the full image, so they show the same picture at two qualities,
/// as the real API's original and its 700 px preview do.
///
/// Immutable once built; safe to share between threads.
struct JPEGStripePool: Sendable {
    /// The detail levels an image can fall on; each level is a file-size band.
    static let levels = 4
    /// Stripes per level.
    static let stripesPerLevel = 16
    /// How much texture each level has relative to its size's ``DrinkImageSize/detail``.
    private static let levelDetail: [Double] = [0.5, 0.75, 1.0, 1.4]

    /// The size the pool serves.
    let size: DrinkImageSize
    /// MCUs across a stripe, and stripes per image (the images are square).
    let mcusPerSide: Int
    /// `DQT` through `SOS`.
    private let frame: [UInt8]
    /// Every stripe's bytes, one after another; stripe `i` is `stripes[ranges[i]]`.
    private let stripes: [UInt8]
    private let ranges: [Range<Int>]
    /// A hash of each stripe, combined into an image's entity tag without hashing its bytes.
    private let hashes: [UInt64]
    private let frameHash: UInt64

    /// Paints the stripes for `size` from `seed` (the catalogue seed).
    init(seed: UInt64, size: DrinkImageSize) {
        self.size = size
        self.mcusPerSide = (size.pixels + 15) / 16
        self.frame = JPEGHeaders.frame(width: size.pixels, height: size.pixels, restartInterval: self.mcusPerSide)
        var stripes: [UInt8] = []
        var ranges: [Range<Int>] = []
        var hashes: [UInt64] = []
        let count = Self.levels * Self.stripesPerLevel
        for index in 0..<count {
            // Keyed by pixels, not size, so the full image and /large paint the same pictures.
            var random = SplitMix64(
                seed: SplitMix64.mix(seed ^ 0x1A6E_5000_0000_0000 ^ UInt64(size.pixels) << 16 ^ UInt64(index)))
            let painter = StripePainter(
                mcus: self.mcusPerSide, detail: size.detail * Self.levelDetail[index / Self.stripesPerLevel])
            let stripe = painter.paint(random: &random)
            ranges.append(stripes.count..<stripes.count + stripe.count)
            hashes.append(StableHash.fnv1a(stripe))
            stripes += stripe
        }
        self.stripes = stripes
        self.ranges = ranges
        self.hashes = hashes
        self.frameHash = StableHash.fnv1a(JPEGHeaders.start + self.frame)
    }

    /// The JPEG chosen by `selection` (a hash of the catalogue seed, the slug and the pixel size)
    /// with `comment` in its `COM` segment, and a hash of its bytes for the entity tag.
    func image(selection: UInt64, comment: String) -> (body: ByteBuffer, hash: UInt64) {
        let commentSegment = JPEGHeaders.comment(comment)
        var random = SplitMix64(seed: selection)
        let level = random.below(Self.levels)
        let first = level * Self.stripesPerLevel
        var sizing = random
        var length = JPEGHeaders.start.count + commentSegment.count + self.frame.count + JPEGHeaders.end.count
        length += 2 * (self.mcusPerSide - 1)
        for _ in 0..<self.mcusPerSide {
            length += self.ranges[first + sizing.below(Self.stripesPerLevel)].count
        }
        var body = ByteBufferAllocator().buffer(capacity: length)
        body.writeBytes(JPEGHeaders.start)
        body.writeBytes(commentSegment)
        body.writeBytes(self.frame)
        var hash = StableHash.fnv1a(commentSegment, seed: self.frameHash)
        for row in 0..<self.mcusPerSide {
            let stripe = first + random.below(Self.stripesPerLevel)
            body.writeBytes(self.stripes[self.ranges[stripe]])
            hash = SplitMix64.mix(hash ^ self.hashes[stripe])
            if row < self.mcusPerSide - 1 {
                let marker = JPEGHeaders.restartMarker(after: row)
                body.writeInteger(UInt16(marker.0) << 8 | UInt16(marker.1))
            }
        }
        body.writeBytes(JPEGHeaders.end)
        return (body, hash)
    }
}

extension DrinkImageSize {
    /// The texture density of this size's stripes, tuned so files weigh about what the real API's
    /// do. Measured over the default catalogue's first 300 drinks (mean, range): full 44 KB
    /// (32–58), large 35 KB (26–46), medium 14 KB (10–18), small 3.3 KB (2.5–4.2); the range
    /// comes from the four detail levels. ImageStoreTests holds the sizes to these bands.
    var detail: Double {
        switch self {
        case .full: 0.22
        case .large: 0.15
        case .medium: 0.3
        case .small: 1.0
        }
    }
}
