// SPDX-License-Identifier: LGPL-2.1-or-later
#include <sqlite3.h>

// SQLITE_TRANSIENT is a cast macro Swift cannot import: ask SQLite to copy bound data.
static inline sqlite3_destructor_type photopick_sqlite_transient(void) { return SQLITE_TRANSIENT; }
