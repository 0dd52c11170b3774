// SPDX-License-Identifier: LGPL-2.1-or-later
import PhotoLibrary
import PickerUI

// libphotopick-implementation.so: PickerUI with everything under it (the index, thumbnails,
// the camera), which libphotopick-1.so loads when a host makes its first picker; the entry
// point, photopick_implementation_attach, is PickerUI's (Picker/Picker+Shell.swift).
// This target exists for the library's own link flags (Package.swift), which the photopick
// program must not get.
