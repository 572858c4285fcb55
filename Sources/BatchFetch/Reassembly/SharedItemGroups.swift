/// Groups of items that many groups share, each item fetched once, and the groups rebuilt in
/// order as the fetches complete (a crawl's facets and their drinks' records).
///
/// Planning: each group lists keys, and may bring items it already holds. Every distinct key gets
/// one slot, the first time it is seen, the only time it is hashed; a key first seen as listed
/// also gets a lookup: a position in the sequence of fetches (``lookups``), in first-listed order.
/// A key first seen with a held item takes that item and no lookup, even when a later group lists
/// it. Fetching: the lookups' results are stored by position, in any order, and a group is ready
/// once every lookup it depends on (up to its ``lastLookup(of:)``) is in. Releasing a group drops
/// the items no later group needs, so memory is bounded by the groups still pending, not by all
/// items.
///
/// Pure value type, no I/O; one owner at a time. `@inlinable` so callers in other modules get code
/// specialised for their types.
public struct SharedItemGroups<Key: Hashable, Item> {
    /// One group's slots, in the order its keys and held items were given.
    public struct Group {
        /// The listed keys' slots.
        public var listed: [Int] { self.listedSlots }
        /// The held items' slots.
        public var held: [Int] { self.heldSlots }
        /// The last lookup position the group depends on; -1 when none.
        public var lastLookup: Int { self.dependency }
        @usableFromInline var listedSlots: [Int] = []
        @usableFromInline var heldSlots: [Int] = []
        @usableFromInline var dependency = -1

        @usableFromInline init() {}
    }

    /// The keys to fetch, by lookup position.
    public var lookups: [Key] { self.lookupKeys }
    @usableFromInline var lookupKeys: [Key] = []
    /// The slot of each lookup.
    @usableFromInline var lookupSlots: [Int] = []
    /// Filled while planning, dropped by ``finishPlanning()``.
    @usableFromInline var slotOf: [Key: Int] = [:]
    /// By slot: the item (fetched or held), how many unreleased groups hold the slot, and the
    /// slot's lookup (-1: none).
    @usableFromInline var items: [Item?] = []
    @usableFromInline var references: [Int] = []
    @usableFromInline var lookupOfSlot: [Int] = []
    /// The groups, by number.
    public var groups: [Group] { self.allGroups }
    @usableFromInline var allGroups: [Group] = []

    @inlinable
    public init(expectedSlots: Int = 0) {
        self.slotOf.reserveCapacity(expectedSlots)
    }

    @inlinable
    mutating func slot(_ key: Key) -> (slot: Int, isNew: Bool) {
        if let slot = self.slotOf[key] {
            return (slot, false)
        }
        let slot = self.items.count
        self.slotOf[key] = slot
        self.items.append(nil)
        self.references.append(0)
        self.lookupOfSlot.append(-1)
        return (slot, true)
    }

    /// Adds the next group: the keys of the items it already holds (`heldItem(i)` makes the item of
    /// `heldKeys[i]`, only for a key without one yet) and the keys it lists. Returns the group's
    /// number.
    @inlinable
    @discardableResult
    public mutating func addGroup(holding heldKeys: [Key], listing keys: [Key], heldItem: (Int) -> Item) -> Int {
        var group = Group()
        for (index, key) in heldKeys.enumerated() {
            let (slot, _) = self.slot(key)
            if self.items[slot] == nil {
                self.items[slot] = heldItem(index)
            }
            self.references[slot] += 1
            group.heldSlots.append(slot)
        }
        group.listedSlots.reserveCapacity(keys.count)
        for key in keys {
            let (slot, isNew) = self.slot(key)
            self.references[slot] += 1
            group.listedSlots.append(slot)
            if isNew {
                self.lookupOfSlot[slot] = self.lookupKeys.count
                self.lookupKeys.append(key)
                self.lookupSlots.append(slot)
            }
            group.dependency = max(group.dependency, self.lookupOfSlot[slot])
        }
        self.allGroups.append(group)
        return self.allGroups.count - 1
    }

    /// Adds a group with no items (one that failed before its keys were known).
    @inlinable
    @discardableResult
    public mutating func addEmptyGroup() -> Int {
        self.allGroups.append(Group())
        return self.allGroups.count - 1
    }

    /// Ends planning: frees the key index, which fetching does not use.
    @inlinable
    public mutating func finishPlanning() {
        self.slotOf = [:]
    }

    /// The last lookup group `group` depends on; -1 when none (it is ready at once).
    @inlinable
    public func lastLookup(of group: Int) -> Int {
        self.allGroups[group].dependency
    }

    /// The slot that lookup `position` fills.
    @inlinable
    public func slot(ofLookup position: Int) -> Int {
        self.lookupSlots[position]
    }

    /// Stores the result of lookup `position`.
    @inlinable
    public mutating func store(_ item: Item, forLookup position: Int) {
        self.items[self.lookupSlots[position]] = item
    }

    /// The item in `slot`, if fetched (or held) and not yet released.
    @inlinable
    public subscript(slot: Int) -> Item? {
        self.items[slot]
    }

    /// Releases group `group`'s hold on its slots, dropping the items no other group holds.
    @inlinable
    public mutating func release(_ group: Int) {
        for slot in self.allGroups[group].listedSlots {
            self.drop(slot)
        }
        for slot in self.allGroups[group].heldSlots {
            self.drop(slot)
        }
    }

    @inlinable
    mutating func drop(_ slot: Int) {
        self.references[slot] -= 1
        if self.references[slot] == 0 {
            self.items[slot] = nil
        }
    }
}

extension SharedItemGroups: Sendable where Key: Sendable, Item: Sendable {}
extension SharedItemGroups.Group: Sendable {}
