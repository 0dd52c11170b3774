/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* photopick-version.h: which Photopick a program is built against, and the marks on the
 * library's API.
 *
 * Included by photopick.h; do not include it alone.
 */
#pragma once

#if !defined(PHOTOPICK_INSIDE) && !defined(PHOTOPICK_COMPILATION)
#error "Only <photopick-1/photopick.h> can be included directly."
#endif

#include <glib.h>

/**
 * PHOTOPICK_MAJOR_VERSION:
 *
 * The major version of the Photopick headers a program is built with (the `0` of `0.2.0`);
 * photopick_get_major_version() tells the library loaded at run time.
 *
 * Since: 0.3
 */
#define PHOTOPICK_MAJOR_VERSION (0)

/**
 * PHOTOPICK_MINOR_VERSION:
 *
 * The minor version of the Photopick headers a program is built with.
 *
 * Since: 0.3
 */
#define PHOTOPICK_MINOR_VERSION (2)

/**
 * PHOTOPICK_MICRO_VERSION:
 *
 * The micro version of the Photopick headers a program is built with.
 *
 * Since: 0.3
 */
#define PHOTOPICK_MICRO_VERSION (0)

/**
 * PHOTOPICK_VERSION_S:
 *
 * The version of the Photopick headers a program is built with, as a string ("0.2.0").
 *
 * Since: 0.3
 */
#define PHOTOPICK_VERSION_S "0.2.0"

/**
 * PHOTOPICK_CHECK_VERSION:
 * @major: a major version
 * @minor: a minor version
 * @micro: a micro version
 *
 * Whether the Photopick headers a program is built with are this version or newer:
 * `#if PHOTOPICK_CHECK_VERSION (0, 3, 0)` around code that sets `picked-uris`.
 *
 * Returns: %TRUE when the headers are @major.@minor.@micro or newer
 *
 * Since: 0.3
 */
#define PHOTOPICK_CHECK_VERSION(major,minor,micro) \
  (PHOTOPICK_MAJOR_VERSION > (major) || \
   (PHOTOPICK_MAJOR_VERSION == (major) && PHOTOPICK_MINOR_VERSION > (minor)) || \
   (PHOTOPICK_MAJOR_VERSION == (major) && PHOTOPICK_MINOR_VERSION == (minor) && \
    PHOTOPICK_MICRO_VERSION >= (micro)))

/* What the library exports: only the functions marked so (it is compiled with hidden
 * visibility, and its version script, Sources/CPhotopick/photopick-1.map, hides the linker's
 * own symbols too). */
#ifndef _PHOTOPICK_EXTERN
#define _PHOTOPICK_EXTERN __attribute__((visibility ("default"))) extern
#endif

/* Part of the API since the first version of the library (0.2). */
#define PHOTOPICK_AVAILABLE_IN_ALL _PHOTOPICK_EXTERN

/* New in 0.3: a program that may run on 0.2 checks PHOTOPICK_CHECK_VERSION (0, 3, 0) at build
 * time and photopick_get_minor_version() at run time. */
#define PHOTOPICK_AVAILABLE_IN_0_3 _PHOTOPICK_EXTERN
