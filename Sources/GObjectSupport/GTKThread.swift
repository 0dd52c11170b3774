// SPDX-License-Identifier: LGPL-2.1-or-later
import CGLib

/// Traps, in debug builds only, when called from any thread but the GTK thread. The picker's
/// GTK-facing types are `@MainActor`, and C callbacks enter them through
/// `MainActor.assumeIsolated` (which traps in every build): this is for code the compiler cannot
/// check, a nonisolated entry point that must still be on the GTK thread. The GTK thread is the
/// process's first thread, the main actor's: the picker's `main`, GtkApplication and XCTest's
/// synchronous tests all run there.
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
