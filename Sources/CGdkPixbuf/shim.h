// GdkPixbuf: image loading at a requested size (JPEG DCT scaling), orientation, PNG writing.
#include <gdk-pixbuf/gdk-pixbuf.h>
