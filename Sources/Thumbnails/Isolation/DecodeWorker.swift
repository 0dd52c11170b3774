// SPDX-License-Identifier: LGPL-2.1-or-later
import CDecodeChannel
import CGdkPixbuf
import Glibc
import PhotoLibrary

/// `photopick decode-worker`: a process that decodes the files it is handed, one at a time, so
/// that a decoder a hostile file takes over (GdkPixbuf's loaders are third-party C) ends this
/// process, not the window with its picks. The window's side is `DecodeWorkerPool`.
///
/// Its socket is descriptor 3. Each request comes with the file's descriptor: the worker opens
/// nothing by name. Before each decode it allows itself `cpuSeconds` more of processor time
/// (SIGXCPU then ends it); its address space is bounded once, as it starts. Pixels go back in the
/// memory file the window made for it (descriptor 4); a failure goes back as words.
public enum DecodeWorker {
    public static let channel = WorkerProcess.channel

    /// The loaders a worker loads before it is shut in; it can decode only those formats.
    public enum Formats: String, Sendable, CaseIterable {
        /// JPEG and PNG (built into GdkPixbuf), GIF, WebP, BMP and ICO: what cameras, phones and
        /// browsers save. Their modules load in about 1 ms (4 ms from a cold page cache).
        case everyday
        /// Every loader GdkPixbuf has. HEIF, AVIF, TIFF and SVG bring libheif, libde265, dav1d,
        /// libtiff and librsvg: 74 ms to load with a warm page cache, 115 ms from a cold one, in
        /// every worker, while the first screen of a first run waits on the same two cores.
        case every

        static let everydayLoaders = ["png", "jpeg", "gif", "webp", "bmp", "ico"]
        static let everydayTypes: Set<String> = ["image/jpeg", "image/png", "image/gif", "image/webp", "image/bmp", "image/x-bmp",
                                                 "image/x-ms-bmp", "image/x-icon", "image/vnd.microsoft.icon"]

        /// The loaders a decode of `mimeType` needs.
        public static func needed(for mimeType: String) -> Formats { everydayTypes.contains(mimeType) ? .everyday : .every }

        /// Whether a worker with these loaders decodes what `needed` does.
        public func covers(_ needed: Formats) -> Bool { self == .every || needed == .everyday }
    }

    /// `decode-worker --memory BYTES [--formats everyday|every]`: runs until the window closes
    /// its end; returns the exit status.
    public static func run(arguments: [String]) -> Int32 {
        var budget = UInt64(DecodeWorkerPool.defaultBudget)
        var formats = Formats.every
        var index = 0
        while index + 1 < arguments.count {
            switch arguments[index] {
            case "--memory": budget = UInt64(arguments[index + 1]) ?? budget
            case "--formats": formats = Formats(rawValue: arguments[index + 1]) ?? formats
            default: break
            }
            index += 2
        }
        return run(memoryBudget: budget, formats: formats)
    }

    /// Runs until the window closes its end; returns the exit status.
    public static func run(memoryBudget: UInt64, formats: Formats = .every) -> Int32 {
        guard WorkerSandbox.prepare() else { return 3 }
        if getppid() == 1 { return 0 }  // the window is gone already
        // (Set once: the decoder's own allocations, whatever the file, stay inside it.)
        guard photopick_worker_limit_memory(memoryBudget) == 0 else { return 3 }
        let decoder = ImageDecoder()
        // The memory file shared with the window (descriptor 4), when it handed one over.
        var sharedInfo = stat()
        var shared: (address: UnsafeMutableRawPointer, size: Int)?
        if fstat(channel + 1, &sharedInfo) == 0, sharedInfo.st_size > 0,
           let address = mmap(nil, Int(sharedInfo.st_size), PROT_READ | PROT_WRITE, MAP_SHARED, channel + 1, 0), address != MAP_FAILED {
            shared = (address, Int(sharedInfo.st_size))
        }
        // Its loaders in memory first: GdkPixbuf opens a format's module the first time it meets
        // that format, and nothing is opened once the worker is shut in.
        preloadLoaders(formats == .everyday ? Formats.everydayLoaders : nil)
        // The worker with every loader draws SVGs, whose text needs the person's fonts: it may
        // read beneath the font folders, and nothing else.
        let fonts = formats == .every ? WorkerFonts.folders : []
        if formats == .every { WorkerFonts.warmUp() }
        let fontSample = formats == .every ? WorkerFonts.sample(in: fonts) : nil
        let walls = WorkerSandbox.enter(readable: fonts)
        while true {
            var buffer = [UInt8](repeating: 0, count: DecodeMessages.requestSize)
            var fd: Int32 = -1
            let received = photopick_channel_receive(channel, &buffer, buffer.count, &fd)
            if received == 0 { return 0 }
            guard received == buffer.count, let request = DecodeMessages.Request(buffer), fd >= 0 || request.kind == .checkSandbox else {
                if fd >= 0 { close(fd) }
                return 2  // not a request of ours: nothing more is read from this channel
            }
            if request.kind == .checkSandbox {
                if fd >= 0 { close(fd) }
                let bytes = DecodeMessages.Reply(outcome: .checked, message: WorkerSandbox.check(walls, readableFile: fontSample)).bytes
                if photopick_channel_send(channel, bytes, bytes.count, -1) != 0 { return 0 }
                continue
            }
            _ = photopick_worker_limit_cpu(UInt32(request.cpuSeconds))
            _ = photopick_worker_allow_memory(UInt64(request.memoryAllowance))
            var reply: DecodeMessages.Reply
            do {
                let file = try OpenFile(adopting: fd)
                var bounded = decoder
                bounded.maximumPixels = request.maximumPixels
                let decoded: Result<ImageDecoder.Decoded, ThumbnailFailure>
                if request.kind == .embeddedPreview {
                    // (Read again from the file here: the window's reading of it is not believed.)
                    if let preview = ExifThumbnail.read(in: file), let pixbuf = bounded.decode(preview, fittingIn: request.box) {
                        decoded = .success(ImageDecoder.Decoded(pixbuf: pixbuf, imageWidth: preview.width, imageHeight: preview.height))
                    } else {
                        decoded = .failure(.undecodable("no embedded preview that decodes"))
                    }
                } else {
                    decoded = bounded.decode(file, fittingIn: request.box, mimeType: request.mimeType.isEmpty ? nil : request.mimeType)
                }
                switch decoded {
                case .success(let decoded):
                    reply = Self.reply(decoded, shared: shared)
                case .failure(.tooLarge(let width, let height, let limit)):
                    reply = DecodeMessages.Reply(outcome: .tooLarge, imageWidth: width, imageHeight: height, limit: limit)
                case .failure(.temporary(let reason)):
                    reply = DecodeMessages.Reply(outcome: .temporary, message: reason)
                case .failure(.undecodable(let reason)):
                    reply = DecodeMessages.Reply(outcome: .undecodable, message: reason)
                case .failure(let other):
                    reply = DecodeMessages.Reply(outcome: .undecodable, message: other.description)
                }
            } catch {
                reply = DecodeMessages.Reply(outcome: .temporary, message: "the file could not be handed over")
            }
            let bytes = reply.bytes
            if photopick_channel_send(channel, bytes, bytes.count, -1) != 0 { return 0 }  // the window went away meanwhile
        }
    }

    /// Loads the modules of the formats `named`, or of every format GdkPixbuf knows (asking for
    /// a loader of each type).
    private static func preloadLoaders(_ named: [String]?) {
        guard let formats = gdk_pixbuf_get_formats() else { return }
        defer { g_slist_free(formats) }
        var node: UnsafeMutablePointer<GSList>? = formats
        while let current = node {
            if let format = current.pointee.data.map(OpaquePointer.init),
               let name = gdk_pixbuf_format_get_name(format) {
                if named?.contains(String(cString: name)) ?? true, let loader = LoaderMessages.quietly({ gdk_pixbuf_loader_new_with_type(name, nil) }) {
                    _ = gdk_pixbuf_loader_close(loader, nil)
                    g_object_unref(UnsafeMutableRawPointer(loader))
                }
                g_free(name)
            }
            node = current.pointee.next
        }
    }

    /// The decoded picture in the memory file the window made and shares with this worker (the
    /// only place the window takes pixels from), and what describes it.
    private static func reply(_ decoded: ImageDecoder.Decoded, shared: (address: UnsafeMutableRawPointer, size: Int)?) -> DecodeMessages.Reply {
        let pixbuf = decoded.pixbuf.pointer
        let length = Int(gdk_pixbuf_get_byte_length(pixbuf))
        guard let shared, length <= shared.size, let data = gdk_pixbuf_read_pixels(pixbuf) else {
            // (A box of the largest flavour, 1024, fills a quarter of it.)
            return DecodeMessages.Reply(outcome: .temporary, message: "the picture does not fit the memory shared with the window")
        }
        var reply = DecodeMessages.Reply(outcome: .decoded)
        reply.width = Int(gdk_pixbuf_get_width(pixbuf))
        reply.height = Int(gdk_pixbuf_get_height(pixbuf))
        reply.rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        reply.hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        reply.imageWidth = decoded.imageWidth
        reply.imageHeight = decoded.imageHeight
        memcpy(shared.address, data, length)
        reply.inSharedFile = true
        return reply
    }
}
