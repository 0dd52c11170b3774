// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import Thumbnails

/// Why a cell shows no picture, in a person's words: on the cell, in its accessible name, and
/// in the toast that refuses to pick it.
struct CellProblem: Equatable {
    let icon: String
    /// Short, on the cell: "Damaged file".
    let title: String
    /// A sentence for the toast: why it cannot be picked.
    let explanation: String

    // Computed, not stored: the words follow the language in use when they are shown.
    static var damaged: CellProblem {
        CellProblem(icon: "image-missing-symbolic", title: i18n("Damaged file"), explanation: i18n("This file is damaged and cannot be shown"))
    }
    static var unreadable: CellProblem {
        CellProblem(icon: "dialog-warning-symbolic", title: i18n("Cannot be read"), explanation: i18n("This file cannot be read"))
    }
    static var tooLarge: CellProblem {
        CellProblem(icon: "image-missing-symbolic", title: i18n("Too large to show"), explanation: i18n("This image is too large to show"))
    }
    /// The photo index could not give the file's row (the reason goes to the tooltip and to
    /// standard error).
    static var indexUnreadable: CellProblem {
        CellProblem(icon: "dialog-warning-symbolic", title: i18n("Cannot be read"), explanation: i18n("The photo index cannot be read"))
    }
    static var gone: CellProblem {
        CellProblem(icon: "image-missing-symbolic", title: i18n("File is gone"), explanation: i18n("This file is no longer there"))
    }

    /// Nil for failures that say nothing about the file (cancelled, or of the moment: a busy
    /// thumbnailer, no room for a temporary file), which may work next time.
    init?(_ failure: ThumbnailFailure) {
        switch failure {
        case .undecodable, .knownFailure, .thumbnailerFailed: self = .damaged
        case .unreadable: self = .unreadable
        case .tooLarge: self = .tooLarge
        case .vanished: self = .gone
        case .temporary, .cancelled: return nil
        }
    }

    private init(icon: String, title: String, explanation: String) {
        self.icon = icon
        self.title = title
        self.explanation = explanation
    }
}
