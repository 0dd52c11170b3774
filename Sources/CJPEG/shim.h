// SPDX-License-Identifier: LGPL-2.1-or-later
// libjpeg (libjpeg-turbo in Debian): camera captures are written as JPEG, and MJPEG frames decoded.
// jpeglib.h needs stdio's FILE and size_t declared before it.
#include <stdio.h>
#include <stddef.h>
#include <jpeglib.h>
