// SPDX-License-Identifier: LGPL-2.1-or-later
/* The picker widget's C shell and its Swift side (PhotopickWidget/PickerBehaviour.swift) meet
 * here. Not installed: an embedding program sees photopick-1/photopick.h only.
 *
 * The shell (photopick-picker.c) is the GObject: properties, signals, the child's layout. Every
 * behaviour is Swift's, reached through the hooks below, which the Swift target defines with
 * @_cdecl; the shell's own functions below are what Swift calls back. */
#pragma once

#include "photopick-1/photopick.h"

G_BEGIN_DECLS

/* Defined in Swift. */

/* Installs the picker.* actions and their accelerators on the class (from PickerActions' table). */
void      photopick_picker_behaviour_class_init   (GtkWidgetClass *widget_class);
/* Made once construction is over (the properties given to g_object_new are set): a retained
 * reference, released by _dispose. */
gpointer  photopick_picker_behaviour_new          (PhotopickPicker *self);
/* A property changed after construction (its name, as in the property's GParamSpec). */
void      photopick_picker_behaviour_changed      (gpointer behaviour, const char *property);
void      photopick_picker_behaviour_dispose      (gpointer behaviour);
char    **photopick_picker_behaviour_picked_uris  (gpointer behaviour);
void      photopick_picker_behaviour_set_picked_uris (gpointer behaviour, const char * const *uris);
void      photopick_picker_behaviour_confirm      (gpointer behaviour);
void      photopick_picker_behaviour_clear        (gpointer behaviour);
gboolean  photopick_picker_behaviour_grab_focus   (gpointer behaviour);
void      photopick_picker_behaviour_header_widgets (gpointer behaviour, GtkWidget **start, GtkWidget **title, GtkWidget **end);

/* Defined by the shell, for Swift. */

gpointer  photopick_picker_get_behaviour          (PhotopickPicker *self);
/* Sets album to the album the person opened and notifies, without opening it again. */
void      photopick_picker_set_album_internal     (PhotopickPicker *self, const char *album);
/* Sets picked-count and notifies when it changed. */
void      photopick_picker_set_picked_count_internal (PhotopickPicker *self, guint count);
/* Notifies picked-uris (a pick, an unpick, picks set). */
void      photopick_picker_notify_picked_uris     (PhotopickPicker *self);
void      photopick_picker_emit_pick_copied       (PhotopickPicker *self, const char *uri, const char *copy_uri);
void      photopick_picker_emit_confirmed         (PhotopickPicker *self, const char * const *uris);
void      photopick_picker_emit_cancelled         (PhotopickPicker *self);

G_END_DECLS
