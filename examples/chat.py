#!/usr/bin/env python3
# SPDX-License-Identifier: CC0-1.0
"""A chat window that attaches photos with Photopick's picker, inline, as phone messengers do.

The attach button slides the picker up under the message entry (a GtkRevealer: the bottom sheet
of the phone apps). Confirming closes it and shows the picks above the entry as numbered
attachment thumbnails, in pick order; Send "sends" them (prints them) and clears the message.

    GI_TYPELIB_PATH=PREFIX/lib/x86_64-linux-gnu/girepository-1.0 \\
    LD_LIBRARY_PATH=PREFIX/lib/x86_64-linux-gnu \\
    python3 examples/chat.py [--adwaita] [--dark] [FOLDER…]

With no folder the picker shows the person's own (Pictures and Videos). The window is plain GTK;
`--adwaita` makes it a libadwaita app (the picker follows either), `--dark` asks for the dark style.
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
                                       show_camera=False, vexpand=False)
        self.picker.connect("confirmed", self.on_confirmed)
        self.picker.connect("cancelled", lambda _picker: attach.set_active(False))
        self.sheet = Gtk.Revealer(transition_type=Gtk.RevealerTransitionType.SLIDE_UP, child=self.picker)
        # (The picker has the height: a closed revealer is then no height at all.)
        self.picker.set_size_request(-1, 420)
        attach.bind_property("active", self.sheet, "reveal-child", 0)
        attach.connect("toggled", self.on_attach_toggled)
        self.attach = attach

        # The conversation fills the window above the message row; the sheet, when open, takes
        # its fixed height below it.
        self.messages = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, valign=Gtk.Align.END,
                                margin_start=12, margin_end=12, margin_top=12, margin_bottom=6)
        self.placeholder = Gtk.Label(label="No messages yet", vexpand=True, css_classes=["dim-label"])
        self.messages.append(self.placeholder)
        conversation = Gtk.ScrolledWindow(vexpand=True, hscrollbar_policy=Gtk.PolicyType.NEVER, child=self.messages)
        self.conversation = conversation
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
        text = self.entry.get_text().strip()
        if not text and not self.attached:
            return
        for uri in self.attached:
            print("sent", uri, flush=True)
        # The message joins the conversation: its words and its photos, in pick order.
        bubble = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=4, halign=Gtk.Align.END, css_classes=["card"])
        photos = Gtk.Box(spacing=4, margin_start=6, margin_end=6, margin_top=6)
        for uri in self.attached:
            photos.append(square_thumbnail(Gio.File.new_for_uri(uri).get_path(), 96))
        if self.attached:
            bubble.append(photos)
        if text:
            bubble.append(Gtk.Label(label=text, wrap=True, xalign=0, margin_start=10, margin_end=10, margin_top=6, margin_bottom=6))
        self.placeholder.set_visible(False)
        self.messages.append(bubble)
        GLib.idle_add(self.scroll_to_end)
        self.attached = []
        self.attachments.set_visible(False)
        self.picker.clear()
        self.entry.set_text("")

    def scroll_to_end(self):
        adjustment = self.conversation.get_vadjustment()
        adjustment.set_value(adjustment.get_upper())
        return False


def main():
    arguments = sys.argv[1:]
    adwaita = "--adwaita" in arguments
    dark = "--dark" in arguments
    folders = [argument for argument in arguments if argument not in ("--adwaita", "--dark")]
    if adwaita:
        gi.require_version("Adw", "1")
        from gi.repository import Adw
        app = Adw.Application(application_id="io.github.photopick.ChatExample", flags=Gio.ApplicationFlags.NON_UNIQUE)
        if dark:
            app.get_style_manager().set_color_scheme(Adw.ColorScheme.FORCE_DARK)
    else:
        app = Gtk.Application(application_id="io.github.photopick.ChatExample", flags=Gio.ApplicationFlags.NON_UNIQUE)
        if dark:
            app.connect("startup", lambda _app: Gtk.Settings.get_default().set_property("gtk-application-prefer-dark-theme", True))
    app.connect("activate", lambda app: ChatWindow(app, folders).present())
    return app.run([sys.argv[0]])


if __name__ == "__main__":
    sys.exit(main())
