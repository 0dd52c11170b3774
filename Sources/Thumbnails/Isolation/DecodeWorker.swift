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
/// (SIGXCPU then ends it); its address space is bounded once, as it starts. Pixels go back in a
/// sealed memory file; a failure goes back as words.
public enum DecodeWorker {
    public static let channel: Int32 = 3

    /// Runs until the window closes its end; returns the exit status.
    public static func run(memoryBudget: UInt64) -> Int32 {
        guard photopick_worker_prepare() == 0 else { return 3 }
        if getppid() == 1 { return 0 }  // the window is gone already
        // (Set once: the decoder's own allocations, whatever the file, stay inside it.)
        guard photopick_worker_limit_memory(memoryBudget) == 0 else { return 3 }
        let decoder = ImageDecoder()
        while true {
            var buffer = [UInt8](repeating: 0, count: DecodeMessages.requestSize)
            var fd: Int32 = -1
            let received = photopick_channel_receive(channel, &buffer, buffer.count, &fd)
            if received == 0 { return 0 }
            guard received == buffer.count, let request = DecodeMessages.Request(buffer), fd >= 0 else {
                if fd >= 0 { close(fd) }
                return 2  // not a request of ours: nothing more is read from this channel
            }
            _ = photopick_worker_limit_cpu(UInt32(request.cpuSeconds))
            var reply: DecodeMessages.Reply
            var pixels: Int32 = -1
            do {
                let file = try OpenFile(adopting: fd)
                var bounded = decoder
                bounded.maximumPixels = request.maximumPixels
                switch bounded.decode(file, fittingIn: request.box) {
                case .success(let decoded):
                    (reply, pixels) = Self.reply(decoded)
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
            let sent = photopick_channel_send(channel, bytes, bytes.count, pixels)
            if pixels >= 0 { close(pixels) }
            if sent != 0 { return 0 }  // the window went away meanwhile
        }
    }

    /// The decoded picture in a sealed memory file, and what describes it.
    private static func reply(_ decoded: ImageDecoder.Decoded) -> (DecodeMessages.Reply, Int32) {
        let pixbuf = decoded.pixbuf.pointer
        let length = Int(gdk_pixbuf_get_byte_length(pixbuf))
        let fd = photopick_pixels_file()
        guard fd >= 0, let data = gdk_pixbuf_read_pixels(pixbuf) else {
            if fd >= 0 { close(fd) }
            return (DecodeMessages.Reply(outcome: .temporary, message: "no memory file for the pixels: \(errorDescription(errno))"), -1)
        }
        var written = 0
        while written < length {
            let count = write(fd, data + written, length - written)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                close(fd)
                return (DecodeMessages.Reply(outcome: .temporary, message: "cannot write the pixels: \(errorDescription(errno))"), -1)
            }
            written += count
        }
        _ = photopick_seal_pixels(fd)
        var reply = DecodeMessages.Reply(outcome: .decoded)
        reply.width = Int(gdk_pixbuf_get_width(pixbuf))
        reply.height = Int(gdk_pixbuf_get_height(pixbuf))
        reply.rowstride = Int(gdk_pixbuf_get_rowstride(pixbuf))
        reply.hasAlpha = gdk_pixbuf_get_has_alpha(pixbuf) != 0
        reply.imageWidth = decoded.imageWidth
        reply.imageHeight = decoded.imageHeight
        return (reply, fd)
    }
}
