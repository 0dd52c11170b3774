// SPDX-License-Identifier: GPL-3.0-or-later
import XCTest
@testable import PickerUI

/// The picker's style sheet as installed: its rules scoped under the picker so that a host's
/// widgets keep their look, its colours its own names, its comments gone.
final class StyleSheetTests: XCTestCase {
    func testRulesAreScopedUnderThePickerAndItsPartsAndCommentsGo() {
        let css = """
        /* a comment, { with a brace } */
        .cell, label.count { color: @window_fg_color; }
        /* unrelated */ @keyframes shake { from { margin: 0; } to { margin: 2px; } }
        grid > .cell:hover { opacity: 0.5; }
        """
        let scoped = Style.scoped(css, under: ["photopick-picker", ".photopick-part"])
        XCTAssertEqual(scoped.split(separator: "\n").map(String.init), [
            "photopick-picker .cell, photopick-picker label.count, .photopick-part .cell, .photopick-part label.count, .photopick-part.cell { color: @window_fg_color; }",
            "@keyframes shake { from { margin: 0; } to { margin: 2px; } }",
            "photopick-picker grid > .cell:hover, .photopick-part grid > .cell:hover { opacity: 0.5; }",
        ])
    }

    func testTheSheetNamesItsOwnColoursAndHoldsNoComment() {
        for sheet in [Style.adwaitaSheet, Style.plainSheet] {
            XCTAssertFalse(sheet.contains("/*"))
            let lines = sheet.split(separator: "\n")
            // (The colours are defined once, at the top; the rules use the picker's names.)
            XCTAssertEqual(lines.filter { $0.contains("window_fg_color") && !$0.contains("photopick_window_fg_color") }, [])
            XCTAssertTrue(lines.contains { $0.hasPrefix("photopick-picker ") && $0.contains("@photopick_window_fg_color") })
            // Every rule starts scoped, or is an at-rule, or is inside one (indented).
            XCTAssertEqual(lines.filter { line in
                !line.hasPrefix("@") && !line.hasPrefix("photopick-picker ") && !line.hasPrefix(" ") && line != "}"
            }, [], "every rule is the picker's")
        }
        XCTAssertTrue(Style.adwaitaSheet.contains("@define-color photopick_window_fg_color @window_fg_color;"))
        XCTAssertTrue(Style.plainSheet.contains("@define-color photopick_window_fg_color @theme_fg_color;"))
        XCTAssertEqual(Style.replacingEvery("@a", with: "@b_a", in: "x @a @ab @"), "x @b_a @b_ab @")
        XCTAssertEqual(Style.withoutComments("a/* b */c/* unclosed"), "ac/* unclosed")
    }
}
