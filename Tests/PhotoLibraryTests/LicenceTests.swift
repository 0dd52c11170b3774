// SPDX-License-Identifier: GPL-3.0-or-later
import Foundation
import TestSupport
import XCTest

/// What a developer deciding whether to link libphotopick-1 checks first (issue 38, point 17):
/// the licence texts are there, every source file says its licence, and everything the library
/// is built from is LGPL-2.1-or-later, so that any program may link it.
final class LicenceTests: XCTestCase {
    /// The targets libphotopick-1 (and the workers it starts) is built from: Package.swift's
    /// PhotopickLibrary and photopick-worker with what they depend on.
    private let libraryTargets: Set<String> = [
        "Basics", "CDecodeChannel", "CExiv2Guard", "CJPEGDC", "CGExiv2", "CGLib", "CGdkPixbuf", "CGtk", "CPhotopick",
        "CSQLite", "CV4L", "Camera", "GObjectSupport", "GTKSupport", "PhotoLibrary", "PickerModel", "PickerUI", "PhotopickLibrary",
        "Thumbnails", "photopick-worker",
    ]

    func testTheLibraryIsLGPLAndEverySourceFileSaysItsLicence() throws {
        let root = TestSupport.packageRoot
        for (file, start) in [("COPYING", "GNU GENERAL PUBLIC LICENSE"), ("COPYING.LIB", "GNU LESSER GENERAL PUBLIC LICENSE")] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            XCTAssertTrue(text.contains(start), "\(file) holds the licence's text")
        }
        let sources = root.appendingPathComponent("Sources")
        let targets = try FileManager.default.contentsOfDirectory(atPath: sources.path)
        XCTAssertTrue(libraryTargets.isSubset(of: Set(targets)), "every library target is in Sources: \(libraryTargets.subtracting(targets))")
        var checked = 0
        for target in targets {
            let wanted = libraryTargets.contains(target) ? "LGPL-2.1-or-later" : "GPL-3.0-or-later"
            let enumerator = FileManager.default.enumerator(atPath: sources.appendingPathComponent(target).path)
            while let relative = enumerator?.nextObject() as? String {
                guard ["swift", "c", "h", "cpp", "modulemap"].contains((relative as NSString).pathExtension) else { continue }
                let text = try String(contentsOf: sources.appendingPathComponent(target).appendingPathComponent(relative), encoding: .utf8)
                let line = text.split(separator: "\n").prefix(12).first { $0.contains("SPDX-License-Identifier:") }
                XCTAssertEqual(line.map { String($0.split(separator: ":").last!).trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "*/"))) },
                               wanted, "Sources/\(target)/\(relative) says its licence")
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 150)
        let pc = try String(contentsOf: root.appendingPathComponent("data/photopick-1.pc.in"), encoding: .utf8)
        XCTAssertTrue(pc.contains("License: LGPL-2.1-or-later"), "the pkg-config file says the library's licence")
        let metainfo = try String(contentsOf: root.appendingPathComponent("data/io.github.photopick.Photopick.metainfo.xml"), encoding: .utf8)
        XCTAssertTrue(metainfo.contains("<project_license>GPL-3.0-or-later AND LGPL-2.1-or-later</project_license>"))
    }
}
