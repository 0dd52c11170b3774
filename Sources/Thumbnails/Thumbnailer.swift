// SPDX-License-Identifier: LGPL-2.1-or-later
import Basics
import CGLib
import Glibc
import PhotoLibrary
import Synchronization

/// A thumbnail ready to paint.
public struct Thumbnail: Sendable {
    public enum Source: Sendable {
        case memory, disk, decoded
        /// The photo's embedded preview: a first paint, replaced when the decode finishes.
        case embedded
    }

    /// Nil for a placeholder (a video when no thumbnailer is installed: the cell shows a film icon).
    public let pixbuf: Pixbuf?
    public let source: Source
    /// Whether the disk cache holds it (false when the cache could not be written).
    public var isStored: Bool = true
    public var isPlaceholder: Bool { pixbuf == nil }
    /// A first paint that a final thumbnail will follow.
    public var isPreliminary: Bool { source == .embedded }
}

/// Makes one thumbnail: memory cache, then the disk cache (ours or another program's), then a
/// decode (or a thumbnailer for videos) whose result is stored in both. Thread-safe; the
/// scheduler runs it on worker threads, `photopick thumbnail` and the grid alike.
public final class Thumbnailer: Sendable {
    public let cache: ThumbnailCache
    public let memory: MemoryCache
    public let decoder: ImageDecoder
    /// Seconds a thumbnailer may run before it is killed.
    public let thumbnailerTimeout: Double
    private let thumbnailers: [ExternalThumbnailer]
    /// Where images are decoded: worker processes (`photopick`'s own), or this process when nil
    /// (a test process, a benchmark measuring the decoders themselves).
    public let workers: DecodeWorkerPool?

    private let decodeCount = Atomic<Int>(0)
    private let mainThreadDecodeCount = Atomic<Int>(0)
    private let storeFailureCount = Atomic<Int>(0)

    public init(cache: ThumbnailCache = ThumbnailCache(), memory: MemoryCache = MemoryCache(),
                decoder: ImageDecoder = ImageDecoder(), thumbnailers: [ExternalThumbnailer]? = nil,
                thumbnailerTimeout: Double = 20,
                workers: DecodeWorkerPool? = DecodeWorkerPool.ofThisProgram) {
        self.cache = cache
        self.memory = memory
        self.decoder = decoder
        self.thumbnailers = thumbnailers ?? ExternalThumbnailer.installed()
        self.thumbnailerTimeout = thumbnailerTimeout
        self.workers = workers
    }

    /// Runs a thumbnailer of another project (a video's). Beside decode workers (Photopick's
    /// own program), it runs confined (`ConfinedThumbnailer`), held to a share of the decode
    /// budget, and the picture it wrote is read by a worker; a failure within its share is tried
    /// once more with the whole budget, as a decode's is.
    private func runThumbnailer(_ thumbnailer: ExternalThumbnailer, on original: ThumbnailCache.Original, size: Int,
                                isCancelled: () -> Bool) -> Result<Pixbuf, ThumbnailFailure> {
        guard let workers else { return thumbnailer.run(on: original, size: size, timeout: thumbnailerTimeout, isCancelled: isCancelled) }
        var share = workers.thumbnailerShare
        let maximumPixels = decoder.maximumPixels
        while true {
            let held = share
            let result = withoutActuallyEscaping(isCancelled) { isCancelled in
                runConfined(thumbnailer, on: original, size: size, workers: workers, share: held, maximumPixels: maximumPixels, isCancelled: isCancelled)
            }
            if case .failure(.thumbnailerFailed) = result, share < workers.memoryBudget {
                share = workers.memoryBudget
                continue
            }
            return result
        }
    }

    private func runConfined(_ thumbnailer: ExternalThumbnailer, on original: ThumbnailCache.Original, size: Int, workers: DecodeWorkerPool,
                             share: Int, maximumPixels: Int, isCancelled: @escaping () -> Bool) -> Result<Pixbuf, ThumbnailFailure> {
        let confinement = ExternalThumbnailer.Confinement(executable: workers.executable, memory: share, holding: { run in
            workers.holding(share, isCancelled: isCancelled, run)
        }, load: { path, box in
            do {
                return workers.decode(try OpenFile(path: path), mimeType: "image/png", fittingIn: box, maximumPixels: maximumPixels).map(\.pixbuf)
            } catch {
                return .failure(.undecodable("\(error)"))
            }
        })
        return thumbnailer.run(on: original, size: size, timeout: thumbnailerTimeout, confinement: confinement, isCancelled: isCancelled)
    }

    /// Images decoded (and thumbnailers run) so far.
    public var decodes: Int { decodeCount.load(ordering: .relaxed) }
    /// Decodes that ran on the process's main thread: the grid's target is zero.
    public var mainThreadDecodes: Int { mainThreadDecodeCount.load(ordering: .relaxed) }
    /// Thumbnails that could not be written to the disk cache (full or read-only): served from memory.
    public var failedStores: Int { storeFailureCount.load(ordering: .relaxed) }

    /// The EXIF thumbnail of a JPEG that has no thumbnail made yet, as a first paint for a cell of
    /// `side` pixels (at least half that side): what the loader paints in every cell in sight
    /// before it decodes any of them. Nil when the thumbnail is made already (in memory, or in
    /// the cache at this flavour: its own job finds it at once), or there is no such preview.
    public func embeddedPreview(for path: FilePath, flavor: ThumbnailFlavor, side: Int) -> Thumbnail? {
        let path = path.absolute()
        guard !cache.contains(path), let file = try? OpenFile(path: path) else { return nil }
        let key = MemoryCache.Key(path: path, flavor: flavor, modificationTimeNanoseconds: file.modificationTimeNanoseconds, size: file.size)
        guard memory.thumbnail(for: key) == nil else { return nil }
        if let stored = try? cache.path(forFile: path, flavor: flavor), stored.withCString({ access($0, F_OK) }) == 0 { return nil }
        guard let preview = ExifThumbnail.read(in: file), min(preview.width, preview.height) * 2 >= side,
              let pixbuf = decodePreview(preview, of: file, fittingIn: flavor.pixels) else { return nil }
        return Thumbnail(pixbuf: pixbuf, source: .embedded)
    }

    /// The crash journal of the decodes made here (when there are no workers).
    private var decodingJournal: CrashJournal? {
        journalPath.withLock { path in
            if path == nil { path = .some(cache.decodingJournalPath()) }
            return path!.map { CrashJournal.shared(indexPath: $0) }
        }
    }
    private let journalPath = Mutex<String??>(nil)

    /// An EXIF thumbnail decoded in a worker when there are workers (libjpeg on bytes the file
    /// chose), else here.
    private func decodePreview(_ preview: EmbeddedPreview, of file: OpenFile, fittingIn box: Int) -> Pixbuf? {
        guard let workers else { return decoder.decode(preview, fittingIn: box) }
        return workers.decodeEmbeddedPreview(file, fittingIn: box, maximumPixels: decoder.maximumPixels)
    }

    /// The thumbnail of `path` fitting in `flavor`'s box. `isCancelled` is checked before the
    /// expensive steps, so a cancelled request stops early. When a JPEG must be decoded and its
    /// EXIF thumbnail's shorter side is at least half `firstPaintSide`, `firstPaint` gets that
    /// thumbnail first.
    public func thumbnail(for path: FilePath, flavor: ThumbnailFlavor, firstPaintSide: Int? = nil,
                          firstPaint: ((Thumbnail) -> Void)? = nil,
                          isCancelled: () -> Bool = { false }) -> Result<Thumbnail, ThumbnailFailure> {
        let path = path.absolute()
        if cache.contains(path) { return .failure(.undecodable("inside the thumbnail cache")) }
        let file: OpenFile
        do {
            file = try OpenFile(path: path)
        } catch {
            // An unreadable original: the spec says to read and write nothing in the cache.
            return .failure(ThumbnailFailure(error))
        }
        let modified = file.modificationTimeNanoseconds
        let key = MemoryCache.Key(path: path, flavor: flavor, modificationTimeNanoseconds: modified, size: file.size)
        if let hit = memory.thumbnail(for: key) { return .success(Thumbnail(pixbuf: hit.pixbuf, source: .memory)) }

        let cached: ThumbnailCache.Original
        do {
            cached = try ThumbnailCache.Original(path: path, modificationTime: modified.floorDivided(by: 1_000_000_000),
                                                 size: file.size, mimeType: nil)
        } catch {
            return .failure(.unreadable(error.message))
        }
        if let (pixbuf, isExact) = cache.lookup(cached, flavor: flavor) {
            // Found at another size or in a shared repository: keep a copy at this size too.
            if !isExact {
                let original = cached.with(mimeType: ContentType.guess(content: file.read(at: 0, count: 4096), fileName: path.lastComponent).mimeType)
                if (try? cache.store(pixbuf, for: original, flavor: flavor)) == nil { storeFailureCount.add(1, ordering: .relaxed) }
            }
            let thumbnail = Thumbnail(pixbuf: pixbuf, source: .disk)
            memory.insert(thumbnail, for: key)
            return .success(thumbnail)
        }
        if cache.hasFailure(for: cached) { return .failure(.knownFailure) }
        if isCancelled() { return .failure(.cancelled) }
        // Only a file that must be decoded is sniffed: a cache hit reads nothing of the original.
        let head = file.read(at: 0, count: 4096)
        let mimeType = ContentType.guess(content: head, fileName: path.lastComponent).mimeType
        let original = cached.with(mimeType: mimeType)
        // The EXIF thumbnail (160×120 from most cameras and phones) paints a cell at least half
        // its size at once: a little soft for a moment, never a grey square for the decode's time.
        if let firstPaint, let side = firstPaintSide, mimeType == "image/jpeg",
           let preview = ExifThumbnail.read(in: file), min(preview.width, preview.height) * 2 >= side,
           let pixbuf = decodePreview(preview, of: file, fittingIn: flavor.pixels) {
            firstPaint(Thumbnail(pixbuf: pixbuf, source: .embedded))
        }

        // (An SVG, whose drawing has no bound on its time, is drawn in a decode worker too: it is
        // killed at the worker's deadlines.)
        let thumbnailer = mimeType.hasPrefix("video/") ? thumbnailers.first { $0.mimeTypes.contains(mimeType) } : nil
        if mimeType.hasPrefix("video/") && thumbnailer == nil {
            // No thumbnailer installed: the cell shows a film icon; nothing is recorded.
            return .success(Thumbnail(pixbuf: nil, source: .decoded))
        }
        if file.isRemote {
            // The video thumbnailers read local files only: a remote video shows its film icon.
            if thumbnailer != nil { return .success(Thumbnail(pixbuf: nil, source: .decoded)) }
            // The worker decodes the mirror: every byte of the photo first (not recorded as a
            // failure when the server does not answer: it may next time).
            if let failure = file.fetchEverything() { return .failure(.temporary(failure)) }
        }
        decodeCount.add(1, ordering: .relaxed)
        if photopick_is_main_thread() != 0 { mainThreadDecodeCount.add(1, ordering: .relaxed) }
        var made: Result<(Pixbuf, (width: Int, height: Int)?), ThumbnailFailure>
        if let thumbnailer {
            made = runThumbnailer(thumbnailer, on: original, size: flavor.pixels, isCancelled: isCancelled).map { ($0, nil) }
        } else if head.isEmpty {
            made = .failure(.undecodable("empty file"))
        } else {
            made = decode(file, at: path, mimeType: mimeType, box: flavor.pixels, isCancelled: isCancelled)
            // A remote photo's bytes came over a network: one that does not decode is fetched
            // again, whole, and decoded once more before the file is judged damaged (and cannot
            // be picked; the judgement is kept in the cache until the file changes).
            if file.isRemote, case .failure(.undecodable(let reason)) = made, !isCancelled() {
                if let again = try? OpenFile(path: path), again.size == file.size,
                   again.modificationTimeNanoseconds == modified, again.fetchEverything() == nil {
                    made = decode(again, at: path, mimeType: mimeType, box: flavor.pixels, isCancelled: isCancelled)
                    let outcome = (try? made.get()) != nil ? "it did" : "it did not either"
                    DeveloperLog.say("\(path): decoded again from a new download (the first said “\(reason)”): \(outcome)")
                } else {
                    // Not confirmed (the server went, the file changed): nothing is judged yet.
                    made = .failure(.temporary("did not decode, and could not be fetched again to check: \(reason)"))
                }
            }
        }
        switch made {
        case .success(let (pixbuf, imageSize)):
            var stored = true
            do {
                try cache.store(pixbuf, for: original, flavor: flavor, imageSize: imageSize)
            } catch {
                stored = false
                storeFailureCount.add(1, ordering: .relaxed)
            }
            let thumbnail = Thumbnail(pixbuf: pixbuf, source: .decoded, isStored: stored)
            memory.insert(thumbnail, for: key)
            return .success(thumbnail)
        case .failure(let failure):
            // One failure record per file version: no retry storm.
            if failure.isPermanent { try? cache.storeFailure(for: original, reason: failure.description) }
            return .failure(failure)
        }
    }

    /// Decodes the whole of `file` (of `path`, sniffed as `mimeType`) to fit in `box`: in a decode
    /// worker, or here under the crash journal when there are none.
    private func decode(_ file: OpenFile, at path: FilePath, mimeType: String, box: Int,
                        isCancelled: () -> Bool) -> Result<(Pixbuf, (width: Int, height: Int)?), ThumbnailFailure> {
        // The worker picks its loader by this type (it cannot sniff): the content's, else the
        // name's (an XPM's content reads as C source).
        let decodeType = mimeType.hasPrefix("image/") ? mimeType : ContentType.guess(fileName: path.lastComponent).mimeType
        let decoded: Result<ImageDecoder.Decoded, ThumbnailFailure>
        if let workers {
            decoded = workers.decode(file, mimeType: decodeType, fittingIn: box, maximumPixels: decoder.maximumPixels,
                                     isCancelled: isCancelled)
        } else if let journal = decodingJournal, let suspicion = journal.suspicion(of: path) {
            decoded = .failure(.undecodable(suspicion))
        } else {
            // Here, in the journal: a crash in a loader is not met again at the next start.
            // (With the worker's type: the header check then knows every format it reads.)
            decoded = decodingJournal.map { $0.reading(path) { decoder.decode(file, fittingIn: box, mimeType: decodeType) } }
                ?? decoder.decode(file, fittingIn: box, mimeType: decodeType)
        }
        return decoded.map { ($0.pixbuf, ($0.imageWidth, $0.imageHeight)) }
    }
}
