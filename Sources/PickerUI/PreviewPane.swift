// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import Glibc
import PickerModel
import PhotoLibrary
import Thumbnails

/// A large view of one photo or video over the grid, with a caption at the bottom. Its two
/// buttons, Back and the pick toggle, belong in the window's header bar (Picker hands them to
/// the host and shows them only while the preview does). Videos play muted in a GtkVideo; a
/// video that cannot play shows its thumbnail and a line saying why.
///
/// A widget of its own type, `PhotopickPreview` (CSS node `photopick-preview`, style class
/// `.preview`), laid out as an overlay; the widget owns this object.
@MainActor
final class PreviewPane: LaidOutAsOverlay, SwiftWidget {
    static let widgetType = WidgetType("PhotopickPreview", cssName: "photopick-preview", sizing: true)

    let widget: UnsafeMutablePointer<GtkWidget>
    /// "Back to the grid": a header bar button, hidden unless the preview shows.
    @Owned var backButton: UnsafeMutablePointer<GtkWidget>
    /// "Pick" / "Picked 2": a GtkToggleButton for the header bar, hidden unless the preview shows.
    @Owned var pickButton: UnsafeMutablePointer<GtkWidget>
    private let picture: UnsafeMutablePointer<GtkWidget>
    private let content: UnsafeMutablePointer<GtkWidget>
    /// The video player, made when the first video plays: GtkVideo's controls (a scale, a
    /// volume button and its popover) were most of the preview's making, in the host's turn
    /// that made the picker (issue 38, point 6).
    private var video: UnsafeMutablePointer<GtkWidget>?
    private let caption: UnsafeMutablePointer<GtkWidget>
    private let problem: UnsafeMutablePointer<GtkWidget>
    private var request: ThumbnailRequest?
    private var observation: Subscription?
    private weak var selection: SelectionStore?
    private var describe: ((Int?) -> String)?
    private(set) var position: Int?
    private(set) var assetID: Int64?
    /// The open video's stream (our own reference), and its notify::error handler.
    var stream: UnsafeMutablePointer<GtkMediaStream>? { streamReference?.pointer(as: GtkMediaStream.self) }
    private var streamReference: GObjectRef?
    private var errorHandler: gulong = 0

    var onToggle: (() -> Void)?
    var onClose: (() -> Void)?

    var isVisible: Bool { gtk_widget_get_visible(widget) != 0 }
    /// Why the open video cannot play, when it cannot.
    var problemText: String? {
        gtk_widget_get_visible(problem) != 0 ? gtk_label_get_text(problem.opaque).map { String(cString: $0) } : nil
    }

    /// The caption: "Photo, 12 March 2024, picked 2 of 3".
    var captionText: String { gtk_label_get_text(caption.opaque).map { String(cString: $0) } ?? "" }

    init() {
        widget = Self.widgetType.make()
        style(widget, "preview")
        gtk_widget_set_visible(widget, 0)
        // Takes the focus when the host did not put the header buttons in a window.
        gtk_widget_set_focusable(widget, 1)
        content = gtk_box_new(GTK_ORIENTATION_VERTICAL, 0)!
        picture = gtk_picture_new()
        gtk_picture_set_content_fit(picture.opaque, GTK_CONTENT_FIT_CONTAIN)
        gtk_picture_set_can_shrink(picture.opaque, 1)
        gtk_widget_set_vexpand(picture, 1)
        gtk_box_append(content.cast(), picture)
        gtk_widget_set_parent(content, widget)

        caption = gtk_label_new(nil)
        style(caption, "preview-caption")
        place(caption, over: widget, GTK_ALIGN_CENTER, GTK_ALIGN_END)
        problem = gtk_label_new(nil)
        style(problem, "preview-problem")
        gtk_label_set_wrap(problem.opaque, 1)
        gtk_widget_set_visible(problem, 0)
        place(problem, over: widget, GTK_ALIGN_CENTER, GTK_ALIGN_START)

        let backButton: UnsafeMutablePointer<GtkWidget> = gtk_button_new_from_icon_name("go-previous-symbolic")!

        _backButton = Owned(wrappedValue: backButton)
        setTooltip(backButton, i18n("Back to the grid (Escape)"))
        photopick_accessible_set_label(backButton, i18n("Back to the grid"))
        gtk_widget_set_visible(backButton, 0)
        let pickButton: UnsafeMutablePointer<GtkWidget> = gtk_toggle_button_new_with_label(i18n("Pick"))!
        _pickButton = Owned(wrappedValue: pickButton)
        setTooltip(pickButton, i18n("Pick or unpick (Space)"))
        gtk_widget_set_visible(pickButton, 0)
        Signal.connect(backButton.raw, "clicked") { [weak self] in self?.onClose?() }
        // "clicked", not "toggled": setting the state from the selection must not pick again.
        Signal.connect(pickButton.raw, "clicked") { [weak self] in
            guard let self else { return }
            self.onToggle?()
            // A refused pick (the maximum) changes nothing: put the button back as it was.
            self.update(number: self.assetID.flatMap { self.selection?.number(of: $0) })
        }
        Self.widgetType.adopt(self, by: widget)
    }

    func widgetDisposed() { cancel() }

    /// Shows `asset` at grid `position`. `describe` gives the caption for the asset's pick number.
    /// - Parameter file: where the asset can be read here: its path, or a remote video's local
    ///   copy once fetched (nil before: a video on another machine is not streamed).
    func show(_ asset: Asset, file: FilePath?, at position: Int, selection: SelectionStore, loader: ThumbnailLoader,
              describe: @escaping (Int?) -> String) {
        self.position = position
        assetID = asset.id
        self.selection = selection
        self.describe = describe
        request?.cancel()
        releaseVideo()
        gtk_picture_set_paintable(picture.opaque, nil)
        // (Else a screen reader hears "GtkPicture".)
        photopick_accessible_set_label(picture, asset.displayName)
        gtk_widget_set_visible(problem, 0)
        update(number: selection.number(of: asset.id))
        observation = selection.observe(asset.id) { [weak self] state in self?.update(number: state.number) }
        // The largest cached flavour, decoded off the main thread: the photo itself, or the
        // poster a video falls back to when it cannot play.
        request = loader.request(asset.path, flavor: .xxLarge) { [weak self] result in
            guard let self, case .success(let thumbnail) = result, let pixbuf = thumbnail.pixbuf,
                  let texture = gdk_texture_new_for_pixbuf(pixbuf.pointer) else { return }
            gtk_picture_set_paintable(self.picture.opaque, texture)
            g_object_unref(UnsafeMutableRawPointer(texture))
        }
        // Visible (mapped) before the video starts: GtkVideo's autoplay acts on a mapped widget.
        gtk_widget_set_visible(widget, 1)
        if asset.kind == .video, let file, !file.isLocationURI {
            play(file)
        } else if asset.kind == .video {
            showPicture()
            gtk_label_set_text(problem.opaque, i18n("This video is on another computer: it plays once picked and fetched"))
            gtk_widget_set_visible(problem, 1)
        } else {
            showPicture()
        }
    }

    /// Stops loading and playing without touching widgets (they may be destroyed).
    func cancel() {
        request?.cancel()
        observation = nil
        if let stream {
            if errorHandler != 0 { g_signal_handler_disconnect(stream.raw, errorHandler) }
            errorHandler = 0
            GStreamerPlayer.stop(stream)
            gtk_media_file_clear(stream.cast())
            streamReference = nil
        }
    }

    func hide() {
        request?.cancel()
        releaseVideo()
        observation = nil
        position = nil
        assetID = nil
        gtk_widget_set_visible(widget, 0)
    }

    // MARK: Video

    /// Opens the file in a stream of our own, muted before GtkVideo gets it: GtkVideo opens a
    /// file only once realized, and muting the GStreamer stream before it is open is lost.
    private func play(_ path: FilePath) {
        let file = (path.bytes + [0]).withUnsafeBufferPointer { g_file_new_for_path(UnsafeRawPointer($0.baseAddress!).assumingMemoryBound(to: CChar.self)) }
        guard let file, let stream = gtk_media_file_new_for_file(file) else {
            if let file { g_object_unref(file.raw) }
            fail("the file cannot be opened")
            return
        }
        g_object_unref(file.raw)
        streamReference = GObjectRef(stream, transfer: .full)
        gtk_media_stream_set_muted(stream, 1)
        // A missing backend fails at once; a broken file or a missing decoder a moment later.
        if let error = gtk_media_stream_get_error(stream) {
            fail(String(cString: error.pointee.message))
            return
        }
        errorHandler = Signal.connect(stream.raw, "notify::error", object: { [weak self] _ in
            // Later, not inside the player's own error emission: failing closes that player.
            MainLoopDispatcher.shared.post {
                guard let self, self.stream == stream, let error = gtk_media_stream_get_error(stream) else { return }
                self.fail(String(cString: error.pointee.message))
            }
        })
        let video = self.video ?? makeVideo()
        gtk_widget_set_visible(picture, 0)
        gtk_widget_set_visible(video, 1)
        gtk_video_set_media_stream(video.opaque, stream)
        gtk_media_stream_play(stream)
        // The video's controls sit at the bottom: the caption goes to the top meanwhile.
        gtk_widget_set_valign(caption, GTK_ALIGN_START)
    }

    private func makeVideo() -> UnsafeMutablePointer<GtkWidget> {
        let video = gtk_video_new()!
        gtk_video_set_autoplay(video.opaque, 1)
        gtk_widget_set_vexpand(video, 1)
        gtk_box_append(content.cast(), video)
        self.video = video
        return video
    }

    /// Shows the thumbnail instead of the video, and why.
    private func fail(_ reason: String) {
        releaseVideo()
        showPicture()
        gtk_label_set_text(problem.opaque, i18n("This video cannot be played: {reason}", ["reason": reason]))
        gtk_widget_set_visible(problem, 1)
    }

    private func showPicture() {
        if let video { gtk_widget_set_visible(video, 0) }
        gtk_widget_set_visible(picture, 1)
        gtk_widget_set_valign(caption, GTK_ALIGN_END)
    }

    /// Stops playback and closes the file now (GtkVideo's controls may keep the stream alive).
    private func releaseVideo() {
        guard let stream else { return }
        if errorHandler != 0 { g_signal_handler_disconnect(stream.raw, errorHandler) }
        errorHandler = 0
        gtk_media_stream_pause(stream)
        if let video { gtk_video_set_media_stream(video.opaque, nil) }
        GStreamerPlayer.stop(stream)
        gtk_media_file_clear(stream.cast())
        streamReference = nil
    }

    // MARK: Picking

    private func update(number: Int?) {
        if let describe { gtk_label_set_text(caption.opaque, describe(number)) }
        gtk_toggle_button_set_active(pickButton.cast(), number == nil ? 0 : 1)
        gtk_button_set_label(pickButton.cast(), number.map { i18n("Picked {number}", ["number": String($0)]) } ?? i18n("Pick"))
        if number == nil {
            gtk_widget_remove_css_class(pickButton, "suggested-action")
        } else {
            gtk_widget_add_css_class(pickButton, "suggested-action")
        }
    }
}

/// GStreamer 1.22's GstPlayer (Debian 12) never frees its signal adapter, which keeps the inner
/// GstPlay and its pipeline alive: after GTK drops the player the file stays open and the
/// pipeline keeps its state. Stopping the player first sends the pipeline to READY, which closes
/// the file. GTK has no API for it: the player is the first field after GtkMediaFile in GTK's
/// GStreamer stream (gtkgstmediafile.c), read only when the stream is of that type and
/// gst_player_stop is already loaded in the process.
private enum GStreamerPlayer {
    typealias Stop = @convention(c) (UnsafeMutableRawPointer) -> Void

    static let stopFunction: Stop? = {
        guard let library = dlopen("libgstplayer-1.0.so.0", RTLD_NOW | RTLD_NOLOAD),
              let symbol = dlsym(library, "gst_player_stop") else { return nil }
        return unsafeBitCast(symbol, to: Stop.self)
    }()

    static func stop(_ stream: UnsafeMutablePointer<GtkMediaStream>) {
        let instance = stream.raw.assumingMemoryBound(to: GTypeInstance.self)
        guard let type = instance.pointee.g_class?.pointee.g_type,
              let name = g_type_name(type), String(cString: name) == "GtkGstMediaFile",
              let stop = stopFunction,
              let player = stream.raw.advanced(by: MemoryLayout<GtkMediaFile>.size).load(as: UnsafeMutableRawPointer?.self)
        else { return }
        stop(player)
    }
}
