// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk
import GObjectSupport
import GTKSupport

/// The camera's picture for a GtkPicture: one paintable whose contents are the newest frame.
/// Showing a frame invalidates its contents (a redraw), and its size only when the camera's size
/// changes: a new paintable each frame made GtkPicture queue a resize, and the grid laid out all
/// its cells again, every frame.
@MainActor
final class CameraPaintable {
    private let reference: GObjectRef
    var paintable: OpaquePointer { OpaquePointer(reference.pointer) }
    private var instance: UnsafeMutablePointer<PhotopickCameraPaintableInstance> {
        reference.pointer.assumingMemoryBound(to: PhotopickCameraPaintableInstance.self)
    }

    init() {
        reference = GObjectRef(g_object_new_with_properties(CameraPaintable.type, 0, nil, nil)!, transfer: .full)
    }

    var isEmpty: Bool { instance.pointee.texture == nil }

    /// Shows `frame`. False when no texture could be made (the picture stays as it was).
    @discardableResult
    func show(_ frame: Frame, small: Bool = false) -> Bool {
        guard let texture = FrameTexture.make(frame, small: small) else { return false }
        let old = instance.pointee.texture
        let resized = old.map { gdk_paintable_get_intrinsic_width($0) != gdk_paintable_get_intrinsic_width(texture)
            || gdk_paintable_get_intrinsic_height($0) != gdk_paintable_get_intrinsic_height(texture) } ?? true
        instance.pointee.texture = texture
        if resized { gdk_paintable_invalidate_size(paintable) }
        gdk_paintable_invalidate_contents(paintable)
        if let old { g_object_unref(UnsafeMutableRawPointer(old)) }
        return true
    }

    /// Nothing shown (the camera stopped: never a frozen frame).
    func clear() {
        guard let old = instance.pointee.texture else { return }
        instance.pointee.texture = nil
        gdk_paintable_invalidate_size(paintable)
        gdk_paintable_invalidate_contents(paintable)
        g_object_unref(UnsafeMutableRawPointer(old))
    }

    // The vfuncs only read the instance's texture: any thread GTK calls them on is fine.
    nonisolated(unsafe) private static var parentFinalize: (@convention(c) (UnsafeMutablePointer<GObject>?) -> Void)?

    nonisolated static let type: GType = {
        let classInit: GClassInitFunc = { klass, _ in
            let objectClass = klass!.assumingMemoryBound(to: GObjectClass.self)
            CameraPaintable.parentFinalize = g_type_class_peek_parent(klass).assumingMemoryBound(to: GObjectClass.self).pointee.finalize
            objectClass.pointee.finalize = { object in
                let instance = UnsafeMutableRawPointer(object!).assumingMemoryBound(to: PhotopickCameraPaintableInstance.self)
                if let texture = instance.pointee.texture { g_object_unref(UnsafeMutableRawPointer(texture)) }
                instance.pointee.texture = nil
                CameraPaintable.parentFinalize?(object)
            }
        }
        let type = registerStaticType("PhotopickCameraPaintable", parent: g_object_get_type(), instance: PhotopickCameraPaintableInstance.self,
                                      class: GObjectClass.self, classInit: classInit)
        var interface = GInterfaceInfo()
        interface.interface_init = { iface, _ in
            let paintable = iface!.assumingMemoryBound(to: GdkPaintableInterface.self)
            func texture(_ object: OpaquePointer?) -> OpaquePointer? {
                UnsafeMutableRawPointer(object!).assumingMemoryBound(to: PhotopickCameraPaintableInstance.self).pointee.texture
            }
            paintable.pointee.snapshot = { object, snapshot, width, height in
                if let texture = texture(object) { gdk_paintable_snapshot(texture, snapshot, width, height) }
            }
            paintable.pointee.get_current_image = { object in
                if let texture = texture(object) { return OpaquePointer(g_object_ref(UnsafeMutableRawPointer(texture))) }
                return gdk_paintable_new_empty(0, 0)
            }
            paintable.pointee.get_flags = { _ in GdkPaintableFlags(rawValue: 0) }
            paintable.pointee.get_intrinsic_width = { object in texture(object).map { gdk_paintable_get_intrinsic_width($0) } ?? 0 }
            paintable.pointee.get_intrinsic_height = { object in texture(object).map { gdk_paintable_get_intrinsic_height($0) } ?? 0 }
        }
        g_type_add_interface_static(type, gdk_paintable_get_type(), &interface)
        return type
    }()
}
