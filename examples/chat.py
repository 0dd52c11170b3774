#!/usr/bin/env python3
# SPDX-License-Identifier: CC0-1.0
"""A chat window that attaches photos with Photopick's picker, inline, as phone messengers do.

The attach button slides the picker up under the message entry (a GtkRevealer: the bottom sheet
of the phone apps). Confirming closes it and shows the picks above the entry as numbered
attachment thumbnails, in pick order; Send "sends" them (prints them) and clears the message.

    GI_TYPELIB_PATH=PREFIX/lib/x86_64-linux-gnu/girepository-1.0 \\
    LD_LIBRARY_PATH=PREFIX/lib/x86_64-linux-gnu \\
    python3 examples/chat.py [FOLDER…]

With no folder the picker shows the person's own (Pictures and Videos).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
gi.require_version("Gdk", "4.0")
gi.require_version("GdkPixbuf", "2.0")
gi.require_version("Photopick", "1")
from gi.repository import Gdk, GdkPixbuf, Gio, GLib, Gtk, Photopick  # noqa: E402


def square_thumbnail(path, side):
    """The middle square of the picture at `path`, `side` pixels wide (or an icon)."""
    try:
        pixbuf = GdkPixbuf.Pixbuf.new_from_file_at_scale(path, side * 2, side * 2, True)
    except GLib.Error:
        return Gtk.Image(icon_name="image-x-generic-symbolic", pixel_size=side)
    width, height = pixbuf.get_width(), pixbuf.get_height()
    middle = min(width, height)
    square = pixbuf.new_subpixbuf((width - middle) // 2, (height - middle) // 2, middle, middle)
    square = square.scale_simple(side, side, GdkPixbuf.InterpType.BILINEAR)
    return Gtk.Picture(paintable=Gdk.Texture.new_for_pixbuf(square), can_shrink=False)


class ChatWindow(Gtk.ApplicationWindow):
    def __init__(self, app, folders):
        super().__init__(application=app, title="Chat", default_width=720, default_height=760)

        self.attachments = Gtk.Box(spacing=8, margin_start=12, margin_end=12, margin_top=6, visible=False)
        self.entry = Gtk.Entry(hexpand=True, placeholder_text="Write a message…")
        attach = Gtk.ToggleButton(icon_name="mail-attachment-symbolic", tooltip_text="Attach photos (Alt+A)")
        attach.update_property([Gtk.AccessibleProperty.LABEL], ["Attach photos"])
        send = Gtk.Button(label="_Send", use_underline=True)
        send.add_css_class("suggested-action")
        row = Gtk.Box(spacing=6, margin_start=12, margin_end=12, margin_top=6, margin_bottom=6)
        for widget in (attach, self.entry, send):
            row.append(widget)

        # The picker is made once and kept: it scans while the person writes, and keeps its
        # picks when the sheet closes.
        self.picker = Photopick.Picker(library_folders=folders, max_picks=10, confirm_label="Attach",
                                       show_camera=False, vexpand=True)
        self.picker.connect("confirmed", self.on_confirmed)
        self.picker.connect("cancelled", lambda _picker: attach.set_active(False))
        self.sheet = Gtk.Revealer(transition_type=Gtk.RevealerTransitionType.SLIDE_UP, child=self.picker)
        self.sheet.set_size_request(-1, 420)
        attach.bind_property("active", self.sheet, "reveal-child", 0)
        attach.connect("toggled", self.on_attach_toggled)
        self.attach = attach

        conversation = Gtk.Label(label="No messages yet", vexpand=True, css_classes=["dim-label"])
        content = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
        for widget in (conversation, self.attachments, row, self.sheet):
            content.append(widget)
        self.set_child(content)

        shortcuts = Gtk.ShortcutController(scope=Gtk.ShortcutScope.MANAGED)
        shortcuts.add_shortcut(Gtk.Shortcut(trigger=Gtk.ShortcutTrigger.parse_string("<Alt>a"),
                                            action=Gtk.CallbackAction.new(lambda *_: attach.set_active(not attach.get_active()) or True)))
        self.add_controller(shortcuts)
        send.connect("clicked", self.on_send)
        self.entry.connect("activate", self.on_send)
        self.attached = []

    def on_attach_toggled(self, button):
        if button.get_active():
            self.picker.grab_focus()
        else:
            self.entry.grab_focus()

    def on_confirmed(self, _picker, uris):
        self.attached = list(uris)
        child = self.attachments.get_first_child()
        while child:
            self.attachments.remove(child)
            child = self.attachments.get_first_child()
        for number, uri in enumerate(self.attached, start=1):
            path = Gio.File.new_for_uri(uri).get_path()
            badge = Gtk.Label(label=str(number), halign=Gtk.Align.END, valign=Gtk.Align.START,
                              margin_top=2, margin_end=2, css_classes=["osd"])
            cell = Gtk.Overlay(child=square_thumbnail(path, 64), tooltip_text=GLib.filename_display_basename(path))
            cell.add_overlay(badge)
            self.attachments.append(cell)
        self.attachments.set_visible(bool(self.attached))
        # What the app would send, in pick order (the tests read it).
        for uri in self.attached:
            print("attached", uri, flush=True)
        self.attach.set_active(False)

    def on_send(self, _widget):
        for uri in self.attached:
            print("sent", uri, flush=True)
        self.attached = []
        self.attachments.set_visible(False)
        self.picker.clear()
        self.entry.set_text("")


def main():
    app = Gtk.Application(application_id="io.github.photopick.ChatExample", flags=Gio.ApplicationFlags.NON_UNIQUE)
    app.connect("activate", lambda app: ChatWindow(app, sys.argv[1:]).present())
    return app.run([sys.argv[0]])


if __name__ == "__main__":
    sys.exit(main())
