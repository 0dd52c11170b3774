import CGLib
import PhotoLibrary

/// The grid's GListModel, written in Swift over a lazy `FetchResult`: `get_n_items` is the
/// album's count (plus the camera slot), `get_item` makes a small item object on demand, and
/// nothing keeps one per asset alive. Switching albums is one items-changed; a library change
/// arrives as the exact ranges of its change details. Use from the GTK thread.
public final class AssetListModel {
    /// The GObject implementing GListModel; this Swift object holds one reference.
    public let object: UnsafeMutablePointer<GObject>
    public private(set) var fetchResult: FetchResult?

    /// The camera slot is the first cell when shown; this is the one place its offset lives.
    public private(set) var showsCamera: Bool
    private var cameraOffset: Int { showsCamera ? 1 : 0 }

    struct Instance {
        var parent: GObject
        var owner: UnsafeMutableRawPointer?
    }

    public init(showsCamera: Bool) {
        self.showsCamera = showsCamera
        object = g_object_new_with_properties(AssetListModel.type, 0, nil, nil)!
        instance.pointee.owner = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit {
        // GTK may hold the model a little longer: it then reads as empty.
        instance.pointee.owner = nil
        g_object_unref(object)
    }

    private var instance: UnsafeMutablePointer<Instance> {
        UnsafeMutableRawPointer(object).assumingMemoryBound(to: Instance.self)
    }

    /// The model as the GListModel pointer GTK's functions take.
    public var listModel: OpaquePointer { OpaquePointer(object) }

    public var count: Int { cameraOffset + (fetchResult?.count ?? 0) }

    /// The asset at a grid position; nil for the camera slot or out of range.
    public func assetID(at position: Int) -> Int64? {
        let index = position - cameraOffset
        guard let fetchResult, index >= 0, index < fetchResult.count else { return nil }
        return fetchResult.id(at: index)
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

    /// Applies a library change to the open album as exact ranges.
    public func apply(_ details: FetchResultChangeDetails) {
        guard details.before === fetchResult else { return }
        fetchResult = details.after
        for splice in details.splices {
            itemsChanged(position: splice.position + cameraOffset, removed: splice.removed, added: splice.added)
        }
    }

    public func setShowsCamera(_ shows: Bool) {
        guard shows != showsCamera else { return }
        showsCamera = shows
        itemsChanged(position: 0, removed: shows ? 0 : 1, added: shows ? 1 : 0)
    }

    /// Every items-changed emission goes through here (tests observe them through the signal).
    private func itemsChanged(position: Int, removed: Int, added: Int) {
        guard removed > 0 || added > 0 else { return }
        g_list_model_items_changed(listModel, guint(position), guint(removed), guint(added))
    }

    // MARK: The GObject type

    private static func owner(_ list: OpaquePointer?) -> AssetListModel? {
        guard let list, let owner = UnsafeMutableRawPointer(list).assumingMemoryBound(to: Instance.self).pointee.owner else { return nil }
        return Unmanaged<AssetListModel>.fromOpaque(owner).takeUnretainedValue()
    }

    static let type: GType = {
        var info = GTypeInfo()
        info.class_size = guint16(MemoryLayout<GObjectClass>.size)
        info.instance_size = guint16(MemoryLayout<Instance>.size)
        let type = g_type_register_static(g_object_get_type(), "PhotopickAssetListModel", &info, GTypeFlags(rawValue: 0))
        var interface = GInterfaceInfo()
        interface.interface_init = { iface, _ in
            let model = iface!.assumingMemoryBound(to: GListModelInterface.self)
            model.pointee.get_item_type = { _ in AssetItem.type }
            model.pointee.get_n_items = { list in guint(AssetListModel.owner(list)?.count ?? 0) }
            model.pointee.get_item = { list, position in
                guard let model = AssetListModel.owner(list), Int(position) < model.count else { return nil }
                if model.showsCamera && position == 0 { return UnsafeMutableRawPointer(AssetItem.make(assetID: nil)) }
                guard let id = model.assetID(at: Int(position)) else { return nil }
                return UnsafeMutableRawPointer(AssetItem.make(assetID: id))
            }
        }
        g_type_add_interface_static(type, g_list_model_get_type(), &interface)
        return type
    }()
}
