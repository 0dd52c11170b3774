// SPDX-License-Identifier: GPL-3.0-or-later
// The floor of a warm open (issue 42): the least a picker can do to show a first screen of
// thumbnails. A bare libadwaita window with a header bar and a grid of the first 48 PNGs of a
// thumbnail folder, each read from the disk and decoded on the GTK thread before the window
// shows, so that its first frame is its last. No application object, no D-Bus name, no settings,
// no scrolling, no model: nothing a picker can leave out is here.
//
//   cc -O2 bench/floor-window.c $(pkg-config --cflags --libs libadwaita-1) -o floor-window
//   floor-window THUMBNAIL-FOLDER [WIDTH HEIGHT]
//
// bench/compare builds it into its work folder and runs it beside Photopick in warm mode, on
// Photopick's own warm thumbnail cache ($XDG_CACHE_HOME/thumbnails/<flavor>).
#include <adwaita.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

enum { COUNT = 48, COLUMNS = 8 };

static gboolean quit(GtkWindow *window, gpointer data) {
    exit(0);
}

// FLOOR_TRACE=1: milliseconds since the process started at each step, on Photopick's own trace
// clock (PHOTOPICK_TRACE_STARTUP): the two start-ups side by side, step by step.
static double started;

static void mark(const char *step) {
    if (!getenv("FLOOR_TRACE")) return;
    if (started == 0) {
        FILE *stat = fopen("/proc/self/stat", "r");
        char line[1024] = "";
        if (stat && fgets(line, sizeof line, stat)) {
            char *field = strrchr(line, ')');
            for (int i = 0; field && i < 20; i++) field = strchr(field + 1, ' ');
            if (field) started = strtod(field + 1, NULL) / sysconf(_SC_CLK_TCK);
        }
        if (stat) fclose(stat);
    }
    struct timespec now;
    clock_gettime(CLOCK_BOOTTIME, &now);
    g_printerr("startup %.0f ms  %s\n", (now.tv_sec + now.tv_nsec / 1e9 - started) * 1000, step);
}

static gboolean drawn(GtkWidget *widget, GdkFrameClock *clock, gpointer data) {
    mark("frame drawn");
    return G_SOURCE_REMOVE;
}

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv) {
    mark("run");
    if (argc < 2) {
        g_printerr("usage: %s THUMBNAIL-FOLDER [WIDTH HEIGHT]\n", argv[0]);
        return 2;
    }
    int width = argc > 3 ? atoi(argv[2]) : 960, height = argc > 3 ? atoi(argv[3]) : 720;
    GDir *dir = g_dir_open(argv[1], 0, NULL);
    if (!dir) {
        g_printerr("floor-window: cannot read %s\n", argv[1]);
        return 1;
    }
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    for (const char *name; (name = g_dir_read_name(dir));)
        if (g_str_has_suffix(name, ".png")) g_ptr_array_add(names, g_strdup(name));
    g_dir_close(dir);
    qsort(names->pdata, names->len, sizeof(char *), by_name);

    gtk_init();
    mark("display opened");
    adw_init();
    mark("libadwaita ready");
    GtkWidget *window = adw_window_new();
    gtk_window_set_default_size(GTK_WINDOW(window), width, height);
    gtk_window_set_title(GTK_WINDOW(window), "Floor");
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0);
    gtk_box_append(GTK_BOX(box), adw_header_bar_new());
    GtkWidget *grid = gtk_grid_new();
    gtk_grid_set_row_spacing(GTK_GRID(grid), 4);
    gtk_grid_set_column_spacing(GTK_GRID(grid), 4);
    gtk_grid_set_column_homogeneous(GTK_GRID(grid), TRUE);
    gtk_grid_set_row_homogeneous(GTK_GRID(grid), TRUE);
    gtk_widget_set_vexpand(grid, TRUE);
    for (guint i = 0; i < names->len && i < COUNT; i++) {
        char *path = g_build_filename(argv[1], names->pdata[i], NULL);
        GdkTexture *texture = gdk_texture_new_from_filename(path, NULL);
        g_free(path);
        if (!texture) continue;
        GtkWidget *picture = gtk_picture_new_for_paintable(GDK_PAINTABLE(texture));
        g_object_unref(texture);
        gtk_picture_set_content_fit(GTK_PICTURE(picture), GTK_CONTENT_FIT_COVER);
        // (A picture can shrink: the window's size is its default, 960x720, not the pictures'.)
        gtk_picture_set_can_shrink(GTK_PICTURE(picture), TRUE);
        gtk_grid_attach(GTK_GRID(grid), picture, i % COLUMNS, i / COLUMNS, 1, 1);
    }
    g_ptr_array_unref(names);
    mark("thumbnails read");
    gtk_box_append(GTK_BOX(box), grid);
    adw_window_set_content(ADW_WINDOW(window), box);
    g_signal_connect(window, "close-request", G_CALLBACK(quit), NULL);
    gtk_widget_add_tick_callback(window, drawn, NULL, NULL);
    gtk_window_present(GTK_WINDOW(window));
    mark("presented");
    for (;;) g_main_context_iteration(NULL, TRUE);
}
