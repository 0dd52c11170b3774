// SPDX-License-Identifier: CC0-1.0
/* Photopick's picker in a window of a C program: the picks are printed in pick order when the
 * person confirms, and the program ends.
 *
 *   cc attach.c $(pkg-config --cflags --libs photopick-1) -o attach && ./attach [FOLDER…]
 */
#include <photopick-1/photopick.h>

static void
confirmed (PhotopickPicker *picker, char **uris, GtkWindow *window)
{
  for (char **uri = uris; *uri != NULL; uri++)
    g_print ("%s\n", *uri);
  gtk_window_destroy (window);
}

static void
activate (GtkApplication *app, char **folders)
{
  GtkWidget *window = gtk_application_window_new (app);
  GtkWidget *picker = g_object_new (PHOTOPICK_TYPE_PICKER, "library-folders", folders, "max-picks", 3, NULL);

  g_signal_connect (picker, "confirmed", G_CALLBACK (confirmed), window);
  g_signal_connect_swapped (picker, "cancelled", G_CALLBACK (gtk_window_destroy), window);
  gtk_window_set_title (GTK_WINDOW (window), "Attach");
  gtk_window_set_default_size (GTK_WINDOW (window), 640, 480);
  gtk_window_set_child (GTK_WINDOW (window), picker);
  gtk_window_present (GTK_WINDOW (window));
  /* A widget does not take the keys by itself: the window gives them to the picker. */
  gtk_widget_grab_focus (picker);
}

int
main (int argc, char **argv)
{
  g_autoptr (GtkApplication) app = gtk_application_new (NULL, G_APPLICATION_NON_UNIQUE);

  g_signal_connect (app, "activate", G_CALLBACK (activate), argv + 1);
  return g_application_run (G_APPLICATION (app), 1, argv);
}
