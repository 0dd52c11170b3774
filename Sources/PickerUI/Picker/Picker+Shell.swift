// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGtk
import GObjectSupport
import GTKSupport

// MARK: The shell and the implementation (photopick-private.h)
//
// The C shell (PhotopickPicker) and this implementation know each other through two tables
// of functions, handed over once by photopick_implementation_attach: in libphotopick-1.so the
// shell loads this code when the first picker is made, so a host that never makes one never
// loads Swift; the photopick program links the shell and attaches it at start.
//
// On the GTK thread, as every call into a widget is (GTK checks nothing; neither does Swift on
// a C call, so MainActor.assumeIsolated states what holds).

/// The shell's functions: the widget's public functions and its internal setters and signals.
enum PickerShell {
    /// Set once, by the attach below, before any picker is made; read on the GTK thread only.
    nonisolated(unsafe) private(set) static var functions: PhotopickShellFunctions?

    fileprivate static func attach(_ shell: PhotopickShellFunctions) { functions = shell }
}

/// The shell, for the implementation's code: `shell.get_max_picks(picker)`.
var shell: PhotopickShellFunctions {
    guard let functions = PickerShell.functions else {
        fatalError("A picker was made before the shell attached its implementation (photopick_shell_attach_linked)")
    }
    return functions
}

// (Public: an internal function's symbol is hidden in an optimized build, and the linker then
// dropped it from libphotopick-implementation.so, whose one export it is.)
@_cdecl("photopick_implementation_attach")
public func photopickImplementationAttach(_ shell: UnsafePointer<PhotopickShellFunctions>, _ abi: guint) -> UnsafePointer<PhotopickImplementationFunctions>? {
    guard abi == guint(PHOTOPICK_IMPLEMENTATION_ABI) else { return nil }
    StartupTrace.mark("embedded picker: implementation attached")
    PickerShell.attach(shell.pointee)
    return UnsafePointer(implementationFunctions)
}

/// On the thread that loaded the implementation, before it is attached: what the first picker
/// would otherwise make in the host's turn and needs no GTK (the style sheets).
@_cdecl("photopick_implementation_prepare")
public func photopickImplementationPrepare() {
    Style.prepare()
}

/// The photopick program, before GTK starts: the thumbnails its last window of these folders
/// showed first are read on the loader's threads meanwhile (FirstScreenHint). `folders` as
/// the picker's library-folders will be set (NULL: the person's own).
@_cdecl("photopick_implementation_preload")
public func photopickImplementationPreload(_ folders: UnsafePointer<UnsafePointer<CChar>?>?) {
    let given = [String](cStrings: folders)
    MainActor.assumeIsolated { Picker.readLastFirstScreen(folders: given) }
    // The style sheets too, beside GTK's start (made on the GTK thread, 0.7 ms of the window's
    // build under perf). A thread that ends: the next thread started takes its malloc arena.
    _ = WorkerPool.detached(name: "styles") { Style.prepare() }
}

private func picker(_ pointer: UnsafeMutableRawPointer?) -> Picker {
    // (A host that calls the widget from another thread is told so, in debug builds.)
    assertOnGTKThread("a PhotopickPicker was called")
    return Unmanaged<Picker>.fromOpaque(pointer!).takeUnretainedValue()
}

/// The implementation's functions, for the shell.
nonisolated(unsafe) private let implementationFunctions: UnsafeMutablePointer<PhotopickImplementationFunctions> = {
    // (Made on the GTK thread, where its closures run: Swift then lets them reach the
    // pickers, which are MainActor's.)
    nonisolated(unsafe) var table: UnsafeMutablePointer<PhotopickImplementationFunctions>?
    MainActor.assumeIsolated { table = makeImplementationFunctions() }
    return table!
}()

@MainActor private func makeImplementationFunctions() -> UnsafeMutablePointer<PhotopickImplementationFunctions> {
    let table = UnsafeMutablePointer<PhotopickImplementationFunctions>.allocate(capacity: 1)
    table.initialize(to: PhotopickImplementationFunctions(
        new: { picker in
            // (A pointer is not Sendable: it leaves the isolated closure through a variable.)
            var made: UnsafeMutableRawPointer?
            MainActor.assumeIsolated { made = Unmanaged.passRetained(Picker(picker: picker!)).toOpaque() }
            return made
        },
        changed: { pointer, property in
            MainActor.assumeIsolated { picker(pointer).changed(String(cString: property!)) }
        },
        dispose: { pointer in
            MainActor.assumeIsolated {
                picker(pointer).dispose()
                Unmanaged<Picker>.fromOpaque(pointer!).release()
            }
        },
        picked_uris: { pointer in
            let uris = MainActor.assumeIsolated { picker(pointer).pickedURIs }
            let vector = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>(OpaquePointer(g_malloc0(gsize((uris.count + 1) * MemoryLayout<UnsafeMutablePointer<CChar>?>.stride))))!
            for (index, uri) in uris.enumerated() { vector[index] = g_strdup(uri) }
            return vector
        },
        set_picked_uris: { pointer, uris in
            MainActor.assumeIsolated {
                var strings: [String] = []
                var cursor = uris!
                while let uri = cursor.pointee {
                    strings.append(String(cString: uri))
                    cursor += 1
                }
                picker(pointer).setPickedURIs(strings)
            }
        },
        confirm: { pointer in
            MainActor.assumeIsolated {
                let picker = picker(pointer)
                picker.buildIfWaiting()
                picker.confirm()
            }
        },
        clear: { pointer in MainActor.assumeIsolated { picker(pointer).clear() } },
        grab_focus: { pointer in MainActor.assumeIsolated { picker(pointer).grabFocus() ? 1 : 0 } },
        header_widgets: { pointer, start, title, end in
            MainActor.assumeIsolated {
                let widgets = picker(pointer).headerWidgets
                start?.pointee = widgets.start
                title?.pointee = widgets.title
                end?.pointee = widgets.end
            }
        },
        activate: { pointer, action in
            MainActor.assumeIsolated { picker(pointer).activate(String(cString: action!)) }
        },
        show_message: { pointer, message in
            MainActor.assumeIsolated { picker(pointer).showMessage(String(cString: message!)) }
        },
        reveal_uri: { pointer, uri in
            MainActor.assumeIsolated { picker(pointer).reveal(uri: String(cString: uri!)) }
        }))
    return table
}
