// SPDX-License-Identifier: LGPL-2.1-or-later
/* The picker widget's C shell and its Swift implementation (PickerUI/Picker/Picker)
 * meet here. Not installed: an embedding program sees photopick-1/photopick.h only.
 *
 * The shell (photopick-picker.c) is the GObject: properties, signals, actions, the child's
 * layout. Everything the picker does is the implementation's. The two know each other only
 * through the two tables below, handed over once by photopick_implementation_attach ():
 *
 * - In libphotopick-1.so (meson, PHOTOPICK_FRONT), the shell is the whole library a host links:
 *   a few dozen kilobytes of C. The implementation, the Swift code with its runtime (14 libraries,
 *   79 MB on disk), is a second library, libphotopick-implementation.so in the folder
 *   photopick-1 beside it, which the shell loads when the first picker is made. A host that never
 *   makes one never loads it (README, "Embedding").
 * - In the photopick program and the benchmarks, the shell is linked in (the CPhotopick target)
 *   and photopick_shell_attach_linked () hands the tables over at start. */
#pragma once

#include "photopick-1/photopick.h"

G_BEGIN_DECLS

/* Raised whenever either table changes: the shell refuses an implementation of another. */
#define PHOTOPICK_IMPLEMENTATION_ABI 2

/* What the implementation does for the shell. `state` is a retained Picker. */
typedef struct {
  /* Made once construction is over (the properties given to g_object_new are set); released
   * by dispose. */
  gpointer   (*new)                 (PhotopickPicker *self);
  /* A property changed after construction (its name, as in the property's GParamSpec). */
  void       (*changed)             (gpointer state, const char *property);
  void       (*dispose)             (gpointer state);
  char     **(*picked_uris)         (gpointer state);
  void       (*set_picked_uris)     (gpointer state, const char * const *uris);
  void       (*confirm)             (gpointer state);
  void       (*clear)               (gpointer state);
  gboolean   (*grab_focus)          (gpointer state);
  void       (*header_widgets)      (gpointer state, GtkWidget **start, GtkWidget **title, GtkWidget **end);
  /* One of the picker.* actions, by its name without "picker." ("confirm"). */
  void       (*activate)            (gpointer state, const char *action);
  void       (*show_message)        (gpointer state, const char *message);
  void       (*reveal_uri)          (gpointer state, const char *uri);
} PhotopickImplementationFunctions;

/* What the shell does for the implementation: the public functions it calls, and a few of its
 * own. */
typedef struct {
  GType                (*get_type)                  (void);
  GtkWidget           *(*new)                       (void);
  gpointer             (*get_state)             (PhotopickPicker *self);
  const char * const  *(*get_library_folders)       (PhotopickPicker *self);
  void                 (*set_library_folders)       (PhotopickPicker *self, const char * const *folders);
  guint                (*get_max_picks)             (PhotopickPicker *self);
  const char * const  *(*get_mime_types)            (PhotopickPicker *self);
  const char * const  *(*get_name_patterns)         (PhotopickPicker *self);
  const char          *(*get_album)                 (PhotopickPicker *self);
  const char          *(*get_confirm_label)         (PhotopickPicker *self);
  gboolean             (*get_show_camera)           (PhotopickPicker *self);
  gboolean             (*get_show_header)           (PhotopickPicker *self);
  void                 (*set_show_header)           (PhotopickPicker *self, gboolean show_header);
  gboolean             (*get_show_choose_folder)    (PhotopickPicker *self);
  /* Sets album to the album the person opened and notifies, without opening it again. */
  void                 (*set_album_internal)        (PhotopickPicker *self, const char *album);
  /* Sets picked-count and notifies when it changed. */
  void                 (*set_picked_count_internal) (PhotopickPicker *self, guint count);
  /* Notifies picked-uris (a pick, an unpick, picks set). */
  void                 (*notify_picked_uris)        (PhotopickPicker *self);
  void                 (*emit_pick_copied)          (PhotopickPicker *self, const char *uri, const char *copy_uri);
  void                 (*emit_confirmed)            (PhotopickPicker *self, const char * const *uris);
  void                 (*emit_cancelled)            (PhotopickPicker *self);
} PhotopickShellFunctions;

/* Defined by the implementation (Swift), the one function its library exports: keeps `shell`
 * (static) and gives its own table, or NULL when `abi` is not its PHOTOPICK_IMPLEMENTATION_ABI. */
const PhotopickImplementationFunctions *photopick_implementation_attach (const PhotopickShellFunctions *shell, guint abi);
/* Also the implementation's, called on the thread that loads it, before it is attached: makes
 * what needs no GTK and would otherwise be made in the host's turn that makes the first picker. */
void photopick_implementation_prepare (void);
/* The photopick program, before gtk_init: the thumbnails of its last first screen of these
 * folders are read meanwhile (PickerUI/Picker/FirstScreenHint.swift). */
void photopick_implementation_preload (const char * const *folders);

#ifndef PHOTOPICK_FRONT
/* Defined by the linked shell: attaches the implementation linked beside it. The photopick
 * program calls it before it makes its window. */
void photopick_shell_attach_linked (void);
#endif

G_END_DECLS
