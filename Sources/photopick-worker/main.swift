// SPDX-License-Identifier: LGPL-2.1-or-later
import Glibc
import PhotoLibrary
import Thumbnails

// The decode and metadata workers' own program: what `photopick decode-worker` and `photopick
// metadata-worker` run, without the window's libraries. photopick links GTK, libadwaita and
// GStreamer, and a process of it took 30-40 ms to start before it read a byte (0.2 s when
// the page cache was cold); a worker needs GLib, GdkPixbuf and exiv2 only. The pools use it
// when it is installed beside photopick, and photopick itself otherwise.
//
//   photopick-worker decode-worker --memory BYTES --formats everyday|every
//   photopick-worker metadata-worker
//   photopick-worker confine-thumbnailer --memory BYTES --write FOLDER -- PROGRAM ARGUMENT…
let arguments = CommandLine.arguments
switch arguments.count > 1 ? arguments[1] : "" {
case "decode-worker":
    exit(DecodeWorker.run(arguments: Array(arguments.dropFirst(2))))
case "metadata-worker":
    exit(MetadataWorker.run())
case "confine-thumbnailer":
    exit(ConfinedThumbnailer.run(arguments: Array(arguments.dropFirst(2))))
default:
    let usage = "photopick-worker: a child of photopick, not a program to run by hand\n"
    _ = usage.withCString { write(2, $0, strlen($0)) }
    exit(2)
}
