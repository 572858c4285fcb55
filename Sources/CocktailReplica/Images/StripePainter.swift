/// Draws the quantised DCT coefficients of one stripe (one row of 16×16 MCUs) and entropy-codes it.
///
/// The picture is made in the frequency domain, which is what makes it cheap: block means (DC)
/// follow random walks, so a stripe is a band of slowly changing colour and brightness, and AC
/// coefficients are sparse random texture, denser at low frequencies and scaled by `detail` —
/// the knob that sets the file size. Only `+ - × /` on doubles and integer operations are used
/// (no `exp` or `sin`), so the bytes do not depend on the platform's maths library. Every
/// coefficient takes the same number of draws whatever `detail` is, so two stripes painted from
/// the same generator state with different detail show the same picture with more or less texture.
///
/// Sampling is 4:2:0 (each MCU holds four luminance blocks, then one Cb and one Cr), the usual
/// layout of photographs on the web.
struct StripePainter {
    /// MCUs across the stripe.
    let mcus: Int
    /// Texture density: a luminance block gets about 8.8 × `detail` non-zero AC coefficients on
    /// average, a chroma block about a third as many.
    let detail: Double

    /// The probability that the AC coefficient at zigzag position `k` (1…63) is non-zero, before
    /// `detail`: falls off like 1 / (1 + k/3), as real photographs' spectra do.
    private static let acChance: [Double] = (0..<64).map { k in k == 0 ? 0 : 1 / (1 + Double(k) / 3) }
    /// The largest magnitude drawn at zigzag position `k`.
    private static let acScale: [Double] = (0..<64).map { k in 2 + 40 / (1 + Double(k)) }

    /// The stripe's entropy-coded bytes, padded to a byte boundary: one complete restart interval.
    func paint(random: inout SplitMix64) -> [UInt8] {
        var writer = JPEGScanWriter(capacity: self.mcus * 6 * 8)
        var block = [Int32](repeating: 0, count: 64)
        var predictors: [Int32] = [0, 0, 0]
        // Block means: luminance per block column (the MCU's bottom blocks a little off its top
        // ones, so the two halves of a stripe read as one band), chroma per MCU.
        var luminance = Double(random.int(in: -90...90))
        var offset = Double(random.int(in: -8...8))
        var blue = Double(random.int(in: -30...30))
        var red = Double(random.int(in: -30...30))
        let luminanceDetail = self.detail
        let chromaDetail = self.detail * 0.35
        block.withUnsafeMutableBufferPointer { block in
            for _ in 0..<self.mcus {
                let left = Self.walk(luminance, step: 4, limit: 100, random: &random)
                luminance = Self.walk(left, step: 4, limit: 100, random: &random)
                offset = Self.walk(offset, step: 2, limit: 8, random: &random)
                for mean in [left, luminance, left + offset, luminance + offset] {
                    Self.fill(&block, mean: mean, detail: luminanceDetail, random: &random)
                    writer.encode(
                        block: UnsafeBufferPointer(block), previousDC: &predictors[0], dc: .luminanceDC,
                        ac: .luminanceAC)
                }
                blue = Self.walk(blue, step: 3, limit: 60, random: &random)
                Self.fill(&block, mean: blue, detail: chromaDetail, random: &random)
                writer.encode(
                    block: UnsafeBufferPointer(block), previousDC: &predictors[1], dc: .chrominanceDC,
                    ac: .chrominanceAC)
                red = Self.walk(red, step: 3, limit: 60, random: &random)
                Self.fill(&block, mean: red, detail: chromaDetail, random: &random)
                writer.encode(
                    block: UnsafeBufferPointer(block), previousDC: &predictors[2], dc: .chrominanceDC,
                    ac: .chrominanceAC)
            }
        }
        writer.finishSegment()
        return writer.bytes
    }

    /// One step of a random walk in `-limit...limit`, reflected at the bounds.
    private static func walk(_ value: Double, step: Double, limit: Double, random: inout SplitMix64) -> Double {
        let next = value + (random.unit() * 2 - 1) * step
        return next > limit ? 2 * limit - next : (next < -limit ? -2 * limit - next : next)
    }

    /// Fills `block` (zigzag order) with DC `mean` and random AC texture; two draws per AC coefficient.
    private static func fill(
        _ block: inout UnsafeMutableBufferPointer<Int32>,
        mean: Double,
        detail: Double,
        random: inout SplitMix64
    ) {
        block[0] = Int32(mean.rounded())
        for k in 1..<64 {
            let chance = random.unit()
            let draw = random.next()
            guard chance < Self.acChance[k] * detail else {
                block[k] = 0
                continue
            }
            let fraction = Double(draw >> 11) * 0x1.0p-53
            let magnitude = 1 + Int32(fraction * fraction * fraction * Self.acScale[k])
            block[k] = draw & 1 == 0 ? magnitude : -magnitude
        }
    }
}
