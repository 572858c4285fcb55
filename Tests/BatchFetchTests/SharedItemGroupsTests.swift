import BatchFetch
import Testing

/// `SharedItemGroups`: one lookup per distinct key, groups ready once their lookups are in, items
/// dropped once no unreleased group holds them.
struct SharedItemGroupsTests {
    @Test func eachDistinctKeyIsLookedUpOnceInFirstListedOrder() {
        var groups = SharedItemGroups<String, String>()
        #expect(groups.addGroup(holding: [], listing: ["b", "a"]) { _ in "" } == 0)
        #expect(groups.addGroup(holding: [], listing: ["a", "c", "b"]) { _ in "" } == 1)
        #expect(groups.addEmptyGroup() == 2)
        #expect(groups.addGroup(holding: [], listing: ["a"]) { _ in "" } == 3)
        groups.finishPlanning()
        #expect(groups.lookups == ["b", "a", "c"])
        // A group waits for the latest lookup among its keys; one with none is ready at once.
        #expect((0..<4).map { groups.lastLookup(of: $0) } == [1, 2, -1, 1])
        #expect(
            groups.groups[1].listed == [groups.slot(ofLookup: 1), groups.slot(ofLookup: 2), groups.slot(ofLookup: 0)])
    }

    @Test func aHeldItemNeedsNoLookupAndALookupReplacesAHeldCopy() {
        var groups = SharedItemGroups<String, String>()
        // "x" is first seen held: no lookup, even when group 1 lists it.
        groups.addGroup(holding: ["x"], listing: ["y"]) { _ in "x held" }
        groups.addGroup(holding: [], listing: ["x", "y"]) { _ in "" }
        // "z" is first seen listed: looked up, and group 2's held copy stands in until then.
        groups.addGroup(holding: [], listing: ["z"]) { _ in "" }
        groups.addGroup(holding: ["z"], listing: []) { _ in "z held" }
        groups.finishPlanning()
        #expect(groups.lookups == ["y", "z"])
        #expect(groups.lastLookup(of: 1) == 0)
        #expect(groups.lastLookup(of: 3) == -1)
        let x = groups.groups[0].held[0]
        let z = groups.groups[3].held[0]
        #expect(groups[x] == "x held")
        #expect(groups[z] == "z held")
        groups.store("z fetched", forLookup: 1)
        #expect(groups[z] == "z fetched")
        #expect(groups[groups.slot(ofLookup: 0)] == nil)
    }

    @Test func itemsAreDroppedWhenTheLastGroupHoldingThemIsReleased() {
        var groups = SharedItemGroups<Int, [Int]>()
        groups.addGroup(holding: [], listing: [1, 2]) { _ in [] }
        groups.addGroup(holding: [], listing: [2, 3]) { _ in [] }
        groups.finishPlanning()
        for (position, key) in groups.lookups.enumerated() {
            groups.store([key], forLookup: position)
        }
        let slots = (0..<3).map { groups.slot(ofLookup: $0) }
        groups.release(0)
        #expect(groups[slots[0]] == nil)
        #expect(groups[slots[1]] == [2])
        #expect(groups[slots[2]] == [3])
        groups.release(1)
        #expect(slots.allSatisfy { groups[$0] == nil })
    }
}
