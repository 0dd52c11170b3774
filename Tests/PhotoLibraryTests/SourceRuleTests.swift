// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// Rules of the sources that no behaviour test catches reliably.
final class SourceRuleTests: XCTestCase {
    /// No `isolated deinit`: in a host that is not a Swift program (a C or Python app), an object
    /// let go of inside a GLib callback (a widget's dispose, a signal) finds no Swift executor
    /// current, and the runtime does not run its isolated deinit at once but queues it; it ran on
    /// a libdispatch thread, beside the GTK thread, cancelling subscriptions and releasing GTK
    /// objects there. Two hundred pickers made and destroyed in a Python host corrupted the heap
    /// in 1 run of 4 to 8 (free(): corrupted unsorted chunks, GDK's X error trap assertion). A
    /// main-actor object's deinit is a plain one with `MainActor.assumeIsolated`: it runs at once
    /// on the GTK thread, and traps anywhere else. (In this test process the runtime sees the
    /// main actor current and runs an isolated deinit inline: a behaviour test passes either way.)
    func testNoDeinitIsIsolated() throws {
        let sources = TestSupport.packageRoot.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        var found: [String] = []
        var read = 0
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            read += 1
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                let code = line.split(separator: "//", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
                if code.contains("isolated deinit") { found.append("Sources/\(relative):\(index + 1)") }
            }
        }
        XCTAssertGreaterThan(read, 150)
        XCTAssertEqual(found, [], "a deinit run later on another thread")
    }

    /// No translated sentence carries a raw error (issue 38, point 15): `"\(error)"` inside an
    /// `i18n` call put a Swift value's description ("SQLiteError(code: 13, …)", "it has not
    /// answered for 3 s") in the person's language's sentence, untranslated. The person gets a
    /// sentence; the error goes to the developer's log (DeveloperLog).
    func testNoTranslatedSentenceCarriesARawError() throws {
        let sources = TestSupport.packageRoot.appendingPathComponent("Sources")
        let enumerator = FileManager.default.enumerator(atPath: sources.path)
        var found: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            let text = try String(contentsOf: sources.appendingPathComponent(relative), encoding: .utf8)
            for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                guard let call = line.range(of: "i18n(") else { continue }
                if line[call.upperBound...].contains("\\(error") { found.append("Sources/\(relative):\(index + 1)") }
            }
        }
        XCTAssertEqual(found, [], "a raw error in a translated sentence")
    }
}
