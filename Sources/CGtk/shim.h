// GTK4 with GDK and GdkPixbuf, and libadwaita, for the picker window (not for library code).
#include <gtk/gtk.h>
#include <adwaita.h>

// gtk_accessible_update_property is variadic: set one string property (a label) through the
// value-array form.
static inline void photopick_accessible_set_label(GtkWidget *widget, const char *label) {
    GValue value = G_VALUE_INIT;
    g_value_init(&value, G_TYPE_STRING);
    g_value_set_string(&value, label);
    GtkAccessibleProperty property = GTK_ACCESSIBLE_PROPERTY_LABEL;
    gtk_accessible_update_property_value(GTK_ACCESSIBLE(widget), 1, &property, &value);
    g_value_unset(&value);
}
