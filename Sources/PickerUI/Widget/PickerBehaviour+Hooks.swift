// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport

// MARK: The hooks the shell calls (photopick-private.h)
//
// On the GTK thread, as every call into a widget is (GTK checks nothing; neither does Swift on
// a C call, so @MainActor here states what holds).

@MainActor private func behaviour(_ pointer: UnsafeMutableRawPointer?) -> PickerBehaviour {
    // (A host that calls the widget from another thread is told so, in debug builds.)
    assertOnGTKThread("a PhotopickPicker was called")
    return Unmanaged<PickerBehaviour>.fromOpaque(pointer!).takeUnretainedValue()
}

@MainActor @_cdecl("photopick_picker_behaviour_class_init")
func photopickPickerBehaviourClassInit(_ widgetClass: UnsafeMutablePointer<GtkWidgetClass>) {
    PickerBehaviour.installActions(on: widgetClass)
}

@MainActor @_cdecl("photopick_picker_behaviour_new")
func photopickPickerBehaviourNew(_ picker: OpaquePointer) -> UnsafeMutableRawPointer {
    Unmanaged.passRetained(PickerBehaviour(picker: picker)).toOpaque()
}

@MainActor @_cdecl("photopick_picker_behaviour_changed")
func photopickPickerBehaviourChanged(_ pointer: UnsafeMutableRawPointer?, _ property: UnsafePointer<CChar>) {
    behaviour(pointer).changed(String(cString: property))
}

@MainActor @_cdecl("photopick_picker_behaviour_dispose")
func photopickPickerBehaviourDispose(_ pointer: UnsafeMutableRawPointer?) {
    behaviour(pointer).dispose()
    Unmanaged<PickerBehaviour>.fromOpaque(pointer!).release()
}

@MainActor @_cdecl("photopick_picker_behaviour_picked_uris")
func photopickPickerBehaviourPickedURIs(_ pointer: UnsafeMutableRawPointer?) -> UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> {
    let uris = behaviour(pointer).pickedURIs
    let vector = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>(OpaquePointer(g_malloc0(gsize((uris.count + 1) * MemoryLayout<UnsafeMutablePointer<CChar>?>.stride))))!
    for (index, uri) in uris.enumerated() { vector[index] = g_strdup(uri) }
    return vector
}

@MainActor @_cdecl("photopick_picker_behaviour_set_picked_uris")
func photopickPickerBehaviourSetPickedURIs(_ pointer: UnsafeMutableRawPointer?, _ uris: UnsafePointer<UnsafePointer<CChar>?>) {
    var strings: [String] = []
    var cursor = uris
    while let uri = cursor.pointee {
        strings.append(String(cString: uri))
        cursor += 1
    }
    behaviour(pointer).setPickedURIs(strings)
}

@MainActor @_cdecl("photopick_picker_behaviour_confirm")
func photopickPickerBehaviourConfirm(_ pointer: UnsafeMutableRawPointer?) {
    behaviour(pointer).confirm()
}

@MainActor @_cdecl("photopick_picker_behaviour_clear")
func photopickPickerBehaviourClear(_ pointer: UnsafeMutableRawPointer?) {
    behaviour(pointer).clear()
}

@MainActor @_cdecl("photopick_picker_behaviour_grab_focus")
func photopickPickerBehaviourGrabFocus(_ pointer: UnsafeMutableRawPointer?) -> gboolean {
    behaviour(pointer).grabFocus() ? 1 : 0
}

@MainActor @_cdecl("photopick_picker_behaviour_header_widgets")
func photopickPickerBehaviourHeaderWidgets(_ pointer: UnsafeMutableRawPointer?, _ start: UnsafeMutablePointer<UnsafeMutablePointer<GtkWidget>?>,
                                           _ title: UnsafeMutablePointer<UnsafeMutablePointer<GtkWidget>?>,
                                           _ end: UnsafeMutablePointer<UnsafeMutablePointer<GtkWidget>?>) {
    let widgets = behaviour(pointer).headerWidgets
    start.pointee = widgets.start
    title.pointee = widgets.title
    end.pointee = widgets.end
}
