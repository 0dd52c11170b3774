// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import Glibc
import PhotopickCommands

// One malloc arena per core, not glibc's eight: the window's 20 threads (thumbnails, index
// readers, the scan) each took an arena of their own and kept its freed pages, 0.9 MB of a warm
// window's peak on 2 cores (issue 42).
photopick_limit_malloc_arenas(Int32(max(2, sysconf(Int32(_SC_NPROCESSORS_ONLN)))))

// photopick [COMMAND] [OPTIONS]: everything is in PhotopickCommands.
exit(run())
