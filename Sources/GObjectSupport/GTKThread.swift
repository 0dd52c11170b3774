import CGLib

/// Traps, in debug builds only, when called from any thread but the GTK thread. GTK, the picker's
/// models and `MainLoopSource` are single-threaded; a call from a worker corrupts state quietly,
/// so debug builds stop at the call. The GTK thread is the process's first thread: the picker's
/// `main`, GtkApplication and XCTest's synchronous tests all run there.
public func assertOnGTKThread(_ what: @autoclosure () -> String = "", file: StaticString = #fileID, line: UInt = #line) {
    #if DEBUG
    if !isOnGTKThread {
        let detail = what()
        fatalError("called off the GTK thread" + (detail.isEmpty ? "" : ": " + detail), file: file, line: line)
    }
    #endif
}

/// Whether the caller runs on the GTK thread (the process's first thread).
public var isOnGTKThread: Bool { photopick_is_main_thread() != 0 }
