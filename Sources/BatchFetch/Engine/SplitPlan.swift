/// Which running download to split, and where (`--split-min`): the pure half of ``SplitDownload``.
///
/// At the end of a batch a few large bodies may still be coming over slow connections while the
/// other slots idle; as aria2c's `-s`/`-k` do, the one with the most bytes left gives the second
/// half of what it has left to a new connection, which asks for that byte range.
struct SplitPlan {
    /// One part of a body in flight: its range `[start, end)` and how many of its bytes came.
    struct Candidate: Equatable {
        let start: Int
        let end: Int
        let received: Int

        var left: Int { self.end - self.start - self.received }
    }

    /// The split chosen: the candidate's index, and the offset in the body where its part now ends
    /// and the new part begins.
    struct Choice: Equatable {
        let index: Int
        let at: Int
    }

    /// The smallest range a part may be left with: a split needs twice this many bytes left.
    let minimum: Int

    /// The candidate with the most bytes left, when it has at least twice ``minimum`` left; it
    /// keeps the first half of what it has left, rounded down.
    func choose(_ candidates: [Candidate]) -> Choice? {
        var best: Choice? = nil
        var bestLeft = 0
        for (index, candidate) in candidates.enumerated() where candidate.received > 0 {
            let left = candidate.left
            guard left >= 2 * self.minimum, left > bestLeft else {
                continue
            }
            bestLeft = left
            best = Choice(index: index, at: candidate.start + candidate.received + left / 2)
        }
        return best
    }
}
