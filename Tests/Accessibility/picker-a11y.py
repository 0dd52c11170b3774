#!/usr/bin/python3
# SPDX-License-Identifier: GPL-3.0-or-later
"""What a screen reader hears of the picker, read over AT-SPI as Orca reads it (issue 41).

Run inside `dbus-run-session` on a display of its own: it starts the picker (argv[1:]) with
GTK's AT-SPI bridge, waits for it on the accessibility bus, and prints one JSON object:

  cells    the names of the grid's cells AT-SPI lists (GTK 4.8: the list item widgets)
  events   each `object:state-changed:checked` while it pressed Space, Right, Space, Left, Space
           (or the keys of $A11Y_KEYS): the cell's name at that moment and the new value
  said     each new description of a control meanwhile: what Orca 43 speaks as news on GTK 4.8
           (said on the focused control)
  actions  (with $A11Y_DO=N) the Nth cell's actions, the first of which it ran instead of keys
  strip    the names of the strip's buttons after them
  timeline the timeline's name and value after them (a slider), if the picker shows one
  status   the picker's exit status after Ctrl+Return (or the key of $A11Y_END)
  focus    each object that took the keyboard's focus: its role, its name, and how many keys
           had been pressed then
  audits   at each `@audit:NAME` among the keys: the controls on screen (every showing object a
           person can focus or press), as [role, name], and those with no name a person can use

Keys go through xdotool (AT-SPI's coordinates are wrong under GTK 4). Everything it starts ends
with it.
"""
import json, os, subprocess, sys, time

import gi
gi.require_version("Atspi", "2.0")
from gi.repository import Atspi, GLib

result = {"cells": [], "events": [], "said": [], "strip": [], "status": None, "problem": None,
          "focus": [], "audits": {}, "keys": 0}
# The accessibility bus and its registry first: GTK 4.8 asks for the bus once, at start, and a
# picker that found none (the bus still being started) never shows on it.
Atspi.init()
Atspi.get_desktop(0).get_child_count()
# What a person can reach or press: focusable, or one of these roles.
CONTROLS = {Atspi.Role.PUSH_BUTTON, Atspi.Role.TOGGLE_BUTTON, Atspi.Role.CHECK_BOX, Atspi.Role.RADIO_BUTTON,
            Atspi.Role.MENU_ITEM, Atspi.Role.ENTRY, Atspi.Role.PASSWORD_TEXT, Atspi.Role.SLIDER,
            Atspi.Role.SPIN_BUTTON, Atspi.Role.COMBO_BOX, Atspi.Role.LINK}
CONTAINERS = {Atspi.Role.SCROLL_PANE, Atspi.Role.PANEL, Atspi.Role.FILLER}
environment = dict(os.environ, GTK_A11Y="atspi")
picker = subprocess.Popen(sys.argv[1:], env=environment, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)


def xdotool(*arguments):
    subprocess.run(["xdotool", *arguments], check=True, timeout=30)


def find(node, role, depth=0):
    """The first node below `node` with `role`."""
    if node is None or depth > 40:
        return None
    if node.get_role() == role:
        return node
    for index in range(node.get_child_count()):
        found = find(node.get_child_at_index(index), role, depth + 1)
        if found is not None:
            return found
    return None


def names(node, role, depth=0):
    """The names of every node below `node` with `role`."""
    if node is None or depth > 40:
        return []
    found = [node.get_name()] if node.get_role() == role else []
    for index in range(node.get_child_count()):
        found += names(node.get_child_at_index(index), role, depth + 1)
    return found


def application():
    desktop = Atspi.get_desktop(0)
    for index in range(desktop.get_child_count()):
        try:
            app = desktop.get_child_at_index(index)
            if app is not None and app.get_process_id() == picker.pid:
                return app
        except GLib.Error:
            pass  # (another program that went)
    return None


def on_description(event):
    # (Orca speaks a new description of the object it is on only: a tooltip changed on a box,
    # which GTK gives as its description, is not heard.)
    try:
        text = event.source.get_description() if event.source.get_role() not in CONTAINERS else None
    except GLib.Error:
        text = None
    if text:
        result["said"].append(text)


def controls(node, found, depth=0):
    """Every visible control below `node`, as [role, name]."""
    if node is None or depth > 60:
        return found
    try:
        states = node.get_state_set()
        # (GTK 4.8 says SHOWING of windows only.)
        if not states.contains(Atspi.StateType.VISIBLE) and node.get_role() != Atspi.Role.APPLICATION:
            return found
        role = node.get_role()
        # (GTK 4.8 says its scrolled windows and boxes are focusable: they pass the focus on.)
        if role in CONTROLS or (states.contains(Atspi.StateType.FOCUSABLE) and role not in CONTAINERS):
            found.append([node.get_role_name(), node.get_name() or ""])
        for index in range(node.get_child_count()):
            controls(node.get_child_at_index(index), found, depth + 1)
    except GLib.Error:
        pass  # (a recycled cell gone meanwhile)
    return found


def audit(name):
    # (A debug build can be busy for a second: its rows being made as the album list opens.)
    found, deadline = [], time.time() + 10
    while not found and time.time() < deadline:
        found = controls(application(), [])
        if not found:
            time.sleep(0.3)
    # A name a person can use: not empty, not GTK's type name.
    unnamed = [c for c in found if not c[1].strip() or c[1].startswith("Gtk")]
    result["audits"][name] = {"controls": found, "unnamed": unnamed}


def on_focus(event):
    if event.detail1 != 1:
        return
    try:
        result["focus"].append({"role": event.source.get_role_name(), "name": event.source.get_name(), "after": result["keys"]})
    except GLib.Error:
        pass


def on_checked(event):
    try:
        name = event.source.get_name()
    except GLib.Error as error:
        name = "(unreadable: %s)" % error.message
    result["events"].append({"name": name, "value": event.detail1})


try:
    deadline = time.time() + 30
    app, table = None, None
    while time.time() < deadline and table is None:
        app = application()
        table = find(app, Atspi.Role.TABLE) if app is not None else None
        if table is None:
            time.sleep(0.3)
    if table is None:
        raise RuntimeError("the picker's grid never showed on the accessibility bus")
    time.sleep(1.5)  # the first screen's cells bound
    result["cells"] = [table.get_child_at_index(i).get_name() for i in range(min(table.get_child_count(), 12))]

    listener = Atspi.EventListener.new(on_checked)
    listener.register("object:state-changed:checked")
    speaker = Atspi.EventListener.new(on_description)
    speaker.register("object:property-change:accessible-description")
    focus = Atspi.EventListener.new(on_focus)
    focus.register("object:state-changed:focused")
    window = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--pid", str(picker.pid)],
                            capture_output=True, text=True, timeout=30).stdout.split()[-1]
    xdotool("windowfocus", "--sync", window)
    steps = os.environ.get("A11Y_KEYS", "space Right space Left space").split()
    # With $A11Y_DO=N: the Nth cell's own action, as a screen reader's DoAction runs it.
    if "A11Y_DO" in os.environ:
        item = table.get_child_at_index(int(os.environ["A11Y_DO"]))
        cell = item.get_child_at_index(0) if item is not None and item.get_child_count() > 0 else None
        actions = [cell.get_action_name(i) for i in range(cell.get_n_actions())] if cell is not None else []
        result["actions"] = actions
        if "cell.toggle-pick" in actions:
            steps = []
            cell.do_action(actions.index("cell.toggle-pick"))
    loop = GLib.MainLoop()

    def step():
        if steps:
            key = steps.pop(0)
            if key.startswith("@audit:"):
                audit(key[len("@audit:"):])
            else:
                xdotool("key", key)
                result["keys"] += 1
            return True
        loop.quit()
        return False

    GLib.timeout_add(700, step)
    GLib.timeout_add_seconds(30, loop.quit)
    loop.run()
    # The last events arrive after the last key.
    end = time.time() + 1.5
    context = GLib.MainContext.default()
    while time.time() < end:
        context.iteration(False)
        time.sleep(0.05)
    listener.deregister("object:state-changed:checked")
    speaker.deregister("object:property-change:accessible-description")
    focus.deregister("object:state-changed:focused")
    result["strip"] = [name for name in names(app, Atspi.Role.PUSH_BUTTON) if name.startswith("Unpick photo")]
    slider = find(app, Atspi.Role.SLIDER)
    if slider is not None:
        result["timeline"] = {"name": slider.get_name(), "value": slider.get_current_value(),
                              "maximum": slider.get_maximum_value()}
    xdotool("key", os.environ.get("A11Y_END", "ctrl+Return"))
    result["status"] = picker.wait(timeout=20)
except Exception as error:  # reported, not raised: the test says what went wrong
    result["problem"] = "%s: %s" % (type(error).__name__, error)
finally:
    if picker.poll() is None:
        picker.kill()
        picker.wait()
print(json.dumps(result))
