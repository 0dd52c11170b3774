// GTK4 with GDK and GdkPixbuf, for the picker window (not for library code).
#include <gtk/gtk.h>
