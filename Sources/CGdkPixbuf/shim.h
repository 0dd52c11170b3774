// SPDX-License-Identifier: LGPL-2.1-or-later
// GdkPixbuf: image loading at a requested size (JPEG DCT scaling), orientation, PNG writing.
#include <gdk-pixbuf/gdk-pixbuf.h>
