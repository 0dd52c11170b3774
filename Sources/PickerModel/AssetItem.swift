// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib
import GObjectSupport
import Synchronization

/// The item objects of the grid's model: a small GObject holding an asset id (or marking the
/// camera slot). They exist only while GTK holds them; `aliveCount` tells how many do.
public enum AssetItem {
    /// The instance layout: the GObject, then our fields (a C struct, declared in CGLib's shim).
    typealias Instance = PhotopickAssetItemInstance

    private static let alive = Atomic<Int>(0)
    nonisolated(unsafe) private static var parentFinalize: (@convention(c) (UnsafeMutablePointer<GObject>?) -> Void)?

    public static let type: GType = {
        registerStaticType("PhotopickAssetItem", parent: g_object_get_type(), instance: Instance.self, class: GObjectClass.self) { klass, _ in
            let objectClass = klass!.assumingMemoryBound(to: GObjectClass.self)
            AssetItem.parentFinalize = objectClass.pointee.finalize
            objectClass.pointee.finalize = { object in
                AssetItem.alive.subtract(1, ordering: .relaxed)
                AssetItem.parentFinalize?(object)
            }
        }
    }()

    /// Item objects alive now.
    public static var aliveCount: Int { alive.load(ordering: .relaxed) }

    /// A new item (one reference, owned by the caller).
    public static func make(assetID: Int64?) -> UnsafeMutablePointer<GObject> {
        let object = g_object_new_with_properties(type, 0, nil, nil)!
        alive.add(1, ordering: .relaxed)
        let instance = UnsafeMutableRawPointer(object).assumingMemoryBound(to: Instance.self)
        instance.pointee.asset_id = assetID ?? -1
        instance.pointee.is_camera = assetID == nil ? 1 : 0
        return object
    }

    /// The asset id of an item, or nil for the camera slot (or an object of another type).
    public static func assetID(of item: UnsafeMutableRawPointer?) -> Int64? {
        guard let item, g_type_check_instance_is_a(item.assumingMemoryBound(to: GTypeInstance.self), type) != 0 else { return nil }
        let instance = item.assumingMemoryBound(to: Instance.self)
        return instance.pointee.is_camera != 0 ? nil : instance.pointee.asset_id
    }

    public static func isCamera(_ item: UnsafeMutableRawPointer?) -> Bool {
        guard let item, g_type_check_instance_is_a(item.assumingMemoryBound(to: GTypeInstance.self), type) != 0 else { return false }
        return item.assumingMemoryBound(to: Instance.self).pointee.is_camera != 0
    }
}
