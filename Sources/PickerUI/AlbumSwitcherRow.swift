// SPDX-License-Identifier: LGPL-2.1-or-later
import CGtk
import GObjectSupport
import GTKSupport
import PhotoLibrary
import Thumbnails

/// One album in the switcher's list: its cover (the newest photo), its name in full (a folder's
/// own name as the title, the folders above it as a dim subtitle), its count, and a check mark
/// on the open album.
@MainActor
final class AlbumSwitcherRow {
    enum Section: Equatable { case albums, folders }

    /// The GtkListBoxRow.
    let widget: UnsafeMutablePointer<GtkWidget>
    let cover: UnsafeMutablePointer<GtkWidget>
    let title: UnsafeMutablePointer<GtkWidget>
    let subtitle: UnsafeMutablePointer<GtkWidget>
    let count: UnsafeMutablePointer<GtkWidget>
    let check: UnsafeMutablePointer<GtkWidget>
    private(set) var summary: AlbumSummary
    private(set) var isCurrent = false
    /// The name in lower case, for the search.
    private var searchKey = ""
    /// The cover is asked for only while the row is on screen; a loaded one stays.
    private(set) var request: ThumbnailRequest?
    /// The album's newest files, newest first, looked up once per binding; the first that makes
    /// a thumbnail is the cover (nil: not looked up yet).
    private var coverCandidates: [FilePath]?
    private(set) var hasCover = false

    static let coverSide = 40

    var section: Section { if case .smart = summary.album { .albums } else { .folders } }

    init(_ summary: AlbumSummary) {
        self.summary = summary
        widget = gtk_list_box_row_new()
        style(widget, "album-switcher-row")
        let box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12)!
        // An image at a fixed pixel size: a picture would grow with a row whose title wraps.
        cover = gtk_image_new()
        gtk_image_set_pixel_size(cover.opaque, Int32(Self.coverSide))
        gtk_widget_set_valign(cover, GTK_ALIGN_CENTER)
        gtk_widget_set_overflow(cover, GTK_OVERFLOW_HIDDEN)
        style(cover, "album-switcher-cover")
        title = gtk_label_new(nil)
        // Long names wrap instead of losing their middle: the name is what tells folders apart.
        gtk_label_set_wrap(title.opaque, 1)
        gtk_label_set_wrap_mode(title.opaque, PANGO_WRAP_WORD_CHAR)
        gtk_label_set_max_width_chars(title.opaque, 30)
        gtk_label_set_xalign(title.opaque, 0)
        subtitle = gtk_label_new(nil)
        // The parent path: its end (the nearest folders) says most.
        gtk_label_set_ellipsize(subtitle.opaque, PANGO_ELLIPSIZE_START)
        gtk_label_set_max_width_chars(subtitle.opaque, 30)
        gtk_label_set_xalign(subtitle.opaque, 0)
        style(subtitle, "dim-label", "caption")
        let names = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2)!
        gtk_widget_set_hexpand(names, 1)
        gtk_widget_set_valign(names, GTK_ALIGN_CENTER)
        gtk_box_append(names.cast(), title)
        gtk_box_append(names.cast(), subtitle)
        count = gtk_label_new(nil)
        style(count, "dim-label", "numeric")
        check = gtk_image_new_from_icon_name("object-select-symbolic")
        // Hidden by opacity, so every row keeps the same columns.
        gtk_widget_set_opacity(check, 0)
        gtk_box_append(box.cast(), cover)
        gtk_box_append(box.cast(), names)
        gtk_box_append(box.cast(), count)
        gtk_box_append(box.cast(), check)
        gtk_list_box_row_set_child(widget.cast(), box)
        bind(summary, force: true)
    }

    /// Splits a folder album's name ("Trips/2019/Zanzibar") into its own name and the path above.
    static func titleAndSubtitle(of summary: AlbumSummary) -> (title: String, subtitle: String?) {
        guard case .folder = summary.album, let slash = summary.name.lastIndex(of: "/") else { return (summary.displayName, nil) }
        return (String(summary.name[summary.name.index(after: slash)...]), String(summary.name[..<slash]))
    }

    /// Shows another album (or new counts) in this row; the cover is looked up again when it shows.
    func bind(_ summary: AlbumSummary, force: Bool = false) {
        guard force || summary != self.summary else { return }
        self.summary = summary
        let (titleText, subtitleText) = Self.titleAndSubtitle(of: summary)
        gtk_label_set_text(title.opaque, titleText)
        gtk_label_set_text(subtitle.opaque, subtitleText ?? "")
        gtk_widget_set_visible(subtitle, subtitleText == nil ? 0 : 1)
        gtk_label_set_text(count.opaque, Localization.number(summary.count))
        // The English name too, for a smart album: "Videos" finds "Видео".
        searchKey = summary.displayName == summary.name ? summary.name.lowercased() : (summary.displayName + "\n" + summary.name).lowercased()
        photopick_accessible_set_label(widget, ni18n("{name}, {count} item", "{name}, {count} items", summary.count, ["name": summary.displayName]))
        cancelCover()
        coverCandidates = nil
        hasCover = false
        gtk_image_clear(cover.opaque)
    }

    /// Whether the row stays in the list for a search (`query` in lower case; empty matches all).
    func matches(_ query: String) -> Bool { query.isEmpty || searchKey.contains(query) }

    /// How well the row matches `query` (lower case), best first: 0 its whole name (or the last
    /// component of a folder's), 1 a whole word of it, 2 the start of a word, 3 inside a word
    /// ("mate" is a word of the MATE folder, but inside "Animated"); nil for no match.
    func matchRank(_ query: String) -> Int? {
        guard !query.isEmpty else { return 0 }
        guard searchKey.contains(query) else { return nil }
        var best = 3
        for name in searchKey.split(separator: "\n") {
            let last = name.split(separator: "/").last.map(String.init) ?? String(name)
            if name == query || last == query { return 0 }
            let words = name.split { !$0.isLetter && !$0.isNumber }
            if words.contains(where: { $0 == query }) { best = min(best, 1) }
            else if words.contains(where: { $0.hasPrefix(query) }) || name.hasPrefix(query) { best = min(best, 2) }
        }
        return best
    }

    /// Marks the open album: a check mark, and for screen readers the selected state (GtkListBoxRow
    /// starts with it false) and the description "current album".
    func setCurrent(_ current: Bool) {
        guard current != isCurrent else { return }
        isCurrent = current
        gtk_widget_set_opacity(check, current ? 1 : 0)
        let accessible = OpaquePointer(widget)
        var state = GTK_ACCESSIBLE_STATE_SELECTED
        var value = GValue()
        // SELECTED may be undefined, so GTK reads it as an int, not a gboolean.
        g_value_init(&value, GType(6 << 2))  // G_TYPE_INT
        g_value_set_int(&value, current ? 1 : 0)
        gtk_accessible_update_state_value(accessible, 1, &state, &value)
        g_value_unset(&value)
        if current {
            var property = GTK_ACCESSIBLE_PROPERTY_DESCRIPTION
            value = GValue()
            g_value_init(&value, GType(16 << 2))  // G_TYPE_STRING
            g_value_set_string(&value, "current album")
            gtk_accessible_update_property_value(accessible, 1, &property, &value)
            g_value_unset(&value)
        } else {
            gtk_accessible_reset_property(accessible, GTK_ACCESSIBLE_PROPERTY_DESCRIPTION)
        }
    }

    /// Asks for the cover (the album's newest photo), unless it is loaded or on its way.
    func loadCover(lookingUp lookup: @escaping (Album) -> [FilePath], loader: ThumbnailLoader) {
        guard !hasCover, request == nil else { return }
        // Looked up once per binding: an album's newest photos are one short query.
        if coverCandidates == nil { coverCandidates = lookup(summary.album) }
        guard let path = coverCandidates?.first else { return }
        let side = Self.coverSide * Int(max(1, gtk_widget_get_scale_factor(widget)))
        request = loader.request(path, flavor: .normal) { [weak self] result in
            guard let self else { return }
            self.request = nil
            guard case .success(let thumbnail) = result, let square = thumbnail.pixbuf?.centredSquare(side: side),
                  let texture = gdk_texture_new_for_pixbuf(square.pointer) else {
                // Damaged (or a video with no thumbnailer): the next newest is the cover.
                if !(self.coverCandidates?.isEmpty ?? true) { self.coverCandidates?.removeFirst() }
                self.loadCover(lookingUp: lookup, loader: loader)
                return
            }
            gtk_image_set_from_paintable(self.cover.opaque, texture)
            g_object_unref(UnsafeMutableRawPointer(texture))
            self.hasCover = true
        }
    }

    /// The row left the screen (scrolled away, filtered out, the popover closed).
    func cancelCover() {
        request?.cancel()
        request = nil
    }
}
