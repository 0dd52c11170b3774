// SPDX-License-Identifier: LGPL-2.1-or-later
import Camera
import CGtk

/// A camera frame as a GdkTexture, without copying its pixels: the texture's bytes keep the
/// frame's buffer alive and let it go when GTK is done with them.
@MainActor
enum FrameTexture {
    /// A new texture (the caller owns the reference).
    /// `small`: the frame's shrunk copy when it has one (the camera cell).
    static func make(_ frame: Frame, small: Bool = false) -> OpaquePointer? {
        let pixels = small ? frame.small ?? frame.pixels : frame.pixels
        let retained = Unmanaged.passRetained(pixels).toOpaque()
        let release: @convention(c) (UnsafeMutableRawPointer?) -> Void = { data in
            if let data { Unmanaged<PixelBuffer>.fromOpaque(data).release() }
        }
        guard let bytes = g_bytes_new_with_free_func(pixels.bytes, gsize(pixels.count), release, retained) else { return nil }
        defer { g_bytes_unref(bytes) }
        return gdk_memory_texture_new(Int32(pixels.width), Int32(pixels.height), GDK_MEMORY_R8G8B8, bytes, gsize(pixels.stride))
    }
}

extension CameraFailure {
    /// The cell's icon for the state.
    var icon: String {
        if case .permissionDenied = self { return "action-unavailable-symbolic" }
        return "camera-disabled-symbolic"
    }
}
