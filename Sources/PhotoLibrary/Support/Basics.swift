// SPDX-License-Identifier: LGPL-2.1-or-later
// Paths, locks, clocks, WorkerPool, the XDG folders and the version are in Basics, which the
// camera uses without the index; everything that imports PhotoLibrary sees them as before.
@_exported import Basics
