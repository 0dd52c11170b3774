/// Reads one file: decides whether it is media (by name, then by content), and gathers what the
/// index keeps about it. Never decodes pixels and never writes.
enum MetadataReader {
    /// How many bytes are sniffed for magic numbers.
    static let sniffLength = 4096

    /// Whether a file name alone rules the file out (a .txt, a .pdf), so it is never opened.
    /// Names without a known type (no extension, unknown extensions) are sniffed.
    static func mayBeMedia(fileName: [UInt8]) -> Bool {
        let guess = ContentType.guess(fileName: fileName)
        return guess.isMedia || guess.isUncertain
    }

    /// The first pass of a scan: a JPEG whose EXIF says its capture date, or a JPEG, PNG, GIF or
    /// WebP with no metadata block (dated by its file time), is answered with its kind and date alone
    /// (`isPartial`), in a fraction of a full read and without exiv2; anything else is read in full.
    /// Both give the same date (see `QuickDate`), so Recents' order is final after this pass.
    static func readDate(path: FilePath, version: FileVersion) -> ReadOutcome {
        if let file = try? OpenFile(path: path) {
            let head = file.read(at: 0, count: QuickDate.headLength)
            switch QuickDate.answer(file, head: head) {
            case .embedded(let date)?:
                return .media(MediaFile(kind: .photo, mimeType: "image/jpeg", captureDate: date, isPartial: true))
            case .fileTime?:
                let mimeType = ContentType.commonType(content: head) ?? "image/jpeg"
                return .media(MediaFile(kind: .photo, mimeType: mimeType,
                                        captureDate: CaptureDate(fileModificationTimeNanoseconds: version.modificationTimeNanoseconds),
                                        isPartial: true))
            case nil:
                break
            }
        }
        return read(path: path, version: version)
    }

    static func read(path: FilePath, version: FileVersion) -> ReadOutcome {
        let nameGuess = ContentType.guess(fileName: path.lastComponent)
        let file: OpenFile
        do {
            file = try OpenFile(path: path)
        } catch {
            switch error {
            case .vanished: return .vanished
            case .failed(let reason): return nameGuess.isMedia ? .failed(reason) : .notMedia
            }
        }
        let head = file.read(at: 0, count: sniffLength)
        if head.isEmpty {
            return nameGuess.isMedia ? .failed(file.size == 0 ? "empty file" : "cannot read the file") : .notMedia
        }
        var contentGuess = ContentType.guess(content: head)
        // XBM is C source: sniffed as text. When the name says an image type and that type's
        // installed loader recognises the bytes by its own signature, it is that image.
        if !contentGuess.isMedia, nameGuess.isMedia, PixbufLoaders.recognises(head, as: nameGuess.mimeType) {
            contentGuess = nameGuess
        }
        // shared-mime-info names some containers by their format, not as video: Matroska
        // ("Matroska stream", an .mkv's bytes), ASF (a .wmv's), Ogg. Named as a video, or not
        // named as audio, such a file is the video the name says (or the container's video type).
        if !contentGuess.isMedia, let video = Self.videoContainers[contentGuess.mimeType], !nameGuess.mimeType.hasPrefix("audio/") {
            contentGuess = nameGuess.isVideo ? nameGuess : ContentType.Guess(mimeType: video, isUncertain: false)
        }
        guard contentGuess.isMedia else {
            guard nameGuess.isMedia else { return .notMedia }
            let what = contentGuess.isUncertain ? "unrecognised data" : ContentType.description(of: contentGuess.mimeType)
            return .failed("not a \(ContentType.description(of: nameGuess.mimeType)): the content is \(what)")
        }
        let modificationDate = CaptureDate(fileModificationTimeNanoseconds: version.modificationTimeNanoseconds)
        if contentGuess.isVideo {
            return readVideo(file, mimeType: contentGuess.mimeType, modificationDate: modificationDate)
        }
        return readPhoto(file, path: path, mimeType: contentGuess.mimeType, modificationDate: modificationDate)
    }

    /// Containers GStreamer plays video from that content sniffing names by their format, and
    /// the video type each is when its name does not say.
    static let videoContainers = [
        "application/x-matroska": "video/x-matroska",
        "application/vnd.ms-asf": "video/x-ms-asf",
        "application/ogg": "video/ogg",
    ]

    private static func readVideo(_ file: OpenFile, mimeType: String, modificationDate: CaptureDate) -> ReadOutcome {
        switch VideoHeaders.read(file, mimeType: mimeType) {
        case .failure:
            return .failed("damaged or truncated video: no movie header")
        case .success(let header):
            var date = modificationDate
            // Cameras without a clock write 0 (1904 or 1970): only trust times after 1980, and none
            // more than a day ahead (the bound before 9999 keeps the multiplication from overflowing).
            if let created = header.createdAt, created > 315_532_800, created < 253_402_300_800,
               let embedded = Plausible.captureDate(CaptureDate(millisecondsSinceEpoch: created * 1000, utcOffsetMinutes: 0, source: .embedded)) {
                date = embedded
            }
            return .media(MediaFile(kind: .video, mimeType: mimeType, width: header.width, height: header.height,
                                    captureDate: date, duration: header.duration))
        }
    }

    private static func readPhoto(_ file: OpenFile, path: FilePath, mimeType: String, modificationDate: CaptureDate) -> ReadOutcome {
        var media = MediaFile(kind: .photo, mimeType: mimeType, captureDate: modificationDate)
        var storedSize: (width: Int, height: Int)?
        // A HEIF's boxes say its size and hold its EXIF items; exiv2 reads neither reliably.
        let heif = HEIFBoxes.mimeTypes.contains(mimeType) ? HEIFBoxes.read(file) : nil
        do {
            let embedded = try EmbeddedMetadata.read(file, exifBlocks: heif?.exifBlocks ?? [])
            if let width = embedded.pixelWidth, let height = embedded.pixelHeight { storedSize = (width, height) }
            if let orientation = embedded.orientation, (1...8).contains(orientation) { media.orientation = orientation }
            if let date = embedded.captureDate { media.captureDate = date }
            media.make = embedded.make
            media.model = embedded.model
            media.lens = embedded.lens
            media.rating = embedded.rating
        } catch {
            // exiv2 gave up (damaged EXIF, a format it does not know): the picture may still be fine,
            // so fall back to our header reader and the file time. Without a size it is unusable.
            storedSize = ImageHeaders.pixelSize(of: file, mimeType: mimeType)
            if storedSize == nil, heif?.displayedSize == nil {
                // A format exiv2 does not know is still a photo when an installed GdkPixbuf loader
                // reads it (the thumbnailer will show it): sized from its header when it says.
                let unreadable = ReadOutcome.failed("cannot read the image header: \(error.message)")
                guard PixbufLoaders.reads(mimeType) else { return unreadable }
                switch ImageHeaders.loaderHeader(of: file, mimeType: mimeType) {
                case .size(let width, let height): storedSize = (width, height)
                case .sizeUnknown: break
                case .damaged: return .failed("damaged \(ContentType.description(of: mimeType)): no valid header")
                case .readElsewhere: return unreadable
                }
            }
        }
        if storedSize == nil { storedSize = ImageHeaders.pixelSize(of: file, mimeType: mimeType) }
        if let heif {
            // The boxes give the size as shown: libheif applies the crop and rotation when it
            // decodes, and ignores EXIF's orientation (which HEIF writers copy from the camera),
            // so there is nothing left for the thumbnailer to turn.
            media.orientation = 1
            media.width = heif.displayedSize?.width
            media.height = heif.displayedSize?.height
        } else if let storedSize {
            let turned = media.orientation >= 5
            media.width = turned ? storedSize.height : storedSize.width
            media.height = turned ? storedSize.width : storedSize.height
        }
        media.frameCount = ImageHeaders.frameCount(of: file, mimeType: mimeType)
        return .media(media)
    }
}
