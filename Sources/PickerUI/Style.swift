import CGtk

/// The picker's CSS: rounded thumbnails, the selection ring and numbered badge, the strip.
enum Style {
    nonisolated(unsafe) private static var installed = false

    static let css = """
    @define-color pick_accent #3584e4;
    .photo-grid { padding: 4px; }
    .photo-grid > child { padding: 2px; }
    .cell { border-radius: 8px; }
    .cell .thumbnail { border-radius: 8px; background-color: alpha(currentColor, 0.08); }
    .cell.picked .thumbnail { opacity: 0.78; }
    .cell.picked { outline: 3px solid @pick_accent; outline-offset: -3px; }
    @keyframes refused-shake {
      0% { margin-left: 0; margin-right: 0; }
      20% { margin-left: 10px; margin-right: -10px; }
      40% { margin-left: -8px; margin-right: 8px; }
      60% { margin-left: 6px; margin-right: -6px; }
      80% { margin-left: -3px; margin-right: 3px; }
      100% { margin-left: 0; margin-right: 0; }
    }
    .cell.refused { animation: refused-shake 0.4s ease-out; }
    .cell.camera .thumbnail { background-color: alpha(currentColor, 0.16); }
    .pick-badge {
      min-width: 22px; min-height: 22px; margin: 6px; padding: 0 4px;
      border-radius: 999px; background-color: @pick_accent; color: white;
      font-weight: bold; font-size: 0.9em; border: 2px solid white;
    }
    .pick-badge.small { min-width: 16px; min-height: 16px; margin: 2px; font-size: 0.7em; border-width: 1px; }
    .duration {
      margin: 6px; padding: 1px 5px; border-radius: 6px; color: white;
      background-color: rgba(0, 0, 0, 0.55); font-size: 0.8em; font-weight: bold;
    }
    .favorite { margin: 6px; color: white; -gtk-icon-shadow: 0 1px 2px rgba(0, 0, 0, 0.6); }
    .status-icon { opacity: 0.6; }
    .picked-strip { padding: 6px 8px; }
    .picked-item { padding: 0; border-radius: 6px; }
    .picked-item picture { border-radius: 6px; }
    .toast { padding: 8px 16px; border-radius: 999px; background-color: rgba(0, 0, 0, 0.75); color: white; }
    .preview { background-color: @theme_bg_color; padding: 8px; }
    .preview-bar { padding: 4px; }
    .album-row { padding: 4px 2px; }
    .album-cover { border-radius: 6px; background-color: alpha(currentColor, 0.1); }
    .empty-state { opacity: 0.7; font-size: 1.3em; padding: 24px; }
    .index-progress { padding: 6px 12px; font-size: 0.9em; opacity: 0.8; }
    """

    static func install() {
        guard !installed, let display = gdk_display_get_default() else { return }
        installed = true
        let provider = gtk_css_provider_new()!
        gtk_css_provider_load_from_data(provider, css, -1)
        gtk_style_context_add_provider_for_display(display, OpaquePointer(provider), guint(GTK_STYLE_PROVIDER_PRIORITY_APPLICATION))
    }
}
