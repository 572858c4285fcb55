/// Puts results that arrive in any order back into index order, streaming, without holding
/// everything.
///
/// Values are inserted as `(index, value)` in any order and come out in index order as soon as
/// the prefix up to them is complete. Memory is bounded by a window: a producer may only produce
/// indices below ``limit`` (`next + window`), so one slow early item stalls the producer instead
/// of letting later results pile up.
///
/// Pure value type, no I/O; one owner at a time. Its methods are `@inlinable` so callers in other
/// modules get code specialised for their `Value` (unspecialised generic code is many times slower).
public struct Reassembler<Value> {
    /// Why an insert was refused.
    public enum InsertError: Error, Hashable {
        /// The index was already emitted or inserted.
        case duplicate(Int)
        /// The index is at or past ``Reassembler/limit``; the producer ran too far ahead.
        case outsideWindow(Int)
    }

    /// How far past ``next`` indices may be inserted.
    public let window: Int
    /// The index the next emitted value will have.
    @inlinable public var next: Int { self.nextIndex }
    /// How many inserted values wait for an earlier one.
    @inlinable public var pending: Int { self.waiting }
    @usableFromInline var nextIndex = 0
    @usableFromInline var waiting = 0
    @usableFromInline var slots: [Value?]

    /// Creates a reassembler that starts at index 0.
    @inlinable
    public init(window: Int) {
        self.window = max(1, window)
        self.slots = Array(repeating: nil, count: self.window)
    }

    /// The first index a producer may not yet produce.
    @inlinable
    public var limit: Int { self.next + self.window }

    /// Stores `value` for `index`.
    @inlinable
    public mutating func insert(_ value: consuming Value, at index: Int) throws(InsertError) {
        guard index >= self.next else {
            throw .duplicate(index)
        }
        guard index < self.limit else {
            throw .outsideWindow(index)
        }
        let slot = index % self.window
        guard self.slots[slot] == nil else {
            throw .duplicate(index)
        }
        self.slots[slot] = value
        self.waiting += 1
    }

    /// Takes the value at ``next`` if it has arrived, advancing ``next``.
    @inlinable
    public mutating func popNext() -> Value? {
        let slot = self.next % self.window
        // Moved out, not copied and then released: a result holds a dozen references.
        guard let value = self.slots[slot].take() else {
            return nil
        }
        self.nextIndex += 1
        self.waiting -= 1
        return value
    }

    /// Gives up on the value at ``next``, which has not arrived, and advances past it: for a
    /// producer that stops early and emits what came after a gap.
    @inlinable
    public mutating func skipNext() {
        let slot = self.next % self.window
        if self.slots[slot].take() != nil {
            self.waiting -= 1
        }
        self.nextIndex += 1
    }
}

extension Reassembler: Sendable where Value: Sendable {}
