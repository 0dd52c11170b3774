/* photopick.h: Photopick's picker as a widget any GTK 4 program embeds.
 *
 * Build against it with `pkg-config --cflags --libs photopick-1`; from other languages use the
 * GObject introspection data (namespace Photopick, version 1). See README.md, "Embedding".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

guint                photopick_get_major_version          (void) G_GNUC_CONST;
guint                photopick_get_minor_version          (void) G_GNUC_CONST;
guint                photopick_get_micro_version          (void) G_GNUC_CONST;

#define PHOTOPICK_TYPE_PICKER (photopick_picker_get_type ())

G_DECLARE_FINAL_TYPE (PhotopickPicker, photopick_picker, PHOTOPICK, PICKER, GtkWidget)

GtkWidget           *photopick_picker_new                 (void);

char               **photopick_picker_get_picked_uris     (PhotopickPicker    *self);
void                 photopick_picker_set_picked_uris     (PhotopickPicker    *self,
                                                           const char * const *uris);
guint                photopick_picker_get_picked_count    (PhotopickPicker    *self);
void                 photopick_picker_confirm             (PhotopickPicker    *self);
void                 photopick_picker_clear               (PhotopickPicker    *self);

const char * const  *photopick_picker_get_library_folders (PhotopickPicker    *self);
void                 photopick_picker_set_library_folders (PhotopickPicker    *self,
                                                           const char * const *folders);
guint                photopick_picker_get_max_picks       (PhotopickPicker    *self);
void                 photopick_picker_set_max_picks       (PhotopickPicker    *self,
                                                           guint               max_picks);
const char * const  *photopick_picker_get_mime_types      (PhotopickPicker    *self);
void                 photopick_picker_set_mime_types      (PhotopickPicker    *self,
                                                           const char * const *mime_types);
const char * const  *photopick_picker_get_name_patterns   (PhotopickPicker    *self);
void                 photopick_picker_set_name_patterns   (PhotopickPicker    *self,
                                                           const char * const *patterns);
const char          *photopick_picker_get_album           (PhotopickPicker    *self);
void                 photopick_picker_set_album           (PhotopickPicker    *self,
                                                           const char         *album);
gboolean             photopick_picker_get_show_camera     (PhotopickPicker    *self);
void                 photopick_picker_set_show_camera     (PhotopickPicker    *self,
                                                           gboolean            show_camera);
gboolean             photopick_picker_get_show_header     (PhotopickPicker    *self);
void                 photopick_picker_set_show_header     (PhotopickPicker    *self,
                                                           gboolean            show_header);
const char          *photopick_picker_get_confirm_label   (PhotopickPicker    *self);
void                 photopick_picker_set_confirm_label   (PhotopickPicker    *self,
                                                           const char         *label);

void                 photopick_picker_get_header_widgets  (PhotopickPicker    *self,
                                                           GtkWidget         **start,
                                                           GtkWidget         **title,
                                                           GtkWidget         **end);

G_END_DECLS
