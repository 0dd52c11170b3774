/* PhotopickPicker: the GObject shell of the picker widget.
 *
 * Properties, signals, actions and the child's layout are here, in C, where GObject's class
 * machinery (variadic g_signal_new, param specs, g_object_notify_by_pspec) is at home and where
 * g-ir-scanner reads the documentation below. What the picker does is Swift's, reached through
 * the table of photopick-private.h (PickerUI/Picker/Picker). In libphotopick-1.so this
 * file is the whole library a host links, and it loads the Swift implementation when the first
 * picker is made ("The implementation", at the end).
 *
 * SPDX-License-Identifier: LGPL-2.1-or-later
 */
#define G_LOG_DOMAIN "Photopick"
#ifdef PHOTOPICK_FRONT
#define _GNU_SOURCE  /* dladdr */
#include <dlfcn.h>
#include <link.h>
#include <signal.h>
#endif
#include "photopick-1/photopick.h"
#include "photopick-private.h"

static void make_state (PhotopickPicker *self);
static void ensure_state (PhotopickPicker *self);
static void forget_waiting (PhotopickPicker *self);
/* The implementation's table, once attached (the end of this file). */
static const PhotopickImplementationFunctions *implementation;

/**
 * PhotopickPicker:
 *
 * A photo and video picker to embed in a window: a grid of the person's library with an album
 * switcher, ordered picks with numbered badges, a strip of what is picked, a large preview and
 * the live camera as the first cell.
 *
 * Picking is done with the mouse (a click picks, a double click previews) or the keyboard
 * (arrows, Space, Ctrl+Return confirms). The picks come back in pick order, as `file://` URIs,
 * with [signal@Photopick.Picker::confirmed].
 *
 * Unless [property@Photopick.Picker:show-header] is false, the picker shows a compact header
 * row with its album switcher and its confirm button; a program with a header bar of its own
 * can hide it and pack the widgets of [method@Photopick.Picker.get_header_widgets] there.
 *
 * Its commands are actions of the widget (`picker.confirm`, `picker.cancel`, `picker.zoom-in`,
 * `picker.zoom-out`, `picker.choose-album`, `picker.preview`, `picker.take-photo`,
 * `picker.pick-all` (Ctrl+A; above 500 photos it asks first), `picker.unpick-all`
 * (Ctrl+Shift+A, with a toast that undoes it), `picker.clear-recently-picked` (forgets what
 * the Recently Picked album holds: the picks of earlier confirms), and `picker.location` with
 * [property@Photopick.Picker:accepts-typed-paths]) with their usual accelerators, active while
 * the focus is in the picker. Shift with a click or the arrow keys picks the range from the
 * last photo picked or unpicked alone.
 *
 * Several pickers may live in one process: they share the library's index and thumbnail
 * caches, and each keeps its own picks.
 *
 * ## CSS nodes
 *
 * `PhotopickPicker` has a single CSS node with the name `photopick-picker`. Its header row has
 * the `.picker-header` style class. The widgets of [method@Photopick.Picker.get_header_widgets],
 * the picker's own content and its popovers carry the `.photopick-part` style class: the
 * picker's style rules are scoped under `photopick-picker` and `.photopick-part`, so they reach
 * its widgets wherever a program packs them and never the program's own. Inside, the grid is a
 * `photopick-grid` node around a grid with the `.photo-grid` style class; each photo is a
 * `photopick-cell` node with the `.cell` style
 * class (`.cell.picked` when picked, with its number in a `.pick-badge`); the strip of picks is a
 * `photopick-strip` node (its row `.picked-strip`), the large preview a `photopick-preview` node
 * (`.preview`), the camera's capture view a `photopick-capture` node (`.capture`) and the album
 * switcher a `photopick-album-switcher` node (`.album-switcher`). A program may restyle them
 * under `photopick-picker`.
 *
 * The picker takes the look of the program it is in: libadwaita's colours (accent included) in a
 * libadwaita program, the GTK theme's in a plain GTK one, light or dark as the program is.
 *
 * ## Accessibility
 *
 * `PhotopickPicker` uses the %GTK_ACCESSIBLE_ROLE_GROUP role.
 *
 * Since: 0.2
 */
struct _PhotopickPicker {
  GtkWidget parent_instance;

  char **library_folders;
  guint max_picks;
  char **mime_types;
  char **name_patterns;
  char *album;
  gboolean show_camera;
  gboolean show_header;
  gboolean show_choose_folder;
  char *confirm_label;
  char *cancel_label;
  gboolean show_cancel;
  char *title;
  gboolean enter_confirms;
  gboolean accepts_typed_paths;
  guint cell_size;
  char *capture_folder;
  char *camera;
  gboolean copy_remote_picks;
  char *date;
  GListStore *filters;
  GtkFileFilter *filter;
  guint picked_count;

  /* The Swift side (a retained Picker), from constructed to dispose. */
  gpointer state;
};

G_DEFINE_FINAL_TYPE (PhotopickPicker, photopick_picker, GTK_TYPE_WIDGET)

enum {
  PROP_0,
  PROP_LIBRARY_FOLDERS,
  PROP_MAX_PICKS,
  PROP_MIME_TYPES,
  PROP_NAME_PATTERNS,
  PROP_ALBUM,
  PROP_SHOW_CAMERA,
  PROP_SHOW_HEADER,
  PROP_SHOW_CHOOSE_FOLDER,
  PROP_CONFIRM_LABEL,
  PROP_CANCEL_LABEL,
  PROP_SHOW_CANCEL,
  PROP_TITLE,
  PROP_ENTER_CONFIRMS,
  PROP_ACCEPTS_TYPED_PATHS,
  PROP_CELL_SIZE,
  PROP_CAPTURE_FOLDER,
  PROP_CAMERA,
  PROP_COPY_REMOTE_PICKS,
  PROP_DATE,
  PROP_FILTERS,
  PROP_FILTER,
  PROP_PICKED_COUNT,
  PROP_PICKED_URIS,
  N_PROPS
};

static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_CONFIRMED,
  SIGNAL_CANCELLED,
  SIGNAL_PICK_COPIED,
  N_SIGNALS
};

static guint signals[N_SIGNALS];

/* Whether two string vectors hold the same strings (NULL is the empty vector). */
static gboolean
strv_same (const char * const *a, const char * const *b)
{
  guint a_length = a ? g_strv_length ((char **) a) : 0;
  guint b_length = b ? g_strv_length ((char **) b) : 0;

  if (a_length != b_length)
    return FALSE;
  for (guint i = 0; i < a_length; i++)
    if (g_strcmp0 (a[i], b[i]) != 0)
      return FALSE;
  return TRUE;
}

static void
changed (PhotopickPicker *self, guint property)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[property]);
  if (self->state)
    implementation->changed (self->state, g_param_spec_get_name (properties[property]));
}

/* Every writable property is a construct property, so the picker is built once, here, with
 * what g_object_new was given: GObject sets other properties only after constructed, and the
 * picker would first open (and scan) the person's own folders, then the ones asked for. */
static void
photopick_picker_constructed (GObject *object)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (object);

  G_OBJECT_CLASS (photopick_picker_parent_class)->constructed (object);
  /* (Without its implementation, a picker is an empty widget that says so in the log.) */
  make_state (self);
}

static void
photopick_picker_dispose (GObject *object)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (object);
  gpointer state = g_steal_pointer (&self->state);

  forget_waiting (self);
  /* The Swift side unparents the child and lets go of the library, timers and handlers. */
  if (state)
    implementation->dispose (state);
  G_OBJECT_CLASS (photopick_picker_parent_class)->dispose (object);
}

static void
photopick_picker_finalize (GObject *object)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (object);

  g_strfreev (self->library_folders);
  g_strfreev (self->mime_types);
  g_strfreev (self->name_patterns);
  g_free (self->album);
  g_free (self->confirm_label);
  g_free (self->cancel_label);
  g_free (self->title);
  g_free (self->capture_folder);
  g_free (self->date);
  g_free (self->camera);
  g_clear_object (&self->filters);
  g_clear_object (&self->filter);
  G_OBJECT_CLASS (photopick_picker_parent_class)->finalize (object);
}

static void
photopick_picker_get_property (GObject *object, guint property_id, GValue *value, GParamSpec *pspec)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (object);

  switch (property_id)
    {
    case PROP_LIBRARY_FOLDERS:
      g_value_set_boxed (value, self->library_folders);
      break;
    case PROP_MAX_PICKS:
      g_value_set_uint (value, self->max_picks);
      break;
    case PROP_MIME_TYPES:
      g_value_set_boxed (value, self->mime_types);
      break;
    case PROP_NAME_PATTERNS:
      g_value_set_boxed (value, self->name_patterns);
      break;
    case PROP_ALBUM:
      g_value_set_string (value, self->album);
      break;
    case PROP_SHOW_CAMERA:
      g_value_set_boolean (value, self->show_camera);
      break;
    case PROP_SHOW_HEADER:
      g_value_set_boolean (value, self->show_header);
      break;
    case PROP_SHOW_CHOOSE_FOLDER:
      g_value_set_boolean (value, self->show_choose_folder);
      break;
    case PROP_CONFIRM_LABEL:
      g_value_set_string (value, self->confirm_label);
      break;
    case PROP_CANCEL_LABEL:
      g_value_set_string (value, self->cancel_label);
      break;
    case PROP_SHOW_CANCEL:
      g_value_set_boolean (value, self->show_cancel);
      break;
    case PROP_TITLE:
      g_value_set_string (value, self->title);
      break;
    case PROP_ENTER_CONFIRMS:
      g_value_set_boolean (value, self->enter_confirms);
      break;
    case PROP_ACCEPTS_TYPED_PATHS:
      g_value_set_boolean (value, self->accepts_typed_paths);
      break;
    case PROP_CELL_SIZE:
      g_value_set_uint (value, self->cell_size);
      break;
    case PROP_CAPTURE_FOLDER:
      g_value_set_string (value, self->capture_folder);
      break;
    case PROP_CAMERA:
      g_value_set_string (value, self->camera);
      break;
    case PROP_COPY_REMOTE_PICKS:
      g_value_set_boolean (value, self->copy_remote_picks);
      break;
    case PROP_DATE:
      g_value_set_string (value, self->date);
      break;
    case PROP_FILTERS:
      g_value_set_object (value, self->filters);
      break;
    case PROP_FILTER:
      g_value_set_object (value, self->filter);
      break;
    case PROP_PICKED_COUNT:
      g_value_set_uint (value, self->picked_count);
      break;
    case PROP_PICKED_URIS:
      g_value_take_boxed (value, photopick_picker_get_picked_uris (self));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, property_id, pspec);
    }
}

static void
photopick_picker_set_property (GObject *object, guint property_id, const GValue *value, GParamSpec *pspec)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (object);

  switch (property_id)
    {
    case PROP_LIBRARY_FOLDERS:
      photopick_picker_set_library_folders (self, g_value_get_boxed (value));
      break;
    case PROP_MAX_PICKS:
      photopick_picker_set_max_picks (self, g_value_get_uint (value));
      break;
    case PROP_MIME_TYPES:
      photopick_picker_set_mime_types (self, g_value_get_boxed (value));
      break;
    case PROP_NAME_PATTERNS:
      photopick_picker_set_name_patterns (self, g_value_get_boxed (value));
      break;
    case PROP_ALBUM:
      photopick_picker_set_album (self, g_value_get_string (value));
      break;
    case PROP_SHOW_CAMERA:
      photopick_picker_set_show_camera (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_HEADER:
      photopick_picker_set_show_header (self, g_value_get_boolean (value));
      break;
    case PROP_SHOW_CHOOSE_FOLDER:
      photopick_picker_set_show_choose_folder (self, g_value_get_boolean (value));
      break;
    case PROP_CONFIRM_LABEL:
      photopick_picker_set_confirm_label (self, g_value_get_string (value));
      break;
    case PROP_CANCEL_LABEL:
      photopick_picker_set_cancel_label (self, g_value_get_string (value));
      break;
    case PROP_SHOW_CANCEL:
      photopick_picker_set_show_cancel (self, g_value_get_boolean (value));
      break;
    case PROP_TITLE:
      photopick_picker_set_title (self, g_value_get_string (value));
      break;
    case PROP_ENTER_CONFIRMS:
      photopick_picker_set_enter_confirms (self, g_value_get_boolean (value));
      break;
    case PROP_ACCEPTS_TYPED_PATHS:
      photopick_picker_set_accepts_typed_paths (self, g_value_get_boolean (value));
      break;
    case PROP_CELL_SIZE:
      photopick_picker_set_cell_size (self, g_value_get_uint (value));
      break;
    case PROP_CAPTURE_FOLDER:
      photopick_picker_set_capture_folder (self, g_value_get_string (value));
      break;
    case PROP_CAMERA:
      photopick_picker_set_camera (self, g_value_get_string (value));
      break;
    case PROP_COPY_REMOTE_PICKS:
      photopick_picker_set_copy_remote_picks (self, g_value_get_boolean (value));
      break;
    case PROP_DATE:
      photopick_picker_set_date (self, g_value_get_string (value));
      break;
    case PROP_FILTER:
      photopick_picker_set_filter (self, g_value_get_object (value));
      break;
    case PROP_PICKED_URIS:
      photopick_picker_set_picked_uris (self, g_value_get_boxed (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, property_id, pspec);
    }
}

static gboolean
photopick_picker_grab_focus (GtkWidget *widget)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (widget);

  ensure_state (self);
  return self->state ? implementation->grab_focus (self->state) : FALSE;
}

/* Tab and Shift+Tab move through the picker's widgets in their order (the header row, the
 * grid, the strip) and out at its edges. GTK's default would grab_focus the picker, which puts
 * the focus on the grid: Tab from the host's widget above never reached the header row. */
static gboolean
photopick_picker_focus (GtkWidget *widget, GtkDirectionType direction)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  return child != NULL && gtk_widget_child_focus (child, direction);
}

/* The picker expands as its content does (the grid: both ways), as GTK's containers do; a
 * widget's own default is not to expand. */
static void
photopick_picker_compute_expand (GtkWidget *widget, gboolean *hexpand, gboolean *vexpand)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  *hexpand = child != NULL && gtk_widget_compute_expand (child, GTK_ORIENTATION_HORIZONTAL);
  *vexpand = child != NULL && gtk_widget_compute_expand (child, GTK_ORIENTATION_VERTICAL);
}

static GtkSizeRequestMode
photopick_picker_get_request_mode (GtkWidget *widget)
{
  GtkWidget *child = gtk_widget_get_first_child (widget);

  return child != NULL ? gtk_widget_get_request_mode (child) : GTK_SIZE_REQUEST_CONSTANT_SIZE;
}

/* The picker.* actions with their accelerators as the class's shortcuts: they act while the
 * focus is in the picker, so a host's own Ctrl+Return (send a message) stays its own. The
 * program's window lists the same commands (PickerUI/PickerActions.swift; CellTests checks that
 * the two agree). Escape, Space and Return are the grid's and the preview's own keys. */
static const struct {
  const char *name;
  const char *accelerators[4];
} picker_actions[] = {
  { "confirm",      { "<Control>Return", "<Control>KP_Enter", NULL } },
  { "cancel",       { NULL } },
  { "pick",         { NULL } },
  { "preview",      { "<Alt>Return", NULL } },
  { "zoom-in",      { "<Control>plus", "<Control>equal", "<Control>KP_Add", NULL } },
  { "zoom-out",     { "<Control>minus", "<Control>KP_Subtract", NULL } },
  { "choose-album", { "<Control>o", NULL } },
  { "take-photo",   { "<Control>t", NULL } },
  { "location",     { "<Control>l", NULL } },
  { "pick-all",     { "<Control>a", NULL } },
  { "unpick-all",   { "<Shift><Control>a", NULL } },
  { "clear-recently-picked", { NULL } },
};

static void
activate_action (GtkWidget *widget, const char *action_name, GVariant *parameter)
{
  PhotopickPicker *self = PHOTOPICK_PICKER (widget);

  ensure_state (self);
  if (self->state != NULL)
    implementation->activate (self->state, action_name + strlen ("picker."));
}

static void
install_actions (GtkWidgetClass *widget_class)
{
  for (gsize i = 0; i < G_N_ELEMENTS (picker_actions); i++)
    {
      g_autofree char *name = g_strconcat ("picker.", picker_actions[i].name, NULL);

      gtk_widget_class_install_action (widget_class, name, NULL, activate_action);
      for (const char * const *accelerator = picker_actions[i].accelerators; *accelerator != NULL; accelerator++)
        {
          GtkShortcut *shortcut = gtk_shortcut_new (gtk_shortcut_trigger_parse_string (*accelerator), gtk_named_action_new (name));

          /* (The class keeps its own reference.) */
          gtk_widget_class_add_shortcut (widget_class, shortcut);
          g_object_unref (shortcut);
        }
    }
}

static void
photopick_picker_class_init (PhotopickPickerClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->constructed = photopick_picker_constructed;
  object_class->dispose = photopick_picker_dispose;
  object_class->finalize = photopick_picker_finalize;
  object_class->get_property = photopick_picker_get_property;
  object_class->set_property = photopick_picker_set_property;
  widget_class->grab_focus = photopick_picker_grab_focus;
  widget_class->focus = photopick_picker_focus;
  widget_class->compute_expand = photopick_picker_compute_expand;
  widget_class->get_request_mode = photopick_picker_get_request_mode;

  /**
   * PhotopickPicker:library-folders: (type GStrv)
   *
   * The folders the picker shows, with everything under them; empty (the default) means the
   * person's own folders: Pictures and Videos, or the folders they chose in the picker.
   *
   * Since: 0.2
   */
  properties[PROP_LIBRARY_FOLDERS] =
    g_param_spec_boxed ("library-folders", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:max-picks:
   *
   * How many photos may be picked; 0 (the default) means no limit. One picked more is refused
   * with a message that says the limit.
   *
   * Since: 0.2
   */
  properties[PROP_MAX_PICKS] =
    g_param_spec_uint ("max-picks", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:mime-types: (type GStrv)
   *
   * The types of file the picker offers, as MIME types (`video/mp4`) or patterns (`image/` and a
   * star: every image);
   * empty (the default) offers every photo and video.
   *
   * Since: 0.2
   */
  properties[PROP_MIME_TYPES] =
    g_param_spec_boxed ("mime-types", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:name-patterns: (type GStrv)
   *
   * The names of the files the picker offers, as shell patterns (`*.jpg`, `IMG_*`), as a file
   * chooser's filter and `photopick --file-filter` take them; empty (the default) offers every
   * name. With [property@Photopick.Picker:mime-types] too, a file must match both.
   *
   * Since: 0.3
   */
  properties[PROP_NAME_PATTERNS] =
    g_param_spec_boxed ("name-patterns", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:album:
   *
   * The album the picker opens on, by the name `photopick albums` prints ("Recents", "Videos",
   * a folder's name, or the name and a slash to mean the folder: "Videos/"); %NULL (the
   * default) opens Recents. It follows the album the person opens.
   *
   * Since: 0.2
   */
  properties[PROP_ALBUM] =
    g_param_spec_string ("album", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:show-camera:
   *
   * Whether the live camera is the first cell of Recents, when there is a camera.
   *
   * Since: 0.2
   */
  properties[PROP_SHOW_CAMERA] =
    g_param_spec_boolean ("show-camera", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:show-header:
   *
   * Whether the picker shows its own header row (cancel, the album switcher, the confirm
   * button). A program that packs [method@Photopick.Picker.get_header_widgets] into its own
   * header bar sets it to %FALSE.
   *
   * Since: 0.2
   */
  properties[PROP_SHOW_HEADER] =
    g_param_spec_boolean ("show-header", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:show-choose-folder:
   *
   * Whether the picker, when it has nothing to show (no Pictures folder, a folder that is
   * missing, no photos yet), offers Choose Folder…: the folder chosen joins the picker's
   * folders (the person's own, remembered for later, when
   * [property@Photopick.Picker:library-folders] is empty; else it is added to that property).
   *
   * Since: 0.3
   */
  properties[PROP_SHOW_CHOOSE_FOLDER] =
    g_param_spec_boolean ("show-choose-folder", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:confirm-label:
   *
   * The words of the confirm button ("Send", "Attach"); %NULL (the default) says "Add". The
   * number of picks is added to them.
   *
   * Since: 0.2
   */
  properties[PROP_CONFIRM_LABEL] =
    g_param_spec_string ("confirm-label", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:cancel-label:
   *
   * The words of the cancel button ("Close", "Back"); %NULL (the default) says "Cancel".
   *
   * Since: 0.3
   */
  properties[PROP_CANCEL_LABEL] =
    g_param_spec_string ("cancel-label", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:show-cancel:
   *
   * Whether the picker has a cancel button, and Escape (with no preview, camera or typed path to
   * go back from) cancels. A program whose window closes by other means (its own title buttons)
   * sets it to %FALSE: Escape then only goes back.
   *
   * Since: 0.3
   */
  properties[PROP_SHOW_CANCEL] =
    g_param_spec_boolean ("show-cancel", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:title:
   *
   * What the picker is for ("Attach Photos"), shown in its header's title over the open album's
   * name; %NULL (the default) shows the album's name alone.
   *
   * Since: 0.3
   */
  properties[PROP_TITLE] =
    g_param_spec_string ("title", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:enter-confirms:
   *
   * Whether Enter on a photo confirms, as in a file chooser: the picks, or that photo when
   * nothing is picked. %FALSE (the default): Enter picks the photo, as Space always does.
   *
   * Since: 0.3
   */
  properties[PROP_ENTER_CONFIRMS] =
    g_param_spec_boolean ("enter-confirms", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:accepts-typed-paths:
   *
   * Whether Ctrl+L opens an entry where a file's path can be typed, as a file chooser's location
   * does: a file typed there is the answer ([signal@Photopick.Picker::confirmed] with that one
   * file), whether the picker shows it or not. %FALSE by default.
   *
   * Since: 0.3
   */
  properties[PROP_ACCEPTS_TYPED_PATHS] =
    g_param_spec_boolean ("accepts-typed-paths", NULL, NULL, FALSE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:cell-size:
   *
   * The side of a photo in the grid, in pixels, before the grid stretches its columns to fill
   * its width: one of 72, 96, 120, 160, 200 and 256 (another size takes the nearest, and the
   * property then says it); 0 (the default) is 120, said once the picker is built. It follows
   * the person's zoom (Ctrl+plus, Ctrl+minus, Ctrl+scroll), so a program can keep it for next
   * time.
   *
   * Since: 0.3
   */
  properties[PROP_CELL_SIZE] =
    g_param_spec_uint ("cell-size", NULL, NULL, 0, 1024, 0,
                       G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:capture-folder:
   *
   * Where photos taken with the camera are saved, a path or a `file://` URI; %NULL (the
   * default) is the Camera folder in the person's Pictures.
   *
   * Since: 0.3
   */
  properties[PROP_CAPTURE_FOLDER] =
    g_param_spec_string ("capture-folder", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:camera:
   *
   * The camera of the first cell, by its device (`/dev/video2`) or its name; %NULL (the default)
   * is the first camera found. It follows the camera the person switches to, so a program can
   * keep it for next time.
   *
   * Since: 0.3
   */
  properties[PROP_CAMERA] =
    g_param_spec_string ("camera", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:copy-remote-picks:
   *
   * Whether a photo on another machine is copied here as it is picked (with a progress ring on
   * its cell), and [signal@Photopick.Picker::confirmed] waits for the copies and gives their
   * `file://` URIs. %FALSE: nothing is copied, and confirmed gives such a photo's own URI
   * (`sftp://…`), for a program that reads it through GIO. %TRUE by default.
   *
   * Since: 0.3
   */
  properties[PROP_COPY_REMOTE_PICKS] =
    g_param_spec_boolean ("copy-remote-picks", NULL, NULL, TRUE,
                          G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:date:
   *
   * Where the open album is: a year, a month or a day (`2024`, `2024-03`, `2024-03-12`), whose
   * newest photo, or the newest before it, the picker shows in its first row. It follows the
   * view: the month of the first row in sight as the person scrolls (`2024-03`), %NULL at the
   * top of the album (the default), so a program can keep it for next time. A text that is
   * not such a date is said in the picker, which stays where it is.
   *
   * Since: 0.3
   */
  properties[PROP_DATE] =
    g_param_spec_string ("date", NULL, NULL, NULL,
                         G_PARAM_READWRITE | G_PARAM_CONSTRUCT | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:filters:
   *
   * The file chooser filters the person chooses from (as GtkFileChooser's and GtkFileDialog's):
   * with one or more, the picker shows a list of their names beside its confirm button, and
   * shows only the files the chosen one matches (a file matches a filter when it matches any of
   * its MIME types, patterns or suffixes). [property@Photopick.Picker:mime-types] and
   * [property@Photopick.Picker:name-patterns] still limit every filter.
   * Changed with [method@Photopick.Picker.add_filter] and [method@Photopick.Picker.remove_filter].
   *
   * Since: 0.3
   */
  properties[PROP_FILTERS] =
    g_param_spec_object ("filters", NULL, NULL, G_TYPE_LIST_MODEL,
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:filter:
   *
   * The filter in use, one of [property@Photopick.Picker:filters]: the first added until
   * another is set, or the person chooses another; %NULL with no filters.
   *
   * Since: 0.3
   */
  properties[PROP_FILTER] =
    g_param_spec_object ("filter", NULL, NULL, GTK_TYPE_FILE_FILTER,
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:picked-count:
   *
   * How many photos are picked now.
   *
   * Since: 0.2
   */
  properties[PROP_PICKED_COUNT] =
    g_param_spec_uint ("picked-count", NULL, NULL, 0, G_MAXUINT, 0,
                       G_PARAM_READABLE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  /**
   * PhotopickPicker:picked-uris: (type GStrv)
   *
   * What is picked now, in pick order, as URIs: `file://` ones, and a photo on another machine
   * by its own location (`sftp://…`) from the moment it is picked, before its copy is fetched
   * ([signal@Photopick.Picker::pick-copied] says when that copy lands). It is notified at every
   * pick and unpick, so a composer shows the attachments while the person picks.
   *
   * Set it to pick these files again (a draft's attachments): those the picker's folders hold
   * are picked in this order, those it has not found yet (a first run) as its scan finds them;
   * the rest are left out.
   *
   * Since: 0.3
   */
  properties[PROP_PICKED_URIS] =
    g_param_spec_boxed ("picked-uris", NULL, NULL, G_TYPE_STRV,
                        G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);

  g_object_class_install_properties (object_class, N_PROPS, properties);

  /**
   * PhotopickPicker::confirmed:
   * @self: the picker
   * @uris: (array zero-terminated=1) (element-type utf8): the picked files as `file://` URIs,
   *   in pick order (a file deleted meanwhile is left out)
   *
   * The person confirmed their picks (the confirm button, Ctrl+Return, or
   * [method@Photopick.Picker.confirm]). The picks stay until [method@Photopick.Picker.clear].
   *
   * Since: 0.2
   */
  signals[SIGNAL_CONFIRMED] =
    g_signal_new ("confirmed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 1, G_TYPE_STRV);

  /**
   * PhotopickPicker::cancelled:
   * @self: the picker
   *
   * The person cancelled: Escape (with no preview or camera to go back from) or the cancel
   * button. The picks stay.
   *
   * Since: 0.2
   */
  signals[SIGNAL_CANCELLED] =
    g_signal_new ("cancelled", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 0);

  /**
   * PhotopickPicker::pick-copied:
   * @self: the picker
   * @uri: the pick's own URI, as in [property@Photopick.Picker:picked-uris]
   * @copy_uri: the `file://` URI of its local copy
   *
   * The local copy of a pick on another machine is complete: a program can read it as a local
   * file now. [signal@Photopick.Picker::confirmed] gives these copies' URIs.
   *
   * Since: 0.3
   */
  signals[SIGNAL_PICK_COPIED] =
    g_signal_new ("pick-copied", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST, 0, NULL, NULL, NULL,
                  G_TYPE_NONE, 2, G_TYPE_STRING, G_TYPE_STRING);

  gtk_widget_class_set_layout_manager_type (widget_class, GTK_TYPE_BIN_LAYOUT);
  gtk_widget_class_set_css_name (widget_class, "photopick-picker");
  gtk_widget_class_set_accessible_role (widget_class, GTK_ACCESSIBLE_ROLE_GROUP);
  install_actions (widget_class);
}

static void
photopick_picker_init (PhotopickPicker *self)
{
  self->show_camera = TRUE;
  self->show_header = TRUE;
  self->show_choose_folder = TRUE;
  self->show_cancel = TRUE;
  self->copy_remote_picks = TRUE;
  self->filters = g_list_store_new (GTK_TYPE_FILE_FILTER);
  /* (On with accepts-typed-paths.) */
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "picker.location", FALSE);
}

/**
 * photopick_picker_new:
 *
 * Makes a picker on the person's own folders, with no limit on the picks.
 *
 * Returns: (transfer floating): the new picker
 *
 * Since: 0.2
 */
GtkWidget *
photopick_picker_new (void)
{
  return g_object_new (PHOTOPICK_TYPE_PICKER, NULL);
}

/**
 * photopick_picker_get_picked_uris:
 * @self: a picker
 *
 * Gets what is picked now, in pick order ([property@Photopick.Picker:picked-uris]).
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type utf8): the picked files'
 *   URIs; free with g_strfreev()
 *
 * Since: 0.2
 */
char **
photopick_picker_get_picked_uris (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  ensure_state (self);
  if (!self->state)
    return g_new0 (char *, 1);
  return implementation->picked_uris (self->state);
}

/**
 * photopick_picker_set_picked_uris:
 * @self: a picker
 * @uris: (array zero-terminated=1) (element-type utf8) (nullable): the files to pick, as URIs,
 *   in pick order; %NULL unpicks everything
 *
 * Picks these files again, in this order, instead of what is picked
 * ([property@Photopick.Picker:picked-uris]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_picked_uris (PhotopickPicker *self, const char * const *uris)
{
  static const char * const none[] = { NULL };

  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  ensure_state (self);
  if (self->state)
    implementation->set_picked_uris (self->state, uris ? uris : none);
}

/**
 * photopick_picker_get_picked_count:
 * @self: a picker
 *
 * Gets how many photos are picked now.
 *
 * Returns: the number of picks
 *
 * Since: 0.2
 */
guint
photopick_picker_get_picked_count (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), 0);

  return self->picked_count;
}

/**
 * photopick_picker_confirm:
 * @self: a picker
 *
 * Confirms the picks as the confirm button does: [signal@Photopick.Picker::confirmed] is
 * emitted with them, when there are any.
 *
 * Since: 0.2
 */
void
photopick_picker_confirm (PhotopickPicker *self)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  ensure_state (self);
  if (self->state)
    implementation->confirm (self->state);
}

/**
 * photopick_picker_clear:
 * @self: a picker
 *
 * Unpicks everything (after the picks were sent, say).
 *
 * Since: 0.2
 */
void
photopick_picker_clear (PhotopickPicker *self)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  ensure_state (self);
  if (self->state)
    implementation->clear (self->state);
}

/**
 * photopick_picker_get_library_folders:
 * @self: a picker
 *
 * Gets the folders the picker was given ([property@Photopick.Picker:library-folders]).
 *
 * Returns: (transfer none) (array zero-terminated=1) (element-type filename) (nullable): the
 *   folders, or %NULL for the person's own
 *
 * Since: 0.2
 */
const char * const *
photopick_picker_get_library_folders (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return (const char * const *) self->library_folders;
}

/**
 * photopick_picker_set_library_folders:
 * @self: a picker
 * @folders: (array zero-terminated=1) (element-type filename) (nullable): the folders to show,
 *   or %NULL (or none) for the person's own
 *
 * Shows these folders. The picks are kept when a picked file is in the new folders too.
 *
 * Since: 0.2
 */
void
photopick_picker_set_library_folders (PhotopickPicker *self, const char * const *folders)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  if (strv_same ((const char * const *) self->library_folders, folders))
    return;
  g_strfreev (self->library_folders);
  self->library_folders = folders && folders[0] ? g_strdupv ((char **) folders) : NULL;
  changed (self, PROP_LIBRARY_FOLDERS);
}

/**
 * photopick_picker_get_max_picks:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:max-picks].
 *
 * Returns: the most photos that may be picked, or 0 for no limit
 *
 * Since: 0.2
 */
guint
photopick_picker_get_max_picks (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), 0);

  return self->max_picks;
}

/**
 * photopick_picker_set_max_picks:
 * @self: a picker
 * @max_picks: the most photos that may be picked, or 0 for no limit
 *
 * Limits the picks. Photos picked beyond a new, lower limit stay picked.
 *
 * Since: 0.2
 */
void
photopick_picker_set_max_picks (PhotopickPicker *self, guint max_picks)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  if (self->max_picks == max_picks)
    return;
  self->max_picks = max_picks;
  changed (self, PROP_MAX_PICKS);
}

/**
 * photopick_picker_get_mime_types:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:mime-types].
 *
 * Returns: (transfer none) (array zero-terminated=1) (element-type utf8) (nullable): the
 *   MIME types or patterns offered, or %NULL for every photo and video
 *
 * Since: 0.2
 */
const char * const *
photopick_picker_get_mime_types (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return (const char * const *) self->mime_types;
}

/**
 * photopick_picker_set_mime_types:
 * @self: a picker
 * @mime_types: (array zero-terminated=1) (element-type utf8) (nullable): MIME types, or
 *   patterns such as `image/` and a star, or %NULL for every photo and video
 *
 * Offers only files of these types, in every album.
 *
 * Since: 0.2
 */
void
photopick_picker_set_mime_types (PhotopickPicker *self, const char * const *mime_types)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  if (strv_same ((const char * const *) self->mime_types, mime_types))
    return;
  g_strfreev (self->mime_types);
  self->mime_types = mime_types && mime_types[0] ? g_strdupv ((char **) mime_types) : NULL;
  changed (self, PROP_MIME_TYPES);
}

/**
 * photopick_picker_get_name_patterns:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:name-patterns].
 *
 * Returns: (transfer none) (array zero-terminated=1) (element-type utf8) (nullable): the
 *   patterns of the names offered, or %NULL for every name
 *
 * Since: 0.3
 */
const char * const *
photopick_picker_get_name_patterns (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return (const char * const *) self->name_patterns;
}

/**
 * photopick_picker_set_name_patterns:
 * @self: a picker
 * @patterns: (array zero-terminated=1) (element-type utf8) (nullable): shell patterns of
 *   file names (`*.jpg`), or %NULL for every name
 *
 * Offers only files whose names match one of these patterns, in every album.
 *
 * Since: 0.3
 */
void
photopick_picker_set_name_patterns (PhotopickPicker *self, const char * const *patterns)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  if (strv_same ((const char * const *) self->name_patterns, patterns))
    return;
  g_strfreev (self->name_patterns);
  self->name_patterns = patterns && patterns[0] ? g_strdupv ((char **) patterns) : NULL;
  changed (self, PROP_NAME_PATTERNS);
}

/**
 * photopick_picker_get_album:
 * @self: a picker
 *
 * Gets the name of the album shown ([property@Photopick.Picker:album]).
 *
 * Returns: (transfer none) (nullable): the album's name
 *
 * Since: 0.2
 */
const char *
photopick_picker_get_album (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->album;
}

/**
 * photopick_picker_set_album:
 * @self: a picker
 * @album: (nullable): an album's name, as `photopick albums` prints it ("Videos/" for the
 *   folder of that name), or %NULL for Recents
 *
 * Opens this album. A name no album has is said in the picker, which stays where it is.
 *
 * Since: 0.2
 */
void
photopick_picker_set_album (PhotopickPicker *self, const char *album)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  if (g_strcmp0 (self->album, album) == 0)
    return;
  g_free (self->album);
  self->album = g_strdup (album);
  changed (self, PROP_ALBUM);
}

/**
 * photopick_picker_get_show_camera:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:show-camera].
 *
 * Returns: whether the camera is offered
 *
 * Since: 0.2
 */
gboolean
photopick_picker_get_show_camera (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->show_camera;
}

/**
 * photopick_picker_set_show_camera:
 * @self: a picker
 * @show_camera: whether the live camera is the first cell
 *
 * Offers the camera, or not.
 *
 * Since: 0.2
 */
void
photopick_picker_set_show_camera (PhotopickPicker *self, gboolean show_camera)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  show_camera = !!show_camera;
  if (self->show_camera == show_camera)
    return;
  self->show_camera = show_camera;
  changed (self, PROP_SHOW_CAMERA);
}

/**
 * photopick_picker_get_show_header:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:show-header].
 *
 * Returns: whether the picker shows its own header row
 *
 * Since: 0.2
 */
gboolean
photopick_picker_get_show_header (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->show_header;
}

/**
 * photopick_picker_set_show_header:
 * @self: a picker
 * @show_header: whether the picker shows its own header row
 *
 * Shows the picker's header row, or leaves its widgets to the program.
 *
 * Since: 0.2
 */
void
photopick_picker_set_show_header (PhotopickPicker *self, gboolean show_header)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  show_header = !!show_header;
  if (self->show_header == show_header)
    return;
  self->show_header = show_header;
  changed (self, PROP_SHOW_HEADER);
}

/**
 * photopick_picker_get_show_choose_folder:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:show-choose-folder].
 *
 * Returns: whether the empty picker offers Choose Folder…
 *
 * Since: 0.3
 */
gboolean
photopick_picker_get_show_choose_folder (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->show_choose_folder;
}

/**
 * photopick_picker_set_show_choose_folder:
 * @self: a picker
 * @show_choose_folder: whether the empty picker offers Choose Folder…
 *
 * Offers Choose Folder… when the picker has nothing to show, or not (a program that manages
 * the folders itself).
 *
 * Since: 0.3
 */
void
photopick_picker_set_show_choose_folder (PhotopickPicker *self, gboolean show_choose_folder)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  show_choose_folder = !!show_choose_folder;
  if (self->show_choose_folder == show_choose_folder)
    return;
  self->show_choose_folder = show_choose_folder;
  changed (self, PROP_SHOW_CHOOSE_FOLDER);
}

/**
 * photopick_picker_get_confirm_label:
 * @self: a picker
 *
 * Gets [property@Photopick.Picker:confirm-label].
 *
 * Returns: (transfer none) (nullable): the confirm button's words, or %NULL for "Add"
 *
 * Since: 0.2
 */
const char *
photopick_picker_get_confirm_label (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->confirm_label;
}

/**
 * photopick_picker_set_confirm_label:
 * @self: a picker
 * @label: (nullable): the confirm button's words ("Send"), or %NULL for "Add"
 *
 * Names the confirm button.
 *
 * Since: 0.2
 */
void
photopick_picker_set_confirm_label (PhotopickPicker *self, const char *label)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  if (g_strcmp0 (self->confirm_label, label) == 0)
    return;
  g_free (self->confirm_label);
  self->confirm_label = g_strdup (label);
  changed (self, PROP_CONFIRM_LABEL);
}

/**
 * photopick_picker_get_header_widgets:
 * @self: a picker
 * @start: (out) (transfer none) (optional): the widgets for the start of a header bar (cancel,
 *   back from the preview, the indexing progress)
 * @title: (out) (transfer none) (optional): the album switcher, for a header bar's title
 * @end: (out) (transfer none) (optional): the widgets for its end (the confirm button)
 *
 * Gets the picker's header widgets, for a program that hides the picker's header row
 * ([property@Photopick.Picker:show-header]) and packs them into its own header bar. The
 * picker keeps them while it lives.
 *
 * Since: 0.2
 */
/* The accessors of the properties added in 0.3 share these three. */
static void
set_string (PhotopickPicker *self, char **field, const char *value, guint property)
{
  if (g_strcmp0 (*field, value) == 0)
    return;
  g_free (*field);
  *field = g_strdup (value);
  changed (self, property);
}

static void
set_boolean (PhotopickPicker *self, gboolean *field, gboolean value, guint property)
{
  value = !!value;
  if (*field == value)
    return;
  *field = value;
  changed (self, property);
}

/**
 * photopick_picker_get_cancel_label:
 * @self: a picker
 *
 * Gets the words of the cancel button ([property@Photopick.Picker:cancel-label]).
 *
 * Returns: (nullable): the label, or %NULL for "Cancel"
 *
 * Since: 0.3
 */
const char *
photopick_picker_get_cancel_label (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->cancel_label;
}

/**
 * photopick_picker_set_cancel_label:
 * @self: a picker
 * @label: (nullable): the words, or %NULL for "Cancel"
 *
 * Sets the words of the cancel button ([property@Photopick.Picker:cancel-label]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_cancel_label (PhotopickPicker *self, const char *label)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_string (self, &self->cancel_label, label, PROP_CANCEL_LABEL);
}

/**
 * photopick_picker_get_show_cancel:
 * @self: a picker
 *
 * Gets whether the picker has a cancel button ([property@Photopick.Picker:show-cancel]).
 *
 * Returns: whether it has one
 *
 * Since: 0.3
 */
gboolean
photopick_picker_get_show_cancel (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->show_cancel;
}

/**
 * photopick_picker_set_show_cancel:
 * @self: a picker
 * @show_cancel: whether it has one
 *
 * Sets whether the picker has a cancel button and Escape cancels
 * ([property@Photopick.Picker:show-cancel]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_show_cancel (PhotopickPicker *self, gboolean show_cancel)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_boolean (self, &self->show_cancel, show_cancel, PROP_SHOW_CANCEL);
}

/**
 * photopick_picker_get_title:
 * @self: a picker
 *
 * Gets what the picker is for ([property@Photopick.Picker:title]).
 *
 * Returns: (nullable): the title
 *
 * Since: 0.3
 */
const char *
photopick_picker_get_title (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->title;
}

/**
 * photopick_picker_set_title:
 * @self: a picker
 * @title: (nullable): the words over the album's name, or %NULL for none
 *
 * Sets what the picker is for ([property@Photopick.Picker:title]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_title (PhotopickPicker *self, const char *title)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_string (self, &self->title, title, PROP_TITLE);
}

/**
 * photopick_picker_get_enter_confirms:
 * @self: a picker
 *
 * Gets whether Enter on a photo confirms ([property@Photopick.Picker:enter-confirms]).
 *
 * Returns: whether it confirms
 *
 * Since: 0.3
 */
gboolean
photopick_picker_get_enter_confirms (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->enter_confirms;
}

/**
 * photopick_picker_set_enter_confirms:
 * @self: a picker
 * @enter_confirms: whether Enter confirms
 *
 * Sets whether Enter on a photo confirms ([property@Photopick.Picker:enter-confirms]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_enter_confirms (PhotopickPicker *self, gboolean enter_confirms)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_boolean (self, &self->enter_confirms, enter_confirms, PROP_ENTER_CONFIRMS);
}

/**
 * photopick_picker_get_accepts_typed_paths:
 * @self: a picker
 *
 * Gets whether a file's path may be typed ([property@Photopick.Picker:accepts-typed-paths]).
 *
 * Returns: whether it may
 *
 * Since: 0.3
 */
gboolean
photopick_picker_get_accepts_typed_paths (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->accepts_typed_paths;
}

/**
 * photopick_picker_set_accepts_typed_paths:
 * @self: a picker
 * @accepts_typed_paths: whether Ctrl+L opens the location entry
 *
 * Sets whether a file's path may be typed ([property@Photopick.Picker:accepts-typed-paths]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_accepts_typed_paths (PhotopickPicker *self, gboolean accepts_typed_paths)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_boolean (self, &self->accepts_typed_paths, accepts_typed_paths, PROP_ACCEPTS_TYPED_PATHS);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "picker.location", self->accepts_typed_paths);
}

/**
 * photopick_picker_get_cell_size:
 * @self: a picker
 *
 * Gets the side of a photo in the grid ([property@Photopick.Picker:cell-size]).
 *
 * Returns: the size in pixels, or 0 for the default
 *
 * Since: 0.3
 */
guint
photopick_picker_get_cell_size (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), 0);

  return self->cell_size;
}

/**
 * photopick_picker_set_cell_size:
 * @self: a picker
 * @cell_size: the size in pixels, or 0 for the default
 *
 * Sets the side of a photo in the grid ([property@Photopick.Picker:cell-size]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_cell_size (PhotopickPicker *self, guint cell_size)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  cell_size = MIN (cell_size, 1024);
  if (self->cell_size == cell_size)
    return;
  self->cell_size = cell_size;
  changed (self, PROP_CELL_SIZE);
}

/**
 * photopick_picker_get_capture_folder:
 * @self: a picker
 *
 * Gets where camera photos are saved ([property@Photopick.Picker:capture-folder]).
 *
 * Returns: (nullable): the folder, or %NULL for the default
 *
 * Since: 0.3
 */
const char *
photopick_picker_get_capture_folder (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->capture_folder;
}

/**
 * photopick_picker_set_capture_folder:
 * @self: a picker
 * @folder: (nullable): a path or a `file://` URI, or %NULL for the default
 *
 * Sets where camera photos are saved ([property@Photopick.Picker:capture-folder]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_capture_folder (PhotopickPicker *self, const char *folder)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_string (self, &self->capture_folder, folder, PROP_CAPTURE_FOLDER);
}

/**
 * photopick_picker_get_camera:
 * @self: a picker
 *
 * Gets the camera of the first cell ([property@Photopick.Picker:camera]).
 *
 * Returns: (nullable): its device or name, or %NULL for the first found
 *
 * Since: 0.3
 */
const char *
photopick_picker_get_camera (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->camera;
}

/**
 * photopick_picker_set_camera:
 * @self: a picker
 * @camera: (nullable): a device (`/dev/video2`) or a camera's name, or %NULL for the first
 *
 * Sets the camera of the first cell ([property@Photopick.Picker:camera]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_camera (PhotopickPicker *self, const char *camera)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_string (self, &self->camera, camera, PROP_CAMERA);
}

/**
 * photopick_picker_get_copy_remote_picks:
 * @self: a picker
 *
 * Gets whether photos on another machine are copied here as they are picked
 * ([property@Photopick.Picker:copy-remote-picks]).
 *
 * Returns: whether they are copied
 *
 * Since: 0.3
 */
gboolean
photopick_picker_get_copy_remote_picks (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), FALSE);

  return self->copy_remote_picks;
}

/**
 * photopick_picker_set_copy_remote_picks:
 * @self: a picker
 * @copy_remote_picks: whether they are copied
 *
 * Sets whether photos on another machine are copied here as they are picked
 * ([property@Photopick.Picker:copy-remote-picks]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_copy_remote_picks (PhotopickPicker *self, gboolean copy_remote_picks)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_boolean (self, &self->copy_remote_picks, copy_remote_picks, PROP_COPY_REMOTE_PICKS);
}

/**
 * photopick_picker_get_date:
 * @self: a picker
 *
 * Gets the month the view shows at its top ([property@Photopick.Picker:date]).
 *
 * Returns: (transfer none) (nullable): the date, or %NULL at the top of the album
 *
 * Since: 0.3
 */
const char *
photopick_picker_get_date (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->date;
}

/**
 * photopick_picker_set_date:
 * @self: a picker
 * @date: (nullable): `YYYY`, `YYYY-MM` or `YYYY-MM-DD`, or %NULL for the top of the album
 *
 * Shows the album's newest photo of @date, or the newest before it, in the first row
 * ([property@Photopick.Picker:date]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_date (PhotopickPicker *self, const char *date)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  set_string (self, &self->date, date, PROP_DATE);
}

/**
 * photopick_picker_add_filter:
 * @self: a picker
 * @filter: (transfer none): a filter with a name, the person's choice among the picker's filters
 *
 * Adds @filter to [property@Photopick.Picker:filters]. The first filter added is the one in use
 * ([property@Photopick.Picker:filter]).
 *
 * Since: 0.3
 */
void
photopick_picker_add_filter (PhotopickPicker *self, GtkFileFilter *filter)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));
  g_return_if_fail (GTK_IS_FILE_FILTER (filter));

  if (g_list_store_find (self->filters, filter, NULL))
    return;
  g_list_store_append (self->filters, filter);
  if (self->state)
    implementation->changed (self->state, "filters");
  if (self->filter == NULL)
    photopick_picker_set_filter (self, filter);
}

/**
 * photopick_picker_remove_filter:
 * @self: a picker
 * @filter: one of the picker's filters
 *
 * Removes @filter from [property@Photopick.Picker:filters]; when it was in use, the first of the
 * others is.
 *
 * Since: 0.3
 */
void
photopick_picker_remove_filter (PhotopickPicker *self, GtkFileFilter *filter)
{
  guint position;

  g_return_if_fail (PHOTOPICK_IS_PICKER (self));
  g_return_if_fail (GTK_IS_FILE_FILTER (filter));

  if (!g_list_store_find (self->filters, filter, &position))
    return;
  g_object_ref (filter);
  g_list_store_remove (self->filters, position);
  if (self->state)
    implementation->changed (self->state, "filters");
  if (self->filter == filter)
    {
      GtkFileFilter *first = g_list_model_get_item (G_LIST_MODEL (self->filters), 0);

      photopick_picker_set_filter (self, first);
      g_clear_object (&first);
    }
  g_object_unref (filter);
}

/**
 * photopick_picker_get_filters:
 * @self: a picker
 *
 * Gets the filters the person chooses from ([property@Photopick.Picker:filters]).
 *
 * Returns: (transfer none): a list of [class@Gtk.FileFilter]
 *
 * Since: 0.3
 */
GListModel *
photopick_picker_get_filters (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return G_LIST_MODEL (self->filters);
}

/**
 * photopick_picker_get_filter:
 * @self: a picker
 *
 * Gets the filter in use ([property@Photopick.Picker:filter]).
 *
 * Returns: (transfer none) (nullable): the filter
 *
 * Since: 0.3
 */
GtkFileFilter *
photopick_picker_get_filter (PhotopickPicker *self)
{
  g_return_val_if_fail (PHOTOPICK_IS_PICKER (self), NULL);

  return self->filter;
}

/**
 * photopick_picker_set_filter:
 * @self: a picker
 * @filter: (nullable): one of the picker's filters, or %NULL for none
 *
 * Sets the filter in use ([property@Photopick.Picker:filter]).
 *
 * Since: 0.3
 */
void
photopick_picker_set_filter (PhotopickPicker *self, GtkFileFilter *filter)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));
  g_return_if_fail (filter == NULL || GTK_IS_FILE_FILTER (filter));

  if (g_set_object (&self->filter, filter))
    changed (self, PROP_FILTER);
}

/**
 * photopick_picker_show_message:
 * @self: a picker
 * @message: a sentence for the person, in their language
 *
 * Shows @message for a few seconds over the grid, where the picker says its own problems ("You
 * can pick up to 3"): for what a program has to tell the person about the picking itself.
 *
 * Since: 0.3
 */
void
photopick_picker_show_message (PhotopickPicker *self, const char *message)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));
  g_return_if_fail (message != NULL);

  ensure_state (self);
  if (self->state)
    implementation->show_message (self->state, message);
}

/**
 * photopick_picker_reveal_uri:
 * @self: a picker
 * @uri: a file's URI, as in [property@Photopick.Picker:picked-uris]
 *
 * Scrolls the grid to the photo at @uri, in the open album, and puts the grid's cursor on it:
 * the keyboard is there when the picker has the focus (it does not take the focus). A file the
 * album does not show is ignored.
 *
 * Since: 0.3
 */
void
photopick_picker_reveal_uri (PhotopickPicker *self, const char *uri)
{
  g_return_if_fail (PHOTOPICK_IS_PICKER (self));
  g_return_if_fail (uri != NULL);

  ensure_state (self);
  if (self->state)
    implementation->reveal_uri (self->state, uri);
}

void
photopick_picker_get_header_widgets (PhotopickPicker *self, GtkWidget **start, GtkWidget **title, GtkWidget **end)
{
  GtkWidget *widgets[3] = { NULL, NULL, NULL };

  g_return_if_fail (PHOTOPICK_IS_PICKER (self));

  ensure_state (self);
  if (self->state)
    implementation->header_widgets (self->state, &widgets[0], &widgets[1], &widgets[2]);
  if (start)
    *start = widgets[0];
  if (title)
    *title = widgets[1];
  if (end)
    *end = widgets[2];
}

/* The picker as a dialog: a window of its own over @parent, for programs that want one rather
 * than the picker inline. One GTask per dialog; the window goes when the task is answered. */

typedef struct {
  GtkWindow *window;
  gulong cancelled_id;
} DialogState;

static void
dialog_state_free (gpointer data)
{
  DialogState *state = data;

  g_clear_object (&state->window);
  g_free (state);
}

static gboolean
dialog_destroy_window (gpointer window)
{
  gtk_window_destroy (GTK_WINDOW (window));
  return G_SOURCE_REMOVE;
}

/* Answers the dialog's task (once) and closes its window. @uris %NULL: dismissed. */
static void
dialog_answer (GTask *task, const char * const *uris)
{
  DialogState *state = g_task_get_task_data (task);
  GCancellable *cancellable = g_task_get_cancellable (task);
  GtkWindow *window;

  if (g_task_get_completed (task) || g_object_get_data (G_OBJECT (task), "photopick-answered"))
    return;
  g_object_set_data (G_OBJECT (task), "photopick-answered", GINT_TO_POINTER (1));
  /* (Once cancelled, the handler has run and is never run again: nothing to disconnect.) */
  if (cancellable && state->cancelled_id && !g_cancellable_is_cancelled (cancellable))
    g_cancellable_disconnect (cancellable, state->cancelled_id);
  state->cancelled_id = 0;
  window = g_steal_pointer (&state->window);
  if (uris)
    g_task_return_pointer (task, g_strdupv ((char **) uris), (GDestroyNotify) g_strfreev);
  else if (cancellable && g_cancellable_is_cancelled (cancellable))
    g_task_return_error_if_cancelled (task);
  else
    g_task_return_new_error (task, G_IO_ERROR, G_IO_ERROR_CANCELLED, "%s", "The picker was dismissed");
  /* Hidden now, destroyed once the picker's signal that answered is over. */
  if (window)
    {
      gtk_widget_set_visible (GTK_WIDGET (window), FALSE);
      g_idle_add_full (G_PRIORITY_DEFAULT, dialog_destroy_window, window, g_object_unref);
    }
  g_object_unref (task);  /* the window's reference */
}

static gboolean
dialog_answer_cancelled (gpointer task)
{
  dialog_answer (task, NULL);
  return G_SOURCE_REMOVE;
}

static void
dialog_confirmed (PhotopickPicker *picker, const char * const *uris, GTask *task)
{
  dialog_answer (task, uris);
}

static void
dialog_cancelled (PhotopickPicker *picker, GTask *task)
{
  dialog_answer (task, NULL);
}

static gboolean
dialog_close_request (GtkWindow *window, GTask *task)
{
  dialog_answer (task, NULL);
  return TRUE;  /* (already destroyed) */
}

static void
dialog_cancellable_cancelled (GCancellable *cancellable, GTask *task)
{
  /* (From any thread, and never inside this handler, where disconnecting it would deadlock:
   * answered from an idle of the task's own main context.) */
  GSource *source = g_idle_source_new ();

  g_source_set_callback (source, dialog_answer_cancelled, g_object_ref (task), g_object_unref);
  g_source_attach (source, g_task_get_context (task));
  g_source_unref (source);
}

/**
 * photopick_picker_dialog_open:
 * @parent: (nullable): the window the dialog belongs to
 * @cancellable: (nullable): closes the dialog when cancelled
 * @callback: (scope async): called when the person confirms their picks or dismisses the dialog
 * @user_data: data for @callback
 *
 * Shows the picker in a dialog of its own over @parent, modal, on the person's own folders, as
 * [class@Gtk.FileChooserNative] or `GtkFileDialog` would show a file chooser. Call
 * [func@Photopick.Picker.dialog_open_finish] in @callback for the picks.
 *
 * Since: 0.3
 */
void
photopick_picker_dialog_open (GtkWindow           *parent,
                              GCancellable        *cancellable,
                              GAsyncReadyCallback  callback,
                              gpointer             user_data)
{
  GTask *task;
  DialogState *state;
  GtkWidget *window;
  GtkWidget *picker;

  g_return_if_fail (parent == NULL || GTK_IS_WINDOW (parent));
  g_return_if_fail (cancellable == NULL || G_IS_CANCELLABLE (cancellable));

  task = g_task_new (NULL, cancellable, callback, user_data);
  g_task_set_source_tag (task, photopick_picker_dialog_open);
  if (g_task_return_error_if_cancelled (task))
    {
      g_object_unref (task);
      return;
    }
  window = gtk_window_new ();
  gtk_window_set_title (GTK_WINDOW (window), g_dgettext ("photopick", "Pick Photos"));
  gtk_window_set_default_size (GTK_WINDOW (window), 900, 640);
  gtk_window_set_modal (GTK_WINDOW (window), TRUE);
  gtk_window_set_destroy_with_parent (GTK_WINDOW (window), TRUE);
  if (parent)
    gtk_window_set_transient_for (GTK_WINDOW (window), parent);
  picker = photopick_picker_new ();
  gtk_window_set_child (GTK_WINDOW (window), picker);

  state = g_new0 (DialogState, 1);
  state->window = GTK_WINDOW (g_object_ref (window));
  g_task_set_task_data (task, state, dialog_state_free);
  /* The task lives until it is answered (the window's reference, dropped by dialog_answer). */
  g_signal_connect_object (picker, "confirmed", G_CALLBACK (dialog_confirmed), task, 0);
  g_signal_connect_object (picker, "cancelled", G_CALLBACK (dialog_cancelled), task, 0);
  g_signal_connect_object (window, "close-request", G_CALLBACK (dialog_close_request), task, 0);
  if (cancellable)
    state->cancelled_id = g_cancellable_connect (cancellable, G_CALLBACK (dialog_cancellable_cancelled), task, NULL);
  gtk_window_present (GTK_WINDOW (window));
  gtk_widget_grab_focus (picker);
}

/**
 * photopick_picker_dialog_open_finish:
 * @result: the result given to the callback of [func@Photopick.Picker.dialog_open]
 * @error: where a dismissed dialog is said (%G_IO_ERROR_CANCELLED), or %NULL
 *
 * Gets the picks of a dialog that [func@Photopick.Picker.dialog_open] showed.
 *
 * Returns: (transfer full) (array zero-terminated=1) (element-type utf8) (nullable): the picked
 *   files' URIs, in pick order (a remote pick's as its local copy's), or %NULL when the dialog
 *   was dismissed or cancelled
 *
 * Since: 0.3
 */
char **
photopick_picker_dialog_open_finish (GAsyncResult  *result,
                                     GError       **error)
{
  g_return_val_if_fail (g_task_is_valid (result, NULL), NULL);
  g_return_val_if_fail (g_task_get_source_tag (G_TASK (result)) == photopick_picker_dialog_open, NULL);

  return g_task_propagate_pointer (G_TASK (result), error);
}

/**
 * photopick_get_major_version:
 *
 * Gets the major version of the Photopick library loaded.
 *
 * Returns: the major version
 *
 * Since: 0.2
 */

/**
 * photopick_get_minor_version:
 *
 * Gets the minor version of the Photopick library loaded.
 *
 * Returns: the minor version
 *
 * Since: 0.2
 */

/**
 * photopick_get_micro_version:
 *
 * Gets the micro version of the Photopick library loaded.
 *
 * Returns: the micro version
 *
 * Since: 0.2
 */

guint
photopick_get_major_version (void)
{
  return PHOTOPICK_MAJOR_VERSION;
}

guint
photopick_get_minor_version (void)
{
  return PHOTOPICK_MINOR_VERSION;
}

guint
photopick_get_micro_version (void)
{
  return PHOTOPICK_MICRO_VERSION;
}

/* For the implementation (photopick-private.h). */

static gpointer
photopick_picker_get_state (PhotopickPicker *self)
{
  return self->state;
}

static void
photopick_picker_set_album_internal (PhotopickPicker *self, const char *album)
{
  if (g_strcmp0 (self->album, album) == 0)
    return;
  g_free (self->album);
  self->album = g_strdup (album);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_ALBUM]);
}

static void
photopick_picker_set_picked_count_internal (PhotopickPicker *self, guint count)
{
  if (self->picked_count == count)
    return;
  self->picked_count = count;
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PICKED_COUNT]);
}

static void
photopick_picker_notify_picked_uris (PhotopickPicker *self)
{
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PICKED_URIS]);
}

static void
photopick_picker_emit_pick_copied (PhotopickPicker *self, const char *uri, const char *copy_uri)
{
  g_signal_emit (self, signals[SIGNAL_PICK_COPIED], 0, uri, copy_uri);
}

static void
photopick_picker_emit_confirmed (PhotopickPicker *self, const char * const *uris)
{
  g_signal_emit (self, signals[SIGNAL_CONFIRMED], 0, uris);
}

static void
photopick_picker_emit_cancelled (PhotopickPicker *self)
{
  g_signal_emit (self, signals[SIGNAL_CANCELLED], 0);
}

/* The implementation */

static const PhotopickShellFunctions shell_functions = {
  .get_type = photopick_picker_get_type,
  .new = photopick_picker_new,
  .get_state = photopick_picker_get_state,
  .get_library_folders = photopick_picker_get_library_folders,
  .set_library_folders = photopick_picker_set_library_folders,
  .get_max_picks = photopick_picker_get_max_picks,
  .get_mime_types = photopick_picker_get_mime_types,
  .get_name_patterns = photopick_picker_get_name_patterns,
  .get_album = photopick_picker_get_album,
  .get_confirm_label = photopick_picker_get_confirm_label,
  .get_show_camera = photopick_picker_get_show_camera,
  .get_show_header = photopick_picker_get_show_header,
  .set_show_header = photopick_picker_set_show_header,
  .get_show_choose_folder = photopick_picker_get_show_choose_folder,
  .set_album_internal = photopick_picker_set_album_internal,
  .set_picked_count_internal = photopick_picker_set_picked_count_internal,
  .notify_picked_uris = photopick_picker_notify_picked_uris,
  .emit_pick_copied = photopick_picker_emit_pick_copied,
  .emit_confirmed = photopick_picker_emit_confirmed,
  .emit_cancelled = photopick_picker_emit_cancelled,
};

/* Gives `self` its Swift state, when the implementation is there; when it is still loading, when
 * it is (the properties set meanwhile are read then). */
static void make_state (PhotopickPicker *self);

#ifdef PHOTOPICK_FRONT

/* The signals whose handlers the Swift runtime installs as it loads (its backtracer, on by
 * default), and the alternate signal stack it gives the loading thread. They are the host's:
 * the shell puts back whatever the host had. */
static const int runtime_signals[] = { SIGQUIT, SIGILL, SIGTRAP, SIGABRT, SIGBUS, SIGFPE, SIGSEGV };

/* Beside this library, in its photopick-1 folder: found through the path this library was
 * loaded from (an install moved elsewhere, or a test's prefix, still finds it), else where
 * meson installed it. */
static char *
implementation_path (void)
{
  Dl_info info;

  if (dladdr ((void *) photopick_picker_get_type, &info) != 0 && info.dli_fname != NULL && strchr (info.dli_fname, '/') != NULL)
    {
      g_autofree char *folder = g_path_get_dirname (info.dli_fname);
      char *path = g_build_filename (folder, "photopick-1", "libphotopick-implementation.so", NULL);

      if (g_file_test (path, G_FILE_TEST_EXISTS))
        return path;
      g_free (path);
    }
  return g_build_filename (PHOTOPICK_IMPLEMENTATION_DIR, "libphotopick-implementation.so", NULL);
}

/* The implementation loads on a thread of its own, as the first picker is made: loading it and
 * the Swift runtime took 25-34 ms, which the host's photopick_picker_new () waited for. The
 * pickers made meanwhile wait in `waiting` and get their Swift state when it is attached, on the
 * GTK thread; a call that needs one at once (grab_focus, confirm, the header's widgets) waits
 * for the load. */
static struct {
  GMutex lock;
  GCond finished_cond;
  gboolean started;
  gboolean finished;
  gboolean attached;
  void *library;
  char *path;
  char *error;
} loading;
static GList *waiting;

static gboolean attach_loaded_idle (gpointer data);

/* The folders of the implementation's run path (DT_RUNPATH or DT_RPATH, `$ORIGIN` expanded),
 * read from its dynamic section, where the loader will find the Swift runtime. */
static char **
run_path (const char *path)
{
  g_autoptr(GMappedFile) file = g_mapped_file_new (path, FALSE, NULL);
  const char *bytes = file != NULL ? g_mapped_file_get_contents (file) : NULL;
  gsize length = file != NULL ? g_mapped_file_get_length (file) : 0;
  const ElfW(Ehdr) *header = (const ElfW(Ehdr) *) bytes;
  const ElfW(Phdr) *segments;
  const ElfW(Dyn) *dynamic = NULL;
  gsize dynamic_count = 0, strings = 0, names = 0;
  gboolean has_strings = FALSE, has_names = FALSE;
  g_autofree char *origin = g_path_get_dirname (path);
  g_autofree char *joined = NULL;
  char **folders;

  if (bytes == NULL || length < sizeof *header || memcmp (header->e_ident, ELFMAG, SELFMAG) != 0
      || header->e_phoff > length || header->e_phnum > (length - header->e_phoff) / sizeof (ElfW(Phdr)))
    return NULL;
  segments = (const ElfW(Phdr) *) (bytes + header->e_phoff);
  for (guint i = 0; i < header->e_phnum; i++)
    if (segments[i].p_type == PT_DYNAMIC && segments[i].p_offset < length && segments[i].p_filesz <= length - segments[i].p_offset)
      {
        dynamic = (const ElfW(Dyn) *) (bytes + segments[i].p_offset);
        dynamic_count = segments[i].p_filesz / sizeof (ElfW(Dyn));
      }
  for (gsize i = 0; i < dynamic_count && dynamic[i].d_tag != DT_NULL; i++)
    {
      if (dynamic[i].d_tag == DT_STRTAB)
        {
          /* (An address: its place in the file is in the segment that loads it.) */
          for (guint j = 0; j < header->e_phnum; j++)
            if (segments[j].p_type == PT_LOAD && dynamic[i].d_un.d_ptr >= segments[j].p_vaddr
                && dynamic[i].d_un.d_ptr < segments[j].p_vaddr + segments[j].p_filesz)
              {
                strings = dynamic[i].d_un.d_ptr - segments[j].p_vaddr + segments[j].p_offset;
                has_strings = TRUE;
              }
        }
      else if (dynamic[i].d_tag == DT_RUNPATH || (dynamic[i].d_tag == DT_RPATH && !has_names))
        {
          names = dynamic[i].d_un.d_val;
          has_names = TRUE;
        }
    }
  if (!has_strings || !has_names || strings >= length || names >= length - strings
      || memchr (bytes + strings + names, '\0', length - strings - names) == NULL)
    return NULL;
  joined = g_strdup (bytes + strings + names);
  folders = g_strsplit (joined, ":", -1);
  for (char **folder = folders; *folder != NULL; folder++)
    if (g_str_has_prefix (*folder, "$ORIGIN"))
      {
        char *expanded = g_strconcat (origin, *folder + strlen ("$ORIGIN"), NULL);
        g_free (*folder);
        *folder = expanded;
      }
  return folders;
}

/* Loads libdispatch, the Swift runtime's main-queue library, on this thread, the GTK thread:
 * it takes the thread that loads it for the main thread, and Swift's main actor is that
 * thread (loaded with the rest on the loading thread, every picker's first call on the GTK
 * thread trapped). 1 ms of the load; the other 21-34 ms go to the loading thread. False when it
 * is found neither where the implementation's run path says nor where the system's libraries
 * are: everything loads here then. */
static gboolean
preload_dispatch (void)
{
  g_autofree char *path = implementation_path ();
  g_auto(GStrv) folders = run_path (path);

  for (char **folder = folders; folder != NULL && *folder != NULL; folder++)
    {
      g_autofree char *dispatch = g_build_filename (*folder, "libdispatch.so", NULL);

      if (g_file_test (dispatch, G_FILE_TEST_EXISTS))
        return dlopen (dispatch, RTLD_NOW | RTLD_GLOBAL) != NULL;
    }
  /* (A Swift runtime installed with the system's libraries: no run path, found as they are.) */
  return dlopen ("libdispatch.so", RTLD_NOW | RTLD_GLOBAL) != NULL;
}

static gpointer
load (gpointer data)
{
  char *path = implementation_path ();
  struct sigaction host_actions[G_N_ELEMENTS (runtime_signals)];
  stack_t host_stack;
  void *library;
  char *error = NULL;

  for (gsize i = 0; i < G_N_ELEMENTS (runtime_signals); i++)
    sigaction (runtime_signals[i], NULL, &host_actions[i]);
  sigaltstack (NULL, &host_stack);
  /* Global, as a library the host linked would be: libadwaita's templates name their parts
   * (AdwStatusPage's AdwClamp), which GtkBuilder finds by their symbols in the global scope.
   * Never closed: a Swift runtime cannot be unloaded. */
  library = dlopen (path, RTLD_NOW | RTLD_GLOBAL);
  if (library == NULL)
    error = g_strdup (dlerror ());
  else
    {
      /* (The style sheets, 3 ms of the host's turn otherwise.) */
      void (*prepare) (void) = (void (*) (void)) dlsym (library, "photopick_implementation_prepare");

      if (prepare != NULL)
        prepare ();
    }
  for (gsize i = 0; i < G_N_ELEMENTS (runtime_signals); i++)
    sigaction (runtime_signals[i], &host_actions[i], NULL);
  /* (The signal stack it gives the loading thread: the GTK thread's own, when a thread could
   * not be had and the load runs there.) */
  sigaltstack (&host_stack, NULL);
  g_mutex_lock (&loading.lock);
  loading.library = library;
  loading.path = path;
  loading.error = error;
  loading.finished = TRUE;
  g_cond_broadcast (&loading.finished_cond);
  g_mutex_unlock (&loading.lock);
  g_idle_add_full (G_PRIORITY_DEFAULT, attach_loaded_idle, NULL, NULL);
  return NULL;
}

static void
start_loading (void)
{
  GThread *thread;

  if (loading.started)
    return;
  loading.started = TRUE;
  thread = preload_dispatch () ? g_thread_try_new ("photopick-load", load, NULL, NULL) : NULL;
  if (thread != NULL)
    g_thread_unref (thread);
  else
    load (NULL);
}

/* On the GTK thread, once the load is over: attaches the implementation and gives the pickers
 * made meanwhile their Swift state. */
static void
attach_loaded (void)
{
  const PhotopickImplementationFunctions *(*attach) (const PhotopickShellFunctions *, guint);
  GList *pickers;

  if (loading.attached)
    return;
  loading.attached = TRUE;
  if (loading.library == NULL)
    {
      g_critical ("The picker cannot work: its implementation did not load (%s)", loading.error);
    }
  else
    {
      attach = (const PhotopickImplementationFunctions *(*) (const PhotopickShellFunctions *, guint)) dlsym (loading.library, "photopick_implementation_attach");
      implementation = attach != NULL ? attach (&shell_functions, PHOTOPICK_IMPLEMENTATION_ABI) : NULL;
      if (implementation == NULL)
        g_critical ("The picker cannot work: %s is not the implementation of this libphotopick-1 (%s)", loading.path, PHOTOPICK_VERSION_S);
    }
  /* (Oldest first; a picker disposed meanwhile has left the list.) */
  pickers = g_list_reverse (g_steal_pointer (&waiting));
  for (GList *picker = pickers; picker != NULL; picker = picker->next)
    make_state (picker->data);
  g_list_free (pickers);
}

static gboolean
attach_loaded_idle (gpointer data)
{
  attach_loaded ();
  return G_SOURCE_REMOVE;
}

static void
make_state (PhotopickPicker *self)
{
  if (!loading.attached)
    {
      if (g_list_find (waiting, self) == NULL)
        waiting = g_list_prepend (waiting, self);
      start_loading ();
      return;
    }
  if (implementation != NULL && self->state == NULL)
    self->state = implementation->new (self);
}

static void
ensure_state (PhotopickPicker *self)
{
  if (self->state != NULL || g_list_find (waiting, self) == NULL)
    return;
  g_mutex_lock (&loading.lock);
  while (!loading.finished)
    g_cond_wait (&loading.finished_cond, &loading.lock);
  g_mutex_unlock (&loading.lock);
  attach_loaded ();
}

static void
forget_waiting (PhotopickPicker *self)
{
  waiting = g_list_remove (waiting, self);
}

#else

/* Linked into the photopick program: attached at once. */
static void
make_state (PhotopickPicker *self)
{
  photopick_shell_attach_linked ();
  if (implementation != NULL && self->state == NULL)
    self->state = implementation->new (self);
}

static void
ensure_state (PhotopickPicker *self)
{
}

static void
forget_waiting (PhotopickPicker *self)
{
}

void
photopick_shell_attach_linked (void)
{
  if (implementation == NULL)
    implementation = photopick_implementation_attach (&shell_functions, PHOTOPICK_IMPLEMENTATION_ABI);
}

#endif
