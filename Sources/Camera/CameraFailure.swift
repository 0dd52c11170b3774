// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import Glibc
import Basics

/// Why a camera shows no picture, in words a person can act on. Every state the camera cell can
/// be in besides "live" is one of these.
public enum CameraFailure: Error, Hashable, Sendable {
    /// No capture device at all (or the one asked for does not exist).
    case noCamera
    /// The device node exists but this user may not open it.
    case permissionDenied(String)
    /// Another program is using the camera.
    case busy(String)
    /// The camera offers no format Photopick can show.
    case noUsableFormat(String)
    /// The camera went away while in use.
    case unplugged(String)
    /// No frame came for two seconds, even after one restart.
    case stalled(String)
    case failed(String)

    /// A short title for the cell.
    public var title: String {
        switch self {
        case .noCamera: i18n("No camera")
        case .permissionDenied: i18n("Camera not allowed")
        case .busy: i18n("Camera in use")
        case .noUsableFormat: i18n("Camera not supported")
        case .unplugged: i18n("Camera unplugged")
        case .stalled: i18n("Camera stopped")
        case .failed: i18n("Camera failed")
        }
    }

    /// One sentence: what happened and what to do.
    public var explanation: String {
        switch self {
        case .noCamera:
            i18n("No camera was found. Plug one in and it appears here.")
        case .permissionDenied(let device):
            i18n("You may not use {camera}: add yourself to the “video” group (sudo usermod -aG video $USER) and log in again.", ["camera": device])
        case .busy(let device):
            i18n("{camera} is in use by another program. Close it and try again.", ["camera": device])
        case .noUsableFormat(let device):
            i18n("{camera} offers no picture format Photopick can show.", ["camera": device])
        case .unplugged(let device):
            i18n("{camera} was unplugged. Plug it in again to continue.", ["camera": device])
        case .stalled(let device):
            i18n("{camera} stopped sending pictures.", ["camera": device])
        case .failed(let reason):
            reason
        }
    }

    /// The same failure naming the device by `name` ("Integrated Camera") instead of its node.
    func naming(_ name: String) -> CameraFailure {
        switch self {
        case .permissionDenied: .permissionDenied(name)
        case .busy: .busy(name)
        case .noUsableFormat: .noUsableFormat(name)
        case .unplugged: .unplugged(name)
        case .stalled: .stalled(name)
        case .noCamera, .failed: self
        }
    }

    static func opening(_ path: FilePath, errno code: Int32) -> CameraFailure {
        switch code {
        case ENOENT, ENXIO, ENODEV: .noCamera
        case EACCES, EPERM: .permissionDenied(path.displayString)
        case EBUSY: .busy(path.displayString)
        default: .failed("Cannot open \(path): \(errorDescription(code))")
        }
    }

    static func fromErrno(_ code: Int32, path: FilePath, doing: String) -> CameraFailure {
        switch code {
        case ENODEV, ENXIO: .unplugged(path.displayString)
        case EBUSY: .busy(path.displayString)
        case EACCES, EPERM: .permissionDenied(path.displayString)
        default: .failed("\(path): cannot \(doing): \(errorDescription(code))")
        }
    }
}
