// SPDX-License-Identifier: LGPL-2.1-or-later
// gexiv2: EXIF and XMP through exiv2, the library Shotwell and gThumb use.
#include <gexiv2/gexiv2.h>
