// SPDX-License-Identifier: LGPL-2.1-or-later
import GObjectSupport
import GTKSupport
import PickerModel

/// Why a cell shows no picture, in a person's words: on the cell, in its accessible name, and
/// in the toast that refuses to pick it.
struct CellProblem: Equatable {
    let icon: String
    /// Short, on the cell: "Damaged file".
    let title: String
    /// A sentence for the toast: why it cannot be picked.
    let explanation: String

    // Computed, not stored: the words follow the language in use when they are shown.
    /// The photo index could not give the file's row (the reason goes to the tooltip and to
    /// standard error).
    static var indexUnreadable: CellProblem {
        CellProblem(icon: "dialog-warning-symbolic", title: i18n("Cannot be read"), explanation: i18n("The photo index cannot be read"))
    }

    /// A file's own problem (PickerController decides which failures are), as the cell says it.
    init(_ problem: FileProblem) {
        switch problem {
        case .damaged: self.init(icon: "image-missing-symbolic", title: i18n("Damaged file"), explanation: problem.explanation)
        case .unreadable: self.init(icon: "dialog-warning-symbolic", title: i18n("Cannot be read"), explanation: problem.explanation)
        case .tooLarge: self.init(icon: "image-missing-symbolic", title: i18n("Too large to show"), explanation: problem.explanation)
        case .gone: self.init(icon: "image-missing-symbolic", title: i18n("File is gone"), explanation: problem.explanation)
        }
    }

    private init(icon: String, title: String, explanation: String) {
        self.icon = icon
        self.title = title
        self.explanation = explanation
    }
}
