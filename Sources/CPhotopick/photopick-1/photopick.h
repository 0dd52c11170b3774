/* photopick.h: Photopick's picker as a widget any GTK 4 program embeds.
 *
 * Build against it with `pkg-config --cflags --libs photopick-1`; from other languages use the
 * GObject introspection data (namespace Photopick, version 1). See README.md, "Embedding".
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#pragma once

#include <gtk/gtk.h>

#define PHOTOPICK_INSIDE
#include "photopick-version.h"
#undef PHOTOPICK_INSIDE

G_BEGIN_DECLS

PHOTOPICK_AVAILABLE_IN_ALL
guint                photopick_get_major_version          (void) G_GNUC_CONST;
PHOTOPICK_AVAILABLE_IN_ALL
guint                photopick_get_minor_version          (void) G_GNUC_CONST;
PHOTOPICK_AVAILABLE_IN_ALL
guint                photopick_get_micro_version          (void) G_GNUC_CONST;

#define PHOTOPICK_TYPE_PICKER (photopick_picker_get_type ())

PHOTOPICK_AVAILABLE_IN_ALL
G_DECLARE_FINAL_TYPE (PhotopickPicker, photopick_picker, PHOTOPICK, PICKER, GtkWidget)

PHOTOPICK_AVAILABLE_IN_ALL
GtkWidget           *photopick_picker_new                 (void);

PHOTOPICK_AVAILABLE_IN_ALL
char               **photopick_picker_get_picked_uris     (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_picked_uris     (PhotopickPicker    *self,
                                                           const char * const *uris);
PHOTOPICK_AVAILABLE_IN_ALL
guint                photopick_picker_get_picked_count    (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_confirm             (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_clear               (PhotopickPicker    *self);

PHOTOPICK_AVAILABLE_IN_ALL
const char * const  *photopick_picker_get_library_folders (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_library_folders (PhotopickPicker    *self,
                                                           const char * const *folders);
PHOTOPICK_AVAILABLE_IN_ALL
guint                photopick_picker_get_max_picks       (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_max_picks       (PhotopickPicker    *self,
                                                           guint               max_picks);
PHOTOPICK_AVAILABLE_IN_ALL
const char * const  *photopick_picker_get_mime_types      (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_mime_types      (PhotopickPicker    *self,
                                                           const char * const *mime_types);
PHOTOPICK_AVAILABLE_IN_0_3
const char * const  *photopick_picker_get_name_patterns   (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_name_patterns   (PhotopickPicker    *self,
                                                           const char * const *patterns);
PHOTOPICK_AVAILABLE_IN_ALL
const char          *photopick_picker_get_album           (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_album           (PhotopickPicker    *self,
                                                           const char         *album);
PHOTOPICK_AVAILABLE_IN_ALL
gboolean             photopick_picker_get_show_camera     (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_show_camera     (PhotopickPicker    *self,
                                                           gboolean            show_camera);
PHOTOPICK_AVAILABLE_IN_ALL
gboolean             photopick_picker_get_show_header     (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_show_header     (PhotopickPicker    *self,
                                                           gboolean            show_header);
PHOTOPICK_AVAILABLE_IN_0_3
gboolean             photopick_picker_get_show_choose_folder (PhotopickPicker *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_show_choose_folder (PhotopickPicker *self,
                                                              gboolean         show_choose_folder);
PHOTOPICK_AVAILABLE_IN_ALL
const char          *photopick_picker_get_confirm_label   (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_set_confirm_label   (PhotopickPicker    *self,
                                                           const char         *label);

PHOTOPICK_AVAILABLE_IN_0_3
const char          *photopick_picker_get_cancel_label    (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_cancel_label    (PhotopickPicker    *self,
                                                           const char         *label);
PHOTOPICK_AVAILABLE_IN_0_3
gboolean             photopick_picker_get_show_cancel     (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_show_cancel     (PhotopickPicker    *self,
                                                           gboolean            show_cancel);
PHOTOPICK_AVAILABLE_IN_0_3
const char          *photopick_picker_get_title           (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_title           (PhotopickPicker    *self,
                                                           const char         *title);
PHOTOPICK_AVAILABLE_IN_0_3
gboolean             photopick_picker_get_enter_confirms  (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_enter_confirms  (PhotopickPicker    *self,
                                                           gboolean            enter_confirms);
PHOTOPICK_AVAILABLE_IN_0_3
gboolean             photopick_picker_get_accepts_typed_paths (PhotopickPicker *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_accepts_typed_paths (PhotopickPicker *self,
                                                               gboolean         accepts_typed_paths);
PHOTOPICK_AVAILABLE_IN_0_3
guint                photopick_picker_get_cell_size       (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_cell_size       (PhotopickPicker    *self,
                                                           guint               cell_size);
PHOTOPICK_AVAILABLE_IN_0_3
const char          *photopick_picker_get_capture_folder  (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_capture_folder  (PhotopickPicker    *self,
                                                           const char         *folder);
PHOTOPICK_AVAILABLE_IN_0_3
const char          *photopick_picker_get_camera          (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_camera          (PhotopickPicker    *self,
                                                           const char         *camera);
PHOTOPICK_AVAILABLE_IN_0_3
gboolean             photopick_picker_get_copy_remote_picks (PhotopickPicker  *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_copy_remote_picks (PhotopickPicker  *self,
                                                             gboolean          copy_remote_picks);
PHOTOPICK_AVAILABLE_IN_0_3
const char          *photopick_picker_get_date            (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_date            (PhotopickPicker    *self,
                                                           const char         *date);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_add_filter          (PhotopickPicker    *self,
                                                           GtkFileFilter      *filter);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_remove_filter       (PhotopickPicker    *self,
                                                           GtkFileFilter      *filter);
PHOTOPICK_AVAILABLE_IN_0_3
GListModel          *photopick_picker_get_filters         (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
GtkFileFilter       *photopick_picker_get_filter          (PhotopickPicker    *self);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_set_filter          (PhotopickPicker    *self,
                                                           GtkFileFilter      *filter);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_show_message        (PhotopickPicker    *self,
                                                           const char         *message);
PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_reveal_uri          (PhotopickPicker    *self,
                                                           const char         *uri);

PHOTOPICK_AVAILABLE_IN_0_3
void                 photopick_picker_dialog_open         (GtkWindow          *parent,
                                                           GCancellable       *cancellable,
                                                           GAsyncReadyCallback callback,
                                                           gpointer            user_data);
PHOTOPICK_AVAILABLE_IN_0_3
char               **photopick_picker_dialog_open_finish  (GAsyncResult       *result,
                                                           GError            **error);

PHOTOPICK_AVAILABLE_IN_ALL
void                 photopick_picker_get_header_widgets  (PhotopickPicker    *self,
                                                           GtkWidget         **start,
                                                           GtkWidget         **title,
                                                           GtkWidget         **end);

G_END_DECLS
