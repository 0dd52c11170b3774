// SPDX-License-Identifier: LGPL-2.1-or-later
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
        read([(path, version)], datesOnly: true, workers: nil, journal: nil)[0]
    }

    static func read(path: FilePath, version: FileVersion) -> ReadOutcome {
        read([(path, version)], datesOnly: false, workers: nil, journal: nil)[0]
    }

    /// Reads a batch of files (the index reads in chunks): what a file's name and first bytes
    /// decide is decided here; the headers of its photos and videos are parsed by one of
    /// `workers` in a single request (exiv2 and the header readers then run in a sandboxed
    /// process), or here when there are none. What is read here is read in `journal`.
    static func read(_ files: [(path: FilePath, version: FileVersion)], datesOnly: Bool, workers: MetadataWorkers?,
                     journal: CrashJournal?) -> [ReadOutcome] {
        var outcomes: [ReadOutcome?] = []
        var jobs: [HeaderJob] = []
        var positions: [Int] = []
        for (path, version) in files {
            // (The content sniffer and the quick date reader run here: in the journal.)
            let classified = journal.map { journal in journal.reading(path) { classify(path: path, version: version, datesOnly: datesOnly, journal: journal) } }
                ?? classify(path: path, version: version, datesOnly: datesOnly, journal: nil)
            switch classified {
            case .decided(let outcome):
                outcomes.append(outcome)
            case .parse(let job):
                positions.append(outcomes.count)
                outcomes.append(nil)
                jobs.append(job)
            }
        }
        if !jobs.isEmpty {
            let parsed = workers?.parse(jobs, journal: journal) ?? jobs.map { job in journal?.reading(job.path) { parse(job) } ?? parse(job) }
            for (position, outcome) in zip(positions, parsed) { outcomes[position] = outcome }
        }
        return outcomes.map { $0! }
    }

    /// A photo or video whose headers are still to be read: the part a metadata worker does.
    struct HeaderJob {
        let file: OpenFile
        let path: FilePath
        var message: MetadataMessages.Job
    }

    enum Classification {
        case decided(ReadOutcome)
        case parse(HeaderJob)
    }

    /// What the file's name and first bytes say: not media, a failure, the quick date (with
    /// `datesOnly`), or a photo or video whose headers are to be parsed.
    static func classify(path: FilePath, version: FileVersion, datesOnly: Bool, journal: CrashJournal?) -> Classification {
        let nameGuess = ContentType.guess(fileName: path.lastName)
        let file: OpenFile
        do {
            file = try OpenFile(path: path, listed: version)
        } catch {
            switch error {
            case .vanished: return .decided(.vanished)
            case .failed(let reason): return .decided(nameGuess.isMedia ? .failed(reason) : .notMedia)
            case .unreachable(let reason): return .decided(.unreachable(reason))
            }
        }
        if let suspicion = journal?.suspicion(of: path) { return .decided(.failed(suspicion)) }
        let classification = classify(file, path: path, nameGuess: nameGuess, version: version,
                                      datesOnly: datesOnly && file.remote == nil)
        // A remote file whose server stopped answering halfway is not judged by what arrived.
        if let failure = file.remote?.failure {
            return .decided(failure.kind == .vanished ? .vanished : .unreachable(failure.message))
        }
        return classification
    }

    private static func classify(_ file: OpenFile, path: FilePath, nameGuess: ContentType.Guess, version: FileVersion,
                                 datesOnly: Bool) -> Classification {
        if datesOnly {
            let head = file.read(at: 0, count: QuickDate.headLength)
            let (answer, refused) = RefusedDates.collecting { QuickDate.answer(file, head: head) }
            switch answer {
            case .embedded(let date)?:
                return .decided(.media(MediaFile(kind: .photo, mimeType: "image/jpeg", captureDate: date, isPartial: true)))
            case .fileTime?:
                let mimeType = ContentType.commonType(content: head) ?? "image/jpeg"
                return .decided(.media(MediaFile(kind: .photo, mimeType: mimeType,
                                                 captureDate: CaptureDate(fileModificationTimeNanoseconds: version.modificationTimeNanoseconds),
                                                 isPartial: true, refusedDate: refused)))
            case nil:
                break
            }
        }
        let head = file.read(at: 0, count: sniffLength)
        if head.isEmpty {
            return .decided(nameGuess.isMedia ? .failed(file.size == 0 ? "empty file" : "cannot read the file") : .notMedia)
        }
        var contentGuess = ContentType.guess(content: head, fileName: path.lastComponent)
        // XBM is C source: sniffed as text. When the name says an image type and that type's
        // installed loader recognises the bytes by its own signature, it is that image.
        if !contentGuess.isMedia, nameGuess.isMedia, PixbufLoaders.recognises(head, as: nameGuess.mimeType) {
            contentGuess = nameGuess
        }
        guard contentGuess.isMedia else {
            guard nameGuess.isMedia else { return .decided(.notMedia) }
            let what = contentGuess.isUncertain ? "unrecognised data" : ContentType.description(of: contentGuess.mimeType)
            return .decided(.failed("not a \(ContentType.description(of: nameGuess.mimeType)): the content is \(what)"))
        }
        let modificationDate = CaptureDate(fileModificationTimeNanoseconds: version.modificationTimeNanoseconds)
        // (A remote file's: what the worker will read is fetched now; a failure is said above.)
        guard file.prepareForParsing(mimeType: contentGuess.mimeType, isVideo: contentGuess.isVideo) else { return .decided(.vanished) }
        return .parse(HeaderJob(file: file, path: path, message: MetadataMessages.Job(
            kind: contentGuess.isVideo ? .video : .photo, mimeType: contentGuess.mimeType, fallbackDate: modificationDate)))
    }

    /// Reads a photo's or video's headers (in a metadata worker, or here).
    static func parse(_ file: OpenFile, _ job: MetadataMessages.Job) -> ReadOutcome {
        let (outcome, refused) = RefusedDates.collecting {
            job.kind == .video ? readVideo(file, mimeType: job.mimeType, modificationDate: job.fallbackDate)
                : readPhoto(file, mimeType: job.mimeType, modificationDate: job.fallbackDate)
        }
        return outcome.refusing(refused)
    }

    static func parse(_ job: HeaderJob) -> ReadOutcome { parse(job.file, job.message) }

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

    private static func readPhoto(_ file: OpenFile, mimeType: String, modificationDate: CaptureDate) -> ReadOutcome {
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
