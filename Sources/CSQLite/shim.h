// SPDX-License-Identifier: LGPL-2.1-or-later
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: ask SQLite to copy bound data.
static inline sqlite3_destructor_type photopick_sqlite_transient(void) { return SQLITE_TRANSIENT; }

// sqlite3_config is variadic, which Swift cannot call. Memory statistics off: SQLite then takes no
// process-wide mutex for each of its allocations (every bound name and path is copied): 6 % of a
// first run's scan thread went to those mutexes (perf, 2026-12-06). Only before SQLite starts
// (later: SQLITE_MISUSE, ignored); only the photopick program calls it, never a host's process.
static inline int photopick_sqlite_without_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
