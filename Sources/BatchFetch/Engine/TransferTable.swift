/// The engine's de-duplication table: transfers by their request's hash.
///
/// Open addressing with linear probing over a power-of-two array, the hashes in an array of their
/// own: a probe compares integers and touches a transfer (to compare requests) only when a hash
/// matches, which in a batch of distinct URLs is never. Removal finds a transfer by identity and
/// shifts the entries after it back, so there are no tombstones. At most half full.
///
/// A `[RequestKey: Transfer]` dictionary did the same with SipHash over each key, a request
/// compared on every successful lookup and a request copy per key: de-duplication then cost
/// measurable wall time on every batch.
///
/// Threading: engine thread only (a value type owned by the loop's state machine).
struct TransferTable {
    private var hashes: [Int]
    private var transfers: [Transfer?]
    private var mask: Int
    private(set) var count = 0

    init(capacity: Int = 256) {
        var size = 16
        while size < capacity * 2 {
            size <<= 1
        }
        self.hashes = Array(repeating: 0, count: size)
        self.transfers = Array(repeating: nil, count: size)
        self.mask = size - 1
    }

    /// The transfer of a request equal to `request`, whose hash is `hash`.
    func find(_ request: Request, hash: Int) -> Transfer? {
        var slot = hash & self.mask
        while let transfer = self.transfers[slot] {
            if self.hashes[slot] == hash && transfer.request == request {
                return transfer
            }
            slot = (slot + 1) & self.mask
        }
        return nil
    }

    /// Adds `transfer` under `hash`; its request must not be in the table.
    mutating func insert(_ transfer: Transfer, hash: Int) {
        if (self.count + 1) * 2 > self.transfers.count {
            self.grow()
        }
        var slot = hash & self.mask
        while self.transfers[slot] != nil {
            slot = (slot + 1) & self.mask
        }
        self.hashes[slot] = hash
        self.transfers[slot] = transfer
        self.count += 1
    }

    /// Removes `transfer`, added under `hash`; does nothing when it is not there.
    mutating func remove(_ transfer: Transfer, hash: Int) {
        var slot = hash & self.mask
        while true {
            guard let held = self.transfers[slot] else {
                return
            }
            if held === transfer {
                break
            }
            slot = (slot + 1) & self.mask
        }
        // Backward shift: move each later entry of the run into the hole when the hole lies
        // between its home slot and where it is, so every probe still reaches it.
        var hole = slot
        var next = slot
        while true {
            next = (next + 1) & self.mask
            guard self.transfers[next] != nil else {
                break
            }
            let home = self.hashes[next] & self.mask
            let stays = hole <= next ? (hole < home && home <= next) : (hole < home || home <= next)
            if stays {
                continue
            }
            self.hashes[hole] = self.hashes[next]
            self.transfers[hole] = self.transfers[next]
            hole = next
        }
        self.transfers[hole] = nil
        self.count -= 1
    }

    private mutating func grow() {
        let old = zip(self.hashes, self.transfers)
        let size = self.transfers.count * 2
        self.hashes = Array(repeating: 0, count: size)
        var transfers = [Transfer?](repeating: nil, count: size)
        self.mask = size - 1
        for (hash, transfer) in old {
            guard let transfer else {
                continue
            }
            var slot = hash & self.mask
            while transfers[slot] != nil {
                slot = (slot + 1) & self.mask
            }
            self.hashes[slot] = hash
            transfers[slot] = transfer
        }
        self.transfers = transfers
    }
}
