// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary

// MARK: The file chooser filters (filters, filter)
//
// As GtkFileChooser's: a list of GtkFileFilter the person chooses from, in a drop-down beside the
// confirm button, shown while there is a filter at all (one too, as zenity shows it: the person
// sees why files are hidden). The chosen filter's rules, read as the portal sends them
// (gtk_file_filter_to_gvariant: patterns, suffixes as patterns, MIME types), are AssetFilter's
// `choice`.
extension Picker {
    /// The shell's list of filters (a GListStore of GtkFileFilter), held by the shell.
    var filtersModel: OpaquePointer {
        var value = GValue()
        g_value_init(&value, g_list_model_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(UnsafeMutableRawPointer(picker).assumingMemoryBound(to: GObject.self), "filters", &value)
        return OpaquePointer(g_value_get_object(&value))!
    }

    /// The filter in use, or nil.
    var currentFilter: OpaquePointer? {
        var value = GValue()
        g_value_init(&value, gtk_file_filter_get_type())
        defer { g_value_unset(&value) }
        g_object_get_property(UnsafeMutableRawPointer(picker).assumingMemoryBound(to: GObject.self), "filter", &value)
        return g_value_get_object(&value).map(OpaquePointer.init)
    }

    /// The drop-down over the shell's list, made once with the widget.
    func makeFilterChooser() -> UnsafeMutablePointer<GtkWidget> {
        let model = filtersModel
        g_object_ref(UnsafeMutableRawPointer(model))  // (the drop-down takes a reference)
        let name = gtk_property_expression_new(gtk_file_filter_get_type(), nil, "name")
        let chooser = gtk_drop_down_new(model, name)!
        photopick_accessible_set_label(chooser, i18n("File type"))
        setTooltip(chooser, i18n("Which files to show"))
        Signal.connect(chooser.raw, "notify::selected", object: { [weak self] _ in
            guard let self, !self.followingFilter else { return }
            let position = gtk_drop_down_get_selected(OpaquePointer(chooser))
            guard let item = g_list_model_get_item(model, position) else { return }
            defer { g_object_unref(item) }
            var value = GValue()
            g_value_init(&value, gtk_file_filter_get_type())
            defer { g_value_unset(&value) }
            g_value_set_object(&value, item)
            g_object_set_property(UnsafeMutableRawPointer(self.picker).assumingMemoryBound(to: GObject.self), "filter", &value)
        })
        return chooser
    }

    /// The drop-down shows the filter in use, and is there while there are filters.
    func followFilters() {
        let model = filtersModel
        let any = g_list_model_get_n_items(model) > 0
        if any && filterChooser == nil {
            let made = makeFilterChooser()
            gtk_box_prepend(endBox.cast(), made)
            filterChooser = made
        }
        guard let filterChooser else { return }
        gtk_widget_set_visible(filterChooser, any ? 1 : 0)
        guard let current = currentFilter else { return }
        for position in 0..<g_list_model_get_n_items(model) {
            guard let item = g_list_model_get_item(model, position) else { continue }
            g_object_unref(item)
            if OpaquePointer(item) == current {
                followingFilter = true
                gtk_drop_down_set_selected(OpaquePointer(filterChooser), position)
                followingFilter = false
            }
        }
    }

    /// The filter in use as AssetFilter's choice, and its name (for the empty state that says it
    /// hides everything); nil for none.
    var chosenFilter: (choice: AssetFilter.Choice, name: String?)? {
        guard let filter = currentFilter, let rules = gtk_file_filter_to_gvariant(filter) else { return nil }
        g_variant_ref_sink(rules)
        defer { g_variant_unref(rules) }
        var choice = AssetFilter.Choice()
        // "(sa(us))": the name, then each rule: 0 a shell pattern, 1 a MIME type.
        if let list = g_variant_get_child_value(rules, 1) {
            defer { g_variant_unref(list) }
            for index in 0..<g_variant_n_children(list) {
                guard let rule = g_variant_get_child_value(list, index) else { continue }
                defer { g_variant_unref(rule) }
                guard let kind = g_variant_get_child_value(rule, 0), let text = g_variant_get_child_value(rule, 1) else { continue }
                let string = String(cString: g_variant_get_string(text, nil))
                if g_variant_get_uint32(kind) == 0 { choice.namePatterns.append(string) } else { choice.mimeTypes.append(string) }
                g_variant_unref(kind)
                g_variant_unref(text)
            }
        }
        return (choice, gtk_file_filter_get_name(filter).map { String(cString: $0) })
    }
}
