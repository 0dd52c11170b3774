import CGtk
import GObjectSupport
import PhotoLibrary

/// The window's smaller parts: the picks kept from last time, the file filters' list, a folder
/// chosen from the empty state, and the startup trace's frames.
extension PickerWindow {
    /// The app from the menu picks again what was picked when it last closed (those still in the
    /// library), and says so.
    static func restorePicks(_ uris: [String], in view: PickerView, library: PhotoLibrary) {
        var restored = 0
        for uri in uris {
            guard let path = filePath(fromURI: uri), let asset = try? library.asset(path: path),
                  case .picked = view.selection.toggle(asset.id) else { continue }
            restored += 1
        }
        if restored > 0 {
            view.showToast(ni18n("{count} photo is still picked from last time", "{count} photos are still picked from last time", restored))
        }
        if restored < uris.count {
            view.report(ni18n("{count} photo picked last time is no longer in the library", "{count} photos picked last time are no longer in the library",
                              uris.count - restored))
        }
    }

    static func fileURI(_ path: FilePath) -> String? {
        guard let uri = path.withCString({ g_filename_to_uri($0, nil, nil) }) else { return nil }
        defer { g_free(uri) }
        return String(cString: uri)
    }

    static func filePath(fromURI uri: String) -> FilePath? {
        guard let path = g_filename_from_uri(uri, nil, nil) else { return nil }
        defer { g_free(path) }
        return FilePath(bytes: Array(UnsafeRawBufferPointer(start: path, count: strlen(path))))
    }

    /// PHOTOPICK_TRACE_STARTUP: when the window maps and its first frames are drawn.
    static func traceFirstFrames(of window: UnsafeMutablePointer<GtkWidget>) {
        Signal.connect(window.raw, "map") { () -> Void in
            StartupTrace.mark("mapped")
            guard let clock = gtk_widget_get_frame_clock(window) else { return }
            Signal.connect(UnsafeMutableRawPointer(clock), "after-paint") { () -> Void in
                let frame = gdk_frame_clock_get_frame_counter(clock)
                if frame < 3 { StartupTrace.mark("frame \(frame) drawn") }
            }
        }
    }

    /// The header's list of file filters (zenity's `--file-filter`, shown when there are two or
    /// more): choosing one shows only the files its patterns match, in every album.
    static func fileFilterChooser(_ options: Options, view: PickerView) -> UnsafeMutablePointer<GtkWidget> {
        let names = options.fileFilters.map(\.name)
        let chooser = names.withCStringArray { gtk_drop_down_new_from_strings($0) }!
        photopick_accessible_set_label(chooser, i18n("File type"))
        setTooltip(chooser, i18n("Which files to show"))
        Signal.connect(chooser.raw, "notify::selected") { [weak view] in
            guard let view else { return }
            let index = Int(gtk_drop_down_get_selected(OpaquePointer(chooser)))
            guard options.fileFilters.indices.contains(index) else { return }
            view.filterName = options.fileFilters[index].name
            view.filter = AssetFilter(mimeTypes: options.mimeTypes, namePatterns: options.fileFilters[index].patterns)
        }
        return chooser
    }

    /// The folder chosen from the empty state joins the library: the window is built again
    /// over the new set of folders (nothing is picked yet: the grid was empty).
    static func reopen(_ session: Session, application: UnsafeMutablePointer<AdwApplication>,
                               window: UnsafeMutablePointer<GtkWidget>, adding folder: FilePath, in view: PickerView) {
        let roots = session.library.roots.filter(\.mayHoldALibrary) + [folder]
        let library: PhotoLibrary
        do {
            library = try PhotoLibrary(roots: roots)
        } catch {
            view.report(i18n("Cannot open {folder}: {reason}", ["folder": folder.displayString, "reason": "\(error)"]))
            return
        }
        if session.options.remembersChosenFolders {
            // Said in the new window: this one is about to go.
            do { try LibraryFolders.add(folder) } catch { session.pendingProblems.append("\(error)") }
        }
        session.library = library
        // Keep the application alive between the two windows.
        g_application_hold(application.cast())
        gtk_window_destroy(window.cast())
        build(session, application: application)
        g_application_release(application.cast())
    }
}
