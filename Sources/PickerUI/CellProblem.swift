import Thumbnails

/// Why a cell shows no picture, in a person's words: on the cell, in its accessible name, and
/// in the toast that refuses to pick it.
struct CellProblem: Equatable {
    let icon: String
    /// Short, on the cell: "Damaged file".
    let title: String
    /// A sentence for the toast: why it cannot be picked.
    let explanation: String

    static let damaged = CellProblem(icon: "image-missing-symbolic", title: "Damaged file",
                                     explanation: "This file is damaged and cannot be shown")
    static let unreadable = CellProblem(icon: "dialog-warning-symbolic", title: "Cannot be read",
                                        explanation: "This file cannot be read")
    static let tooLarge = CellProblem(icon: "image-missing-symbolic", title: "Too large to show",
                                      explanation: "This image is too large to show")
    static let gone = CellProblem(icon: "image-missing-symbolic", title: "File is gone",
                                  explanation: "This file is no longer there")

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
