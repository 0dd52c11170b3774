// SPDX-License-Identifier: GPL-3.0-or-later
import Glibc
import PhotoLibrary
import PhotopickApp

/// Whether a `--file-selection` line is a question for the photo picker or for GTK's own
/// chooser. A script written for zenity asks for any kind of file: Photopick answers with the
/// picker only what it can answer (a person who browses must be able to reach the file), and
/// GTK's chooser answers the rest with zenity's output. The same rule for filters as the portal's
/// (`ChooserRoute`): the picker when every filter admits only photos or videos.
struct ZenityRoute: Equatable {
    enum Answerer: Equatable { case picker, chooser }
    let answerer: Answerer
    /// Why, for `--verbose` and the tests.
    let reason: String

    /// What the line and its caller say.
    struct Evidence {
        var filters: [PickerWindow.FileFilter] = []
        /// `--mime-type`, Photopick's own filter: a question for the picker.
        var mimeTypes: [String] = []
        /// An option zenity does not have (`--library`, `--max`, `--json` …): the line was written
        /// for Photopick.
        var ownOption: String?
        var title: String?
        var filename: FilePath?
        /// The folders the picker would show (a `--filename` inside them is about photos).
        var libraryFolders: [FilePath] = []
        /// The name this process was started by (a link named `zenity` stands in for zenity).
        var invokedAs: String = ""
        /// The script that started this process, when its parent is an interpreter running one.
        var callerScript: CallerScript?
    }

    struct CallerScript: Equatable {
        let path: String
        /// Whether the script names Photopick (it was written for it).
        let namesPhotopick: Bool
    }

    static func decide(_ evidence: Evidence) -> ZenityRoute {
        if !evidence.mimeTypes.isEmpty { return ZenityRoute(answerer: .picker, reason: "--mime-type") }
        if !evidence.filters.isEmpty {
            for filter in evidence.filters {
                if let other = filter.patterns.first(where: { ContentType.guess(namePattern: $0)?.isMedia != true }) {
                    return ZenityRoute(answerer: .chooser, reason: "filter “\(filter.name)” admits other files (\(other))")
                }
            }
            return ZenityRoute(answerer: .picker, reason: "every filter admits only photos or videos")
        }
        // No filter: any file, unless something says photos.
        if let file = evidence.filename, file.isRegularFile, !ContentType.guess(fileName: file.lastComponent).isMedia {
            return ZenityRoute(answerer: .chooser, reason: "--filename names a file that is not a photo or video")
        }
        if let option = evidence.ownOption { return ZenityRoute(answerer: .picker, reason: "\(option) is Photopick's") }
        if let title = evidence.title, PhotoWords.say(title) { return ZenityRoute(answerer: .picker, reason: "the title speaks of photos") }
        if let file = evidence.filename, saysPhotos(file, libraryFolders: evidence.libraryFolders) {
            return ZenityRoute(answerer: .picker, reason: "--filename is a photo, a video or a folder of them")
        }
        if let script = evidence.callerScript {
            if script.namesPhotopick { return ZenityRoute(answerer: .picker, reason: "the script \(script.path) names Photopick") }
            let name = String(script.path.split(separator: "/").last ?? "")
            if PhotoWords.say(name) { return ZenityRoute(answerer: .picker, reason: "the script's name \(name) speaks of photos") }
            return ZenityRoute(answerer: .chooser, reason: "no filter, and neither the title nor the script \(script.path) speaks of photos")
        }
        // Started by its own name from a terminal or a program (not a script written for zenity).
        if evidence.invokedAs != "zenity" { return ZenityRoute(answerer: .picker, reason: "run as \(evidence.invokedAs)") }
        return ZenityRoute(answerer: .chooser, reason: "no filter, and nothing speaks of photos")
    }

    /// A photo or video's name, or a folder of the library, Pictures or Videos (or in one).
    private static func saysPhotos(_ path: FilePath, libraryFolders: [FilePath]) -> Bool {
        if !path.isDirectory { return ContentType.guess(fileName: path.lastComponent).isMedia }
        let folder = path.absolute()
        return (libraryFolders + XDGDirectories.mediaFolders).contains { root in
            root.bytes.count > 1 && (folder == root || folder.relative(to: root) != nil)
        }
    }

    /// The script this process's parent runs: the parent's first argument that is a readable
    /// file, when the parent is an interpreter (`bash script.sh`, or the kernel's `#!` line:
    /// `/bin/sh ./script`); nil for a terminal's shell or a program.
    static func callerScript(parent: pid_t = getppid()) -> CallerScript? {
        guard let line = readStart(of: FilePath("/proc/\(parent)/cmdline"), limit: 64 << 10) else { return nil }
        let words = line.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        guard let program = words.first?.split(separator: "/").last else { return nil }
        let interpreters = ["sh", "bash", "dash", "zsh", "ksh", "mksh", "fish", "perl", "ruby", "node", "nodejs", "lua", "tclsh", "php"]
        let isInterpreter = interpreters.contains(String(program)) || program.hasPrefix("python") || program.hasPrefix("lua")
            || program.hasPrefix("perl")
        guard isInterpreter else { return nil }
        for word in words.dropFirst() {
            if word == "-c" { return nil }  // (a command line, not a script)
            if word.hasPrefix("-") { continue }
            // A relative path is the parent's: read it from the parent's folder.
            let path = word.hasPrefix("/") ? FilePath(word) : FilePath("/proc/\(parent)/cwd/\(word)")
            guard path.isRegularFile, let text = readStart(of: path, limit: 1 << 20) else { return nil }
            let name = Array("photopick".utf8)
            let namesPhotopick = text.count >= name.count
                && (0...(text.count - name.count)).contains { text[$0] == name[0] && text[$0..<($0 + name.count)].elementsEqual(name) }
            return CallerScript(path: word, namesPhotopick: namesPhotopick)
        }
        return nil
    }

    /// The first `limit` bytes of a file (a file of /proc says its size is 0: read to the end).
    private static func readStart(of path: FilePath, limit: Int) -> [UInt8]? {
        let fd = path.withCString { open($0, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: limit)
        var count = 0
        while count < limit {
            let got = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + count, limit - count) }
            if got <= 0 { break }
            count += got
        }
        return Array(bytes[..<count])
    }
}

/// Whether a title or a name speaks of photos or videos, in the languages Photopick speaks and a
/// few more. A disk image or an ISO image is not a photo.
enum PhotoWords {
    /// Found anywhere in a word ("Wallpapers", "set_wallpaper.sh", "Screenshots").
    static let stems = ["photo", "picture", "image", "wallpaper", "video", "avatar", "screenshot", "camera", "gallery",
                        "snapshot", "foto", "bild", "imagen", "immagin", "фото", "изображ", "картин", "снимк", "снимок",
                        "обои", "видео", "사진", "이미지", "그림", "배경화면", "동영상", "비디오", "写真", "画像", "動画", "照片", "图片",
                        "图像", "视频", "壁纸"]
    /// Whole words only ("pic" is in "pick", "topic").
    static let words = ["pic", "pics", "img", "jpg", "jpeg", "png", "gif", "webp", "heic", "heif", "avif", "tiff", "movie",
                        "movies", "album", "clip", "clips", "mp4", "mkv", "webm"]
    /// A title with one of these is about something else ("Choose an ISO image").
    static let otherKinds = ["iso", "disk", "docker", "container", "firmware", "rom", "qcow", "vdi", "vmdk", "dmg", "virtual",
                             "raspberry", "flash", "usb", "boot", "kernel", "initrd", "sd card", "образ диск", "디스크"]

    static func say(_ text: String) -> Bool {
        let lowered = text.lowercased()
        let split = lowered.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).map(String.init)
        if otherKinds.contains(where: { kind in kind.contains(" ") ? lowered.contains(kind) : split.contains(kind) }) { return false }
        if split.contains(where: { words.contains($0) }) { return true }
        return stems.contains { lowered.contains($0) }
    }
}
