// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport

/// A GtkWidget subclass whose state is a Swift object, as the picker's parts are (the grid cell,
/// the strip, the preview, the capture view, the album switcher): a GType of its own with its CSS
/// name and accessible role, so that GTK's inspector, a stylesheet and a screen reader see a
/// `photopick-cell` where they saw an anonymous box, and its own layout when it has one.
///
/// The widget owns its state (`adopt`): the Swift object lives exactly as long as the widget and
/// holds it only as a pointer. Disposing the widget tells the state (`SwiftWidget.widgetDisposed`),
/// unparents its children, then releases the state; GTK does the rest.
///
///     static let type = WidgetType("PhotopickGridCell", cssName: "photopick-cell", role: GTK_ACCESSIBLE_ROLE_GROUP)
///     ...
///     root = Self.type.make()
///     ...                                   // every stored property set
///     Self.type.adopt(self, by: root)
@MainActor
public final class WidgetType {
    public let type: GType

    /// Registers the type (once, from a `static let`). `layout` is a GtkLayoutManager type
    /// every instance gets (GtkBoxLayout, GtkBinLayout); a state that is a `WidgetSizing` lays
    /// out the children itself instead (the type then takes no layout manager).
    /// `focusesChild`: `gtk_widget_grab_focus ()` on the widget gives the focus to its first
    /// child that takes it, as GtkBox does (a widget that wraps a button or a view).
    /// `actions`: installed on the class ("cell.toggle-pick"), carried out by the state
    /// (`WidgetActions`); assistive technologies list them, and AT-SPI's DoAction runs them.
    public init(_ name: String, cssName: String, role: GtkAccessibleRole = GTK_ACCESSIBLE_ROLE_GENERIC,
                layout: GType? = nil, sizing: Bool = false, focusesChild: Bool = false, actions: [String] = []) {
        precondition(layout == nil || !sizing, "\(name): a layout manager or its own sizing, not both")
        let definition = Definition(cssName: cssName, role: role, layout: layout, sizing: sizing, focusesChild: focusesChild, actions: actions)
        var info = GTypeInfo()
        info.class_size = guint16(MemoryLayout<PhotopickSwiftWidgetClass>.size)
        info.instance_size = guint16(MemoryLayout<PhotopickSwiftWidgetInstance>.size)
        info.class_init = { klass, data in
            MainActor.assumeIsolated { WidgetType.classInit(klass!, Unmanaged<Definition>.fromOpaque(data!).takeUnretainedValue()) }
        }
        // (The definition lives as long as the type: for the process.)
        info.class_data = UnsafeRawPointer(Unmanaged.passRetained(definition).toOpaque())
        type = g_type_register_static(gtk_widget_get_type(), name, &info, GTypeFlags(rawValue: 0))
        precondition(type != 0, "\(name) could not be registered")
    }

    /// A new widget of this type, with no state yet (a floating reference, as any new widget).
    public func make() -> UnsafeMutablePointer<GtkWidget> {
        g_object_new_with_properties(type, 0, nil, nil)!.cast(GtkWidget.self)
    }

    /// Gives `widget` (made by `make`) its state, which it keeps until it is disposed.
    public func adopt(_ state: AnyObject, by widget: UnsafeMutablePointer<GtkWidget>) {
        guard let instance = instance(widget) else { preconditionFailure("adopt: not a widget of this type") }
        precondition(instance.pointee.state == nil, "adopt: the widget has a state already")
        instance.pointee.state = Unmanaged.passRetained(state).toOpaque()
    }

    /// The state of `widget`, when it is a widget of this type with a state that is a `T`.
    public func state<T: AnyObject>(of widget: UnsafeMutablePointer<GtkWidget>?, as _: T.Type = T.self) -> T? {
        guard let widget, let state = instance(widget)?.pointee.state else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(state).takeUnretainedValue() as? T
    }

    private func instance(_ widget: UnsafeMutablePointer<GtkWidget>) -> UnsafeMutablePointer<PhotopickSwiftWidgetInstance>? {
        guard g_type_check_instance_is_a(widget.raw.assumingMemoryBound(to: GTypeInstance.self), type) != 0 else { return nil }
        return widget.raw.assumingMemoryBound(to: PhotopickSwiftWidgetInstance.self)
    }

    // MARK: The class

    private final class Definition {
        let cssName: String, role: GtkAccessibleRole, layout: GType?, sizing: Bool, focusesChild: Bool, actions: [String]
        init(cssName: String, role: GtkAccessibleRole, layout: GType?, sizing: Bool, focusesChild: Bool, actions: [String]) {
            (self.cssName, self.role, self.layout, self.sizing, self.focusesChild, self.actions) = (cssName, role, layout, sizing, focusesChild, actions)
        }
    }

    /// GtkWidget's own dispose, which each of these types chains up to.
    nonisolated(unsafe) private static var parentDispose: (@convention(c) (UnsafeMutablePointer<GObject>?) -> Void)?

    private static func classInit(_ klass: UnsafeMutableRawPointer, _ definition: Definition) {
        let widgetClass = klass.assumingMemoryBound(to: GtkWidgetClass.self)
        let objectClass = klass.assumingMemoryBound(to: GObjectClass.self)
        if parentDispose == nil {
            parentDispose = g_type_class_peek(gtk_widget_get_type())!.assumingMemoryBound(to: GObjectClass.self).pointee.dispose
        }
        gtk_widget_class_set_css_name(widgetClass, definition.cssName)
        gtk_widget_class_set_accessible_role(widgetClass, definition.role)
        if let layout = definition.layout { gtk_widget_class_set_layout_manager_type(widgetClass, layout) }
        objectClass.pointee.dispose = { object in
            MainActor.assumeIsolated { WidgetType.dispose(object!) }
            WidgetType.parentDispose?(object)
        }
        if definition.focusesChild {
            widgetClass.pointee.grab_focus = { widget in
                var child = gtk_widget_get_first_child(widget)
                while let current = child {
                    if gtk_widget_grab_focus(current) != 0 { return 1 }
                    child = gtk_widget_get_next_sibling(current)
                }
                return 0
            }
            // And Tab moves through its children as through a box's (GtkWidget's own focus
            // would grab_focus the widget on Shift+Tab, which put the focus back on its child).
            widgetClass.pointee.focus = { widget, direction in
                var children: [UnsafeMutablePointer<GtkWidget>] = []
                var child = gtk_widget_get_first_child(widget)
                while let current = child {
                    children.append(current)
                    child = gtk_widget_get_next_sibling(current)
                }
                if [GTK_DIR_TAB_BACKWARD, GTK_DIR_UP, GTK_DIR_LEFT].contains(direction) { children.reverse() }
                let focused = gtk_widget_get_focus_child(widget)
                var past = focused == nil
                for current in children {
                    if !past {
                        guard current == focused else { continue }
                        past = true
                    } else if gtk_widget_get_visible(current) == 0 || gtk_widget_is_sensitive(current) == 0 {
                        continue
                    }
                    if gtk_widget_child_focus(current, direction) != 0 { return 1 }
                }
                return 0
            }
        }
        for action in definition.actions {
            gtk_widget_class_install_action(widgetClass, action, nil) { widget, name, _ in
                MainActor.assumeIsolated {
                    guard let state = widget?.raw.assumingMemoryBound(to: PhotopickSwiftWidgetInstance.self).pointee.state, let name,
                          let actions = Unmanaged<AnyObject>.fromOpaque(state).takeUnretainedValue() as? WidgetActions else { return }
                    actions.widgetAction(String(cString: name))
                }
            }
        }
        if definition.sizing {
            widgetClass.pointee.get_request_mode = { widget in
                MainActor.assumeIsolated { WidgetType.sizing(widget)?.requestMode ?? GTK_SIZE_REQUEST_CONSTANT_SIZE }
            }
            widgetClass.pointee.measure = { widget, orientation, forSize, minimum, natural, minimumBaseline, naturalBaseline in
                MainActor.assumeIsolated {
                    let (least, best) = WidgetType.sizing(widget)?.measure(orientation, for: Int(forSize)) ?? (0, 0)
                    minimum?.pointee = Int32(least)
                    natural?.pointee = Int32(best)
                    minimumBaseline?.pointee = -1
                    naturalBaseline?.pointee = -1
                }
            }
            widgetClass.pointee.size_allocate = { widget, width, height, baseline in
                MainActor.assumeIsolated { WidgetType.sizing(widget)?.allocate(width: Int(width), height: Int(height), baseline: Int(baseline)) }
            }
        }
    }

    private static func sizing(_ widget: UnsafeMutablePointer<GtkWidget>?) -> WidgetSizing? {
        guard let state = widget?.raw.assumingMemoryBound(to: PhotopickSwiftWidgetInstance.self).pointee.state else { return nil }
        return Unmanaged<AnyObject>.fromOpaque(state).takeUnretainedValue() as? WidgetSizing
    }

    /// (May run more than once, as any dispose: the state goes the first time.)
    private static func dispose(_ object: UnsafeMutablePointer<GObject>) {
        let instance = object.raw.assumingMemoryBound(to: PhotopickSwiftWidgetInstance.self)
        let widget = object.raw.assumingMemoryBound(to: GtkWidget.self)
        let state = instance.pointee.state.map { Unmanaged<AnyObject>.fromOpaque($0) }
        (state?.takeUnretainedValue() as? SwiftWidget)?.widgetDisposed()
        while let child = gtk_widget_get_first_child(widget) { gtk_widget_unparent(child) }
        instance.pointee.state = nil
        state?.release()
    }
}

/// A widget's state that wants to know when its widget goes (to let go of subscriptions and
/// requests before its children do).
@MainActor
public protocol SwiftWidget: AnyObject {
    func widgetDisposed()
}

/// A widget's state that measures and allocates its children itself (a `WidgetType` registered
/// with `sizing: true`), as GtkWidget's measure and size_allocate vfuncs.
@MainActor
public protocol WidgetSizing: AnyObject {
    var requestMode: GtkSizeRequestMode { get }
    /// The minimum and natural size in `orientation`, for the other's `size` (-1: any).
    func measure(_ orientation: GtkOrientation, for size: Int) -> (minimum: Int, natural: Int)
    func allocate(width: Int, height: Int, baseline: Int)
}

/// GtkOverlay's layout, for the state of a widget of its own type (registered with `sizing:
/// true`): the first child sizes the widget and fills it; every other child is given the whole
/// area and GTK places it there by its alignment and margins, drawn over those before it.
@MainActor
public protocol LaidOutAsOverlay: WidgetSizing {
    /// The widget laid out.
    var widget: UnsafeMutablePointer<GtkWidget> { get }
}

extension LaidOutAsOverlay {
    public var requestMode: GtkSizeRequestMode {
        gtk_widget_get_first_child(widget).map { gtk_widget_get_request_mode($0) } ?? GTK_SIZE_REQUEST_CONSTANT_SIZE
    }

    public func measure(_ orientation: GtkOrientation, for size: Int) -> (minimum: Int, natural: Int) {
        guard let main = gtk_widget_get_first_child(widget), gtk_widget_should_layout(main) != 0 else { return (0, 0) }
        var minimum: Int32 = 0, natural: Int32 = 0
        gtk_widget_measure(main, orientation, Int32(size), &minimum, &natural, nil, nil)
        return (Int(minimum), Int(natural))
    }

    public func allocate(width: Int, height: Int, baseline: Int) {
        var child = gtk_widget_get_first_child(widget)
        while let current = child {
            if gtk_widget_should_layout(current) != 0 {
                var allocation = GtkAllocation(x: 0, y: 0, width: Int32(width), height: Int32(height))
                gtk_widget_size_allocate(current, &allocation, -1)
            }
            child = gtk_widget_get_next_sibling(current)
        }
    }
}

/// A widget's state that carries out the actions its type installs (`WidgetType`'s `actions`).
@MainActor
public protocol WidgetActions: AnyObject {
    func widgetAction(_ name: String)
}
