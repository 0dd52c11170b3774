// swift-tools-version:6.0
// SPDX-License-Identifier: GPL-3.0-or-later
// Photopick: a photo and video picker for the Linux desktop.
// C libraries come in as system-library targets (pkg-config name + a small shim header);
// library code (index, metadata, albums) never imports GTK.
import PackageDescription

/// How both programs are linked: by lld, their relative relocations packed (glibc 2.36 reads
/// DT_RELR), and their symbols not exported: the Swift driver exported 3,755 of them, which every
/// library's symbol lookup met first and which kept 0.35 MB of the program file resident at a
/// warm window's first frame (nothing looks a symbol up in a program: GtkBuilder finds
/// libadwaita's types in libadwaita, and the widget's library is loaded by hosts, not by these).
let programLinking = ["-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic"]

let package = Package(
    name: "Photopick",
    products: [
        .executable(name: "photopick", targets: ["photopick"]),
        .executable(name: "photopick-worker", targets: ["photopick-worker"]),
        .library(name: "PhotoLibrary", targets: ["PhotoLibrary"]),
        .library(name: "Thumbnails", targets: ["Thumbnails"]),
        // The picker widget's implementation, which libphotopick-1.so (the widget's C shell,
        // built by meson from Sources/CPhotopick) loads when a host makes its first picker:
        // meson installs it as <libdir>/photopick-1/libphotopick-implementation.so.
        .library(name: "photopick-implementation", type: .dynamic, targets: ["PhotopickLibrary"]),
    ],
    targets: [
        // C modules.
        .systemLibrary(name: "CGLib", path: "Sources/CGLib", pkgConfig: "gio-unix-2.0",
                       providers: [.apt(["libglib2.0-dev"])]),
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"])]),
        // gexiv2's header (libgexiv2-dev), without its pkg-config: its libraries would be linked,
        // and CExiv2Guard loads gexiv2 the first time it is needed.
        .systemLibrary(name: "CGExiv2", path: "Sources/CGExiv2"),
        .systemLibrary(name: "CGdkPixbuf", path: "Sources/CGdkPixbuf", pkgConfig: "gdk-pixbuf-2.0",
                       providers: [.apt(["libgdk-pixbuf-2.0-dev"])]),
        // V4L2 and libv4lconvert for the camera.
        // (Its headers only: libv4lconvert itself is opened when a camera is first used, shim.h.)
        .systemLibrary(name: "CV4L", path: "Sources/CV4L", providers: [.apt(["libv4l-dev"])]),
        // GTK4 (with GDK and GdkPixbuf) for the picker window; no library target may depend on it.
        // libadwaita comes in the same module: the window follows the desktop's style (dark, high
        // contrast, accent). Two modules that both include GTK's headers split GTK's
        // declarations between them (GTK_ORIENTATION_* went missing in files without the other).
        .systemLibrary(name: "CGtk", path: "Sources/CGtk", pkgConfig: "libadwaita-1",
                       providers: [.apt(["libgtk-4-dev", "libadwaita-1-dev"])]),

        // GObject from Swift, once for every GTK-facing target: signal handlers as closures, owning
        // object references, main-loop sources that go with their owner, the GTK-thread assertion,
        // GType registration over C structs. GLib only.
        .target(name: "GObjectSupport", dependencies: ["Basics", "CGLib"]),

        // The gexiv2 calls Photopick makes, each in a C++ try/catch: exiv2 throws exceptions gexiv2
        // does not catch, which would end the process (see its header). It loads gexiv2 the first
        // time it is needed.
        .target(name: "CExiv2Guard", dependencies: ["CGExiv2", "CGLib"]),

        // What every part stands on, without the index: paths (FilePath), locks and the monotonic
        // clock, WorkerPool (every thread Photopick starts), the XDG folders and the version.
        .target(name: "Basics", dependencies: ["CGLib"]),

        // The photo library index: scanning, metadata, albums, fetch results, change observation.
        .target(name: "PhotoLibrary", dependencies: ["Basics", "CGLib", "CSQLite", "CGExiv2", "CExiv2Guard", "CDecodeChannel"]),

        // Thumbnails: the freedesktop cache, decoding at size, a worker pool with cancellation and
        // prefetch. GdkPixbuf, no GTK widgets.
        .target(name: "Thumbnails", dependencies: ["PhotoLibrary", "GObjectSupport", "CGdkPixbuf", "CGLib", "CDecodeChannel", "CJPEGDC"]),

        // The decode worker's channel (a message and a file descriptor at a time) in C: Swift
        // cannot import the CMSG macros.
        .target(name: "CDecodeChannel"),

        // A progressive JPEG's 1/8-scale picture from its DC scans alone, through libjpeg (which
        // GdkPixbuf links already), in C for libjpeg's setjmp error handling.
        .target(name: "CJPEGDC", linkerSettings: [.linkedLibrary("jpeg")]),

        // The camera: V4L2 devices, format choice, streaming on a worker, conversion to RGB,
        // captures written as JPEG. No GTK.
        .target(name: "Camera", dependencies: ["Basics", "GObjectSupport", "CV4L", "CGdkPixbuf", "CGLib"]),

        // The FileChooser portal backend's D-Bus side (GIO, no GTK): the calls read and checked,
        // routed (the picker, or the desktop's other chooser, relayed), answered once each.
        .target(name: "PortalBackend", dependencies: ["Basics", "GObjectSupport", "PhotoLibrary", "CGLib"]),

        // The picker's models and stores: the grid's GListModel (GIO, no GTK), the selection,
        // and the rules of picking (what a thumbnail's failure says of its file).
        .target(name: "PickerModel", dependencies: ["Basics", "PhotoLibrary", "Thumbnails", "Camera", "GObjectSupport", "CGLib"]),

        // The picker widget's GObject shell in C (PhotopickPicker: properties, signals, actions,
        // the public header), linked into the photopick program; meson builds the same file as
        // libphotopick-1.so. What the widget does is PickerUI's (Widget/PickerBehaviour.swift),
        // which sees the shell only through photopick-private.h's tables.
        .target(name: "CPhotopick", dependencies: ["CGtk"], exclude: ["photopick-1.map"]),

        // What the picker's widgets and the program's window share of GTK: the signal signatures
        // GObjectSupport does not know, tooltips, style classes, markup.
        .target(name: "GTKSupport", dependencies: ["Basics", "GObjectSupport", "CGtk"]),

        // The picker's widgets (GTK4): the embeddable picker view, its grid cells, the widget's
        // implementation behind the C shell.
        .target(name: "PickerUI", dependencies: ["GObjectSupport", "GTKSupport", "PickerModel", "Camera", "Thumbnails", "PhotoLibrary", "CGtk"]),

        // libphotopick-implementation.so's own target, for its link flags: the Swift runtime's
        // folder as its run path, so it loads with nothing set, and a version script that
        // exports photopick_implementation_attach and _prepare and hides everything else.
        .target(name: "PhotopickLibrary", dependencies: ["PickerUI", "PhotoLibrary"],
                exclude: ["photopick-implementation.map"],
                linkerSettings: [.unsafeFlags(["-toolchain-stdlib-rpath", "-use-ld=lld", "-Xlinker", "-soname=libphotopick-implementation.so",
                                               "-Xlinker", "--version-script=\(Context.packageDirectory)/Sources/PhotopickLibrary/photopick-implementation.map"])]),

        // The photopick program's window, the app from the menu and zenity's folder chooser: a host
        // of the picker widget like any other, on its public API (photopick-1/photopick.h) alone.
        // Not PickerUI: SwiftPM refuses any reach into the widget's insides.
        .target(name: "PhotopickApp", dependencies: ["CPhotopick", "CGtk", "GTKSupport", "GObjectSupport", "PickerModel", "PhotoLibrary", "PortalBackend"]),

        // The command-line program: its commands and their options, the window command, output.
        .target(name: "PhotopickCommands", dependencies: ["PhotoLibrary", "Thumbnails", "PhotopickApp", "PortalBackend", "CPhotopick", "Camera", "GObjectSupport", "CGLib", "CGtk"]),
        // (PickerUI: the widget's implementation, linked in beside its shell, photopick_shell_attach_linked.)
        // Both programs carry the Swift runtime inside them: eight libraries fewer for the loader,
        // whose symbol lookups were half of a start's CPU. `photopick --version` took 19.5 ms
        // and then 16.1 ms (the bare GTK window, 12.6); a warm window's peak fell 1.5 MB.
        // lld packs their 30,000 relative relocations (RELR: 6 KB instead of 700 KB of the file,
        // read at every start; `programLinking`), and lays out the functions a warm start runs together
        // (photopick.order, made by bench/make-link-order): the kernel maps a program 64 KiB
        // around each page touched, and the start's functions spread over the whole runtime
        // made 8.0 MB of the file resident at a warm window's first frame; 5.8 MB now, and the
        // window's peak 2.3 MB lower (60,000 photos, 3 runs each, side by side).
        .executableTarget(name: "photopick", dependencies: ["PhotopickCommands", "PickerUI", "CGLib"], exclude: ["photopick.order"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"] + programLinking + [
                              "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/photopick/photopick.order",
                              "-Xlinker", "--no-warn-symbol-ordering"])]),
        .executableTarget(name: "photopick-worker", dependencies: ["PhotoLibrary", "Thumbnails"],
                          linkerSettings: [.unsafeFlags(["-static-stdlib"] + programLinking)]),

        // bench/: the thumbnail benchmark's driver (see bench/thumbnail-benchmark.py).
        .executableTarget(name: "thumbnail-benchmark", dependencies: ["Thumbnails", "PhotoLibrary", "CGLib"],
                          path: "bench/ThumbnailBenchmark"),

        .executableTarget(name: "picker-benchmark", dependencies: ["PickerUI", "CPhotopick", "Thumbnails", "PhotoLibrary", "CGtk"],
                          path: "bench/PickerBenchmark"),

        .executableTarget(name: "camera-benchmark", dependencies: ["PickerUI", "PickerModel", "Camera", "GObjectSupport", "Thumbnails", "PhotoLibrary", "CGtk", "CGdkPixbuf"],
                          path: "bench/CameraBenchmark"),

        // Helpers the test targets share: temporary folders, running programs, generated libraries.
        .target(name: "TestSupport", dependencies: ["PhotoLibrary", "Camera"], path: "Tests/TestSupport"),
        .testTarget(name: "PhotoLibraryTests", dependencies: ["PhotoLibrary", "CGLib", "TestSupport"]),
        .testTarget(name: "PortalQuestionTests", dependencies: ["PortalBackend", "PhotoLibrary", "Basics", "CGLib"]),
        .testTarget(name: "PickerModelTests", dependencies: ["PickerModel", "Camera", "PhotoLibrary", "TestSupport", "GObjectSupport", "CGLib"]),
        .testTarget(name: "PickerUITests", dependencies: ["TestSupport", "GObjectSupport", "GTKSupport", "PickerUI", "PhotopickApp", "PickerModel", "Camera", "PhotoLibrary", "Thumbnails", "CGtk"]),
        // GObjectSupport's tests need no display; the probe is a child process for what must trap.
        .testTarget(name: "GObjectSupportTests", dependencies: ["GObjectSupport", "CGLib"]),
        .executableTarget(name: "crash-journal-probe", dependencies: ["PhotoLibrary"], path: "Tests/CrashJournalProbe"),
        .executableTarget(name: "sandbox-probe", dependencies: ["CDecodeChannel", "PhotoLibrary"], path: "Tests/SandboxProbe"),
        .executableTarget(name: "remote-files-probe", dependencies: ["PhotoLibrary", "CGLib"], path: "Tests/RemoteFilesProbe"),
        .executableTarget(name: "gobject-support-probe", dependencies: ["GObjectSupport", "CGLib"], path: "Tests/GObjectSupportProbe"),
        .testTarget(name: "CameraTests", dependencies: ["Camera", "PhotoLibrary", "TestSupport", "CGdkPixbuf", "CGLib"]),
        .testTarget(name: "ThumbnailsTests", dependencies: ["Thumbnails", "PhotoLibrary", "TestSupport", "CGdkPixbuf"]),
    ]
)

// Fuzz targets, for bench/fuzz only: it builds them with `-sanitize=fuzzer,address`. Each one's
// main (SwiftPM's `<module>_main`) hands itself to libFuzzer's LLVMFuzzerRunDriver (CFuzzDriver).
// Declared only when bench/fuzz asks, so ordinary builds and the tests never see them.
if Context.environment["PHOTOPICK_FUZZ"] == "1" {
    package.targets.append(.target(name: "CFuzzDriver", path: "Tests/Fuzz/Driver"))
    package.targets.append(.target(name: "FuzzSupport", dependencies: ["CFuzzDriver"], path: "Tests/Fuzz/Support"))
    package.targets.append(.target(name: "CFuzzReference", path: "Tests/Fuzz/Reference", linkerSettings: [.linkedLibrary("jpeg")]))
    let fuzzTargets: [(name: String, folder: String, dependencies: [Target.Dependency])] = [
        ("fuzz-headers", "Headers", ["PhotoLibrary", "Thumbnails"]),
        ("fuzz-metadata", "Metadata", ["PhotoLibrary"]),
        ("fuzz-decode", "Decode", ["PhotoLibrary", "Thumbnails"]),
        ("fuzz-eighth", "Eighth", ["CJPEGDC", "CFuzzReference"]),
        ("fuzz-thumbnailer", "Thumbnailer", ["PhotoLibrary", "Thumbnails"]),
        ("fuzz-command-line", "CommandLine", ["PhotopickCommands"]),
        ("fuzz-worker-messages", "WorkerMessages", ["PhotoLibrary", "Thumbnails", "CDecodeChannel"]),
        ("fuzz-worker-replies", "WorkerReplies", ["PhotoLibrary", "Thumbnails", "CDecodeChannel"]),
        ("fuzz-metadata-messages", "MetadataMessages", ["PhotoLibrary"]),
    ]
    for target in fuzzTargets {
        package.targets.append(.executableTarget(
            name: target.name, dependencies: ["FuzzSupport"] + target.dependencies, path: "Tests/Fuzz/\(target.folder)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
}
