// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import GObjectSupport

#if canImport(Glibc)
import Glibc
#endif

// A child process for GObjectSupportTests: what must trap cannot be checked inside the test
// process itself. `on-thread` and `off-thread` call assertOnGTKThread from the process's first
// thread or from another; "passed" means the call returned.
// A function, not a closure literal: top-level code is on the MainActor, and a closure written
// there checks that it is on entry, which would trap before the call under test.
func callOffTheGTKThread(_: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    assertOnGTKThread("probe off the GTK thread")
    print("passed")
    return nil
}

switch CommandLine.arguments.dropFirst().first {
case "on-thread":
    assertOnGTKThread("probe on the GTK thread")
    print("passed")
case "off-thread":
    let thread = g_thread_new("probe", callOffTheGTKThread, nil)
    g_thread_join(thread)
default:
    print("usage: gobject-support-probe on-thread|off-thread")
    exit(2)
}
