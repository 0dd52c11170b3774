// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import GObjectSupport
import PhotoLibrary

/// The grid's GListModel, written in Swift over a lazy `FetchResult`: `get_n_items` is the
/// album's count (plus the camera slot), `get_item` makes a small item object on demand, and
/// nothing keeps one per asset alive. Switching albums is one items-changed; a library change
/// arrives as the exact ranges of its change details. The GTK thread's (the main actor's).
@MainActor
public final class AssetListModel {
    /// The GObject implementing GListModel; this Swift object holds one reference.
    public var object: UnsafeMutablePointer<GObject> { reference.pointer(as: GObject.self) }
    private let reference: GObjectRef
    public private(set) var fetchResult: FetchResult?

    /// The camera slot is the first cell when shown; this is the one place its offset lives.
    public private(set) var showsCamera: Bool
    private var cameraOffset: Int { showsCamera ? 1 : 0 }

    /// The instance struct, declared in C (CGLib's shim).
    typealias Instance = PhotopickAssetListModelInstance

    public init(showsCamera: Bool) {
        self.showsCamera = showsCamera
        reference = GObjectRef(g_object_new_with_properties(AssetListModel.type, 0, nil, nil)!, transfer: .full)
        instance.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
    }

    // GTK is told on its own thread (the model goes with its controller, there). Not an
    // `isolated deinit`: released from a GLib callback, that is queued and ran on a libdispatch
    // thread (see Subscription's deinit); this runs at once, and traps off the GTK thread.
    deinit {
        MainActor.assumeIsolated {
            // GTK may hold the model a little longer: it then reads as empty, and says so.
            let count = self.count
            instance.pointee.owner = nil
            if count > 0 { g_list_model_items_changed(listModel, 0, guint(count), 0) }
            // (`reference` drops the model's reference after this)
        }
    }

    private var instance: UnsafeMutablePointer<Instance> {
        UnsafeMutableRawPointer(object).assumingMemoryBound(to: Instance.self)
    }

    /// Adds or removes the camera slot (a camera plugged in, or none found after all): one
    /// items-changed at position 0.
    public func setShowsCamera(_ shows: Bool) {
        guard shows != showsCamera else { return }
        showsCamera = shows
        itemsChanged(position: 0, removed: shows ? 0 : 1, added: shows ? 1 : 0)
    }

    /// The model as the GListModel pointer GTK's functions take.
    public var listModel: OpaquePointer { OpaquePointer(object) }

    public var count: Int { cameraOffset + (presented?.count ?? fetchResult?.count ?? 0) }

    /// The asset at a grid position; nil for the camera slot or out of range.
    public func assetID(at position: Int) -> Int64? {
        let index = position - cameraOffset
        if let presented { return index >= 0 && index < presented.count ? presented.id(index) : nil }
        guard let fetchResult, index >= 0, index < fetchResult.count else { return nil }
        return fetchResult.id(at: index)
    }

    /// The assets at a range of grid positions, in order (the camera slot and positions out of
    /// range left out).
    public func assetIDs(in positions: Range<Int>) -> [Int64] {
        let lower = max(0, positions.lowerBound - cameraOffset), upper = max(lower, positions.upperBound - cameraOffset)
        if let presented { return (lower..<min(upper, presented.count)).map(presented.id) }
        return fetchResult?.ids(in: lower..<upper) ?? []
    }

    /// The grid position of an asset, if it is in the album.
    public func position(of assetID: Int64) -> Int? {
        fetchResult?.index(of: assetID).map { $0 + cameraOffset }
    }

    /// Shows another album (or the same one re-fetched): one items-changed for the whole range.
    public func replace(with fetchResult: FetchResult) {
        let removed = self.fetchResult?.count ?? 0
        self.fetchResult = fetchResult
        itemsChanged(position: cameraOffset, removed: removed, added: fetchResult.count)
    }

    /// Applies a library change to the open album as exact ranges. A GListModel must look, during
    /// each items-changed emission, exactly as that emission says (GTK reads it back at once), so
    /// while the splices go out one by one the model presents each intermediate list. Assets that
    /// changed in place (a heart, a duration read later) emit nothing: their rows' subscribers
    /// (`observeRow`) hear, and their bound cells update themselves (an items-changed would rebind them, and
    /// their pictures would blink).
    public func apply(_ details: FetchResultChangeDetails) {
        guard details.before === fetchResult else { return }
        let oldIDs = details.before.allIDs, newIDs = details.after.allIDs
        let splices = details.splices.filter { $0.removed == 0 || $0.added == 0 }
        let updated = details.changedIndexes.compactMap { $0 < newIDs.count ? newIDs[$0] : nil }
        defer { for id in Set(updated) { rowSubscribers.publish(id, ()) } }
        if splices.count > AssetListModel.maximumSplices {
            // A first scan inserts photos all over the timeline: one range from the first to the
            // last difference costs GTK less than hundreds of emissions.
            var prefix = 0
            while prefix < min(oldIDs.count, newIDs.count), oldIDs[prefix] == newIDs[prefix] { prefix += 1 }
            var suffix = 0
            while suffix < min(oldIDs.count, newIDs.count) - prefix,
                  oldIDs[oldIDs.count - 1 - suffix] == newIDs[newIDs.count - 1 - suffix] { suffix += 1 }
            fetchResult = details.after
            itemsChanged(position: prefix + cameraOffset, removed: oldIDs.count - prefix - suffix, added: newIDs.count - prefix - suffix)
            return
        }
        // Removal runs (old positions, applied from the end), then insertion runs (new positions,
        // applied from the start), then changes in place.
        let removals = splices.filter { $0.added == 0 }
        let insertions = splices.filter { $0.removed == 0 }
        var appliedRemovals: [FetchResultChangeDetails.Splice] = []
        /// Old index of a position in `old` minus the removals applied so far.
        func oldIndex(_ position: Int) -> Int {
            var index = position
            for run in appliedRemovals.sorted(by: { $0.position < $1.position }) where index >= run.position { index += run.removed }
            return index
        }
        var insertedSoFar = 0
        var insertedEnd = 0
        for splice in removals {
            appliedRemovals.append(splice)
            let remaining = oldIDs.count - appliedRemovals.reduce(0) { $0 + $1.removed }
            presented = (remaining, { oldIDs[oldIndex($0)] })
            itemsChanged(position: splice.position + cameraOffset, removed: splice.removed, added: 0)
        }
        let middleCount = oldIDs.count - appliedRemovals.reduce(0) { $0 + $1.removed }
        for splice in insertions {
            insertedSoFar += splice.added
            insertedEnd = splice.position + splice.added
            let end = insertedEnd, shift = insertedSoFar
            presented = (middleCount + insertedSoFar, { $0 < end ? newIDs[$0] : oldIDs[oldIndex($0 - shift)] })
            itemsChanged(position: splice.position + cameraOffset, removed: 0, added: splice.added)
        }
        presented = nil
        fetchResult = details.after
    }

    private let rowSubscribers = KeyedSubscribers<Int64, Void>()

    /// Calls `handler` when `id`'s row changed in place (after the model took the change): a
    /// bound cell shows the new heart or duration, and a new picture when the file changed.
    public func observeRow(_ id: Int64, _ handler: @escaping () -> Void) -> Subscription {
        rowSubscribers.subscribe(id) { handler() }
    }

    /// Above this many runs a change goes out as one range.
    static let maximumSplices = 16

    /// The list shown while a change goes out splice by splice: its count and ids.
    private var presented: (count: Int, id: (Int) -> Int64)?

    /// Every items-changed emission goes through here (tests observe them through the signal).
    private func itemsChanged(position: Int, removed: Int, added: Int) {
        guard removed > 0 || added > 0 else { return }
        g_list_model_items_changed(listModel, guint(position), guint(removed), guint(added))
    }

    // MARK: The GObject type

    /// The Swift model of a GObject (nil once the model is gone): read from the C struct, on
    /// whichever thread asks; only the main actor may use it.
    private nonisolated static func owner(_ list: OpaquePointer?) -> AssetListModel? {
        guard let list, let owner = UnsafeMutableRawPointer(list).assumingMemoryBound(to: Instance.self).pointee.owner else { return nil }
        return Unmanaged<AssetListModel>.fromOpaque(owner).takeUnretainedValue()
    }

    /// What `get_item` makes at `position`: nil out of range, `.some(nil)` for the camera slot,
    /// else the asset id.
    private func item(at position: Int) -> Int64?? {
        guard position < count else { return nil }
        if showsCamera && position == 0 { return .some(nil) }
        return assetID(at: position).map { .some($0) }
    }

    // GTK calls the vfuncs on its thread: they enter the main actor (and trap anywhere else).
    nonisolated static let type: GType = {
        let type = registerStaticType("PhotopickAssetListModel", parent: g_object_get_type(), instance: Instance.self, class: GObjectClass.self)
        var interface = GInterfaceInfo()
        interface.interface_init = { iface, _ in
            let model = iface!.assumingMemoryBound(to: GListModelInterface.self)
            model.pointee.get_item_type = { _ in AssetItem.type }
            model.pointee.get_n_items = { list in
                let owner = AssetListModel.owner(list)
                return guint(MainActor.assumeIsolated { owner?.count ?? 0 })
            }
            model.pointee.get_item = { list, position in
                let owner = AssetListModel.owner(list)
                guard let item = MainActor.assumeIsolated({ owner?.item(at: Int(position)) }) else { return nil }
                return UnsafeMutableRawPointer(AssetItem.make(assetID: item))
            }
        }
        g_type_add_interface_static(type, g_list_model_get_type(), &interface)
        return type
    }()
}
