// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary
import PickerUI

// libphotopick-1.so: PickerUI with everything under it (the index, thumbnails, the camera) and
// the C shell of PhotopickPicker, as one shared library for any program; its header is
// Sources/CPhotopick/photopick-1/photopick.h. This target exists for the library's own link
// flags (its soname, and the Swift runtime's folder as its run path: Package.swift), which the
// photopick program must not get; what it adds is the version, as libadwaita's
// adw_get_major_version() does.

private let parts = photopickVersion.split(separator: ".").map { UInt32($0) ?? 0 } + [0, 0, 0]

@_cdecl("photopick_get_major_version")
public func photopickGetMajorVersion() -> UInt32 { parts[0] }

@_cdecl("photopick_get_minor_version")
public func photopickGetMinorVersion() -> UInt32 { parts[1] }

@_cdecl("photopick_get_micro_version")
public func photopickGetMicroVersion() -> UInt32 { parts[2] }
