// SPDX-License-Identifier: GPL-3.0-or-later
import CGLib
import Foundation
import GObjectSupport
import XCTest

/// GObjectSupport on plain GLib and GIO objects (no display): what handlers, sources and
/// references keep alive, and for how long. Synchronous XCTest methods run on the process's first
/// thread, which is the GTK thread for `assertOnGTKThread`.
// XCTest calls the test methods, setUp and tearDown on the main thread; they enter the main
// actor there (assumeIsolated), and the case object never leaves it.
@MainActor
final class GObjectSupportTests: XCTestCase, @unchecked Sendable {
    /// Something a closure captures, to watch its lifetime through a weak reference.
    final class Token {
        var count = 0
    }

    /// Counts finalizations of GObjects through weak reference notifies.
    final class Finalizations {
        var count = 0

        func watch(_ object: UnsafeMutableRawPointer) {
            g_object_weak_ref(object.assumingMemoryBound(to: GObject.self), { data, _ in
                Unmanaged<Finalizations>.fromOpaque(data!).takeUnretainedValue().count += 1
            }, Unmanaged.passUnretained(self).toOpaque())
        }
    }

    private func newObject() -> UnsafeMutableRawPointer {
        UnsafeMutableRawPointer(g_object_new_with_properties(g_object_get_type(), 0, nil, nil)!)
    }

    /// Runs the default main context for `seconds` (sources due meanwhile fire).
    private func pump(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            // One dispatch at a time: an idle source that repeats is always ready.
            if g_main_context_iteration(nil, 0) == 0 { usleep(1_000) }
        }
    }

    // MARK: Signals

    /// Values go into a message once: a file named like a placeholder keeps its name, and a
    /// placeholder given no value is left for the reader to see.
    nonisolated func testMessageValuesAreFilledInOnePass() {
        XCTAssertEqual(i18n("Cannot open {folder}: {reason}", ["folder": "/photos/{reason}", "reason": "gone"]),
                       "Cannot open /photos/{reason}: gone")
        XCTAssertEqual(ni18n("{count} photo copied to {folder}", "{count} photos copied to {folder}", 3, ["folder": "{count} trip"]),
                       "3 photos copied to {count} trip")
        XCTAssertEqual(i18n("Album: {name}", [:]), "Album: {name}")
    }

    nonisolated func testAHandlersClosureIsReleasedWhenTheObjectDies() {
        MainActor.assumeIsolated {
            let action = g_simple_action_new("probe", nil)!
            weak var weakToken: Token?
            do {
                let token = Token()
                weakToken = token
                Signal.connect(UnsafeMutableRawPointer(action), "notify::enabled", object: { _ in token.count += 1 })
            }
            g_simple_action_set_enabled(action, 0)
            XCTAssertEqual(weakToken?.count, 1, "the handler ran, and the connection keeps its closure")
            g_object_unref(UnsafeMutableRawPointer(action))
            XCTAssertNil(weakToken, "finalizing the object released the handler's closure")
        }
    }

    nonisolated func testADisconnectedHandlerIsReleasedAndNeverRuns() {
        MainActor.assumeIsolated {
            let action = g_simple_action_new("probe", nil)!
            defer { g_object_unref(UnsafeMutableRawPointer(action)) }
            weak var weakToken: Token?
            var handler: gulong = 0
            do {
                let token = Token()
                weakToken = token
                handler = Signal.connect(UnsafeMutableRawPointer(action), "notify::enabled", object: { _ in token.count += 1 })
            }
            XCTAssertNotNil(weakToken)
            g_signal_handler_disconnect(UnsafeMutableRawPointer(action), handler)
            XCTAssertNil(weakToken, "disconnecting released the closure")
            g_simple_action_set_enabled(action, 0)  // would crash on a dangling box
        }
    }

    nonisolated func testItemsChangedHandlerGetsTheRange() {
        MainActor.assumeIsolated {
            let store = g_list_store_new(g_object_get_type())!
            defer { g_object_unref(UnsafeMutableRawPointer(store)) }
            var ranges: [[Int]] = []
            Signal.connect(UnsafeMutableRawPointer(store), "items-changed", itemsChanged: { ranges.append([$0, $1, $2]) })
            let item = newObject()
            g_list_store_append(store, item)
            g_list_store_append(store, item)
            g_list_store_remove(store, 0)
            g_object_unref(item)
            XCTAssertEqual(ranges, [[0, 0, 1], [1, 0, 1], [0, 1, 0]])
        }
    }

    nonisolated func testAnAttachedObjectLivesAsLongAsTheGObject() {
        MainActor.assumeIsolated {
            let object = newObject()
            weak var weakToken: Token?
            do {
                let token = Token()
                weakToken = token
                attach(token, to: object, key: "probe")
            }
            XCTAssertTrue(attached(Token.self, on: object, key: "probe") === weakToken)
            XCTAssertNil(attached(Finalizations.self, on: object, key: "probe"), "another type is not found")
            XCTAssertNil(attached(Token.self, on: object, key: "other"))
            g_object_unref(object)
            XCTAssertNil(weakToken)
        }
    }

    // MARK: Main-loop sources

    @MainActor
    final class Owner {
        let source = MainLoopSource()
    }

    nonisolated func testAScheduledSourceNeverRunsAfterItsOwnerIsReleased() {
        MainActor.assumeIsolated {
            let ran = Token(), control = Token()
            weak var weakCaptured: Token?
            var owner: Owner? = Owner()
            let kept = Owner()
            do {
                let captured = Token()  // held by the closure alone
                weakCaptured = captured
                owner?.source.schedule(after: 1) { ran.count += 1; captured.count += 1 }
                kept.source.schedule(after: 1) { control.count += 1 }
            }
            XCTAssertEqual(owner?.source.isPending, true)
            XCTAssertNotNil(weakCaptured)
            owner = nil
            XCTAssertNil(weakCaptured, "the removed source released its closure at once")
            pump(0.05)
            XCTAssertEqual(control.count, 1, "a source whose owner lives ran in the same time")
            XCTAssertEqual(ran.count, 0, "the released owner's source never ran")
            XCTAssertFalse(kept.source.isPending)
        }
    }

    nonisolated func testAnIdleSourceRunsOnceAndReleasesItsClosure() {
        MainActor.assumeIsolated {
            let owner = Owner()
            weak var weakToken: Token?
            do {
                let token = Token()
                weakToken = token
                owner.source.schedule { token.count += 1 }
            }
            XCTAssertNotNil(weakToken, "the pending source keeps its closure")
            pump(0.02)
            XCTAssertNil(weakToken, "after its run the closure is released")
            XCTAssertFalse(owner.source.isPending)
        }
    }

    nonisolated func testScheduleReplacesAndScheduleUnlessPendingCoalesces() {
        MainActor.assumeIsolated {
            let owner = Owner()
            var runs: [String] = []
            owner.source.schedule { runs.append("first") }
            owner.source.schedule { runs.append("second") }
            owner.source.scheduleUnlessPending { runs.append("third") }
            pump(0.02)
            XCTAssertEqual(runs, ["second"])
            owner.source.cancel()
            owner.source.scheduleUnlessPending { runs.append("fourth") }
            owner.source.cancel()
            pump(0.02)
            XCTAssertEqual(runs, ["second"], "a cancelled source does not run")
        }
    }

    nonisolated func testAOneShotMayScheduleTheNextRunFromItsBody() {
        MainActor.assumeIsolated {
            let owner = Owner()
            var runs = 0
            @MainActor func again() {
                runs += 1
                if runs < 3 { owner.source.scheduleUnlessPending(again) }
            }
            owner.source.schedule(again)
            pump(0.05)
            XCTAssertEqual(runs, 3)
            XCTAssertFalse(owner.source.isPending)
        }
    }

    nonisolated func testARepeatingSourceRunsWhileItsBodySaysSo() {
        MainActor.assumeIsolated {
            let owner = Owner()
            var runs = 0
            owner.source.repeating(every: 1) {
                runs += 1
                return runs < 3
            }
            pump(0.05)
            XCTAssertEqual(runs, 3)
            XCTAssertFalse(owner.source.isPending)

            // Dropped while repeating: it stops.
            var repeatingOwner: Owner? = Owner()
            var counted = 0
            repeatingOwner?.source.repeating { counted += 1; return true }
            pump(0.01)
            XCTAssertGreaterThan(counted, 0)
            repeatingOwner = nil
            let stopped = counted
            pump(0.01)
            XCTAssertEqual(counted, stopped)
        }
    }

    // MARK: Owning references

    nonisolated func testFullTransferTakesTheReferenceAndUnrefsOnce() {
        MainActor.assumeIsolated {
            let finalizations = Finalizations()
            let object = newObject()
            finalizations.watch(object)
            var reference: GObjectRef? = GObjectRef(object, transfer: .full)
            XCTAssertEqual(photopick_object_ref_count(object), 1)
            XCTAssertEqual(reference?.pointer, object)
            reference = nil
            XCTAssertEqual(finalizations.count, 1, "the one reference was dropped, once")
        }
    }

    nonisolated func testNoneTransferAddsAReferenceAndDropsOnlyIt() {
        MainActor.assumeIsolated {
            let finalizations = Finalizations()
            let object = newObject()
            finalizations.watch(object)
            var reference: GObjectRef? = GObjectRef(object, transfer: .none)
            XCTAssertEqual(photopick_object_ref_count(object), 2)
            reference = nil
            XCTAssertEqual(photopick_object_ref_count(object), 1, "the caller's reference is left alone")
            XCTAssertEqual(finalizations.count, 0)
            _ = reference
            g_object_unref(object)
            XCTAssertEqual(finalizations.count, 1)
        }
    }

    nonisolated func testFloatingTransferSinksAFloatingReference() {
        MainActor.assumeIsolated {
            let finalizations = Finalizations()
            let object = UnsafeMutableRawPointer(g_object_new_with_properties(g_initially_unowned_get_type(), 0, nil, nil)!)
            finalizations.watch(object)
            XCTAssertNotEqual(g_object_is_floating(object), 0)
            var reference: GObjectRef? = GObjectRef(object, transfer: .floating)
            XCTAssertEqual(g_object_is_floating(object), 0, "sunk")
            XCTAssertEqual(photopick_object_ref_count(object), 1, "the floating reference became ours; none was added")
            reference = nil
            _ = reference
            XCTAssertEqual(finalizations.count, 1)
        }
    }

    /// A widget handed to a host stays valid while its owner holds it, whatever the host does.
    nonisolated func testAnOwnedPointerOutlivesItsHostAndGoesWithItsOwner() {
        MainActor.assumeIsolated {
            final class Owner {
                @Owned var button: UnsafeMutablePointer<GInitiallyUnowned>
                init(_ button: UnsafeMutablePointer<GInitiallyUnowned>) { _button = Owned(wrappedValue: button) }
            }
            let finalizations = Finalizations()
            let raw = g_object_new_with_properties(g_initially_unowned_get_type(), 0, nil, nil)!
            let object = UnsafeMutableRawPointer(raw)
            finalizations.watch(object)
            var owner: Owner? = Owner(raw.withMemoryRebound(to: GInitiallyUnowned.self, capacity: 1) { $0 })
            XCTAssertEqual(photopick_object_ref_count(object), 1, "the floating reference was sunk into the owner's")
            g_object_ref_sink(object)  // a host packs it
            XCTAssertEqual(photopick_object_ref_count(object), 2)
            g_object_unref(object)  // and drops it
            XCTAssertEqual(finalizations.count, 0, "still the owner's")
            XCTAssertEqual(UnsafeMutableRawPointer(owner!.button), object)
            owner = nil
            _ = owner
            XCTAssertEqual(finalizations.count, 1, "gone with its owner")
        }
    }

    nonisolated func testFloatingTransferOfAnObjectAlreadySunkAddsAReference() {
        MainActor.assumeIsolated {
            let finalizations = Finalizations()
            let object = UnsafeMutableRawPointer(g_object_new_with_properties(g_initially_unowned_get_type(), 0, nil, nil)!)
            finalizations.watch(object)
            g_object_ref_sink(object)  // someone else (a parent widget) owns it now
            var reference: GObjectRef? = GObjectRef(object, transfer: .floating)
            XCTAssertEqual(photopick_object_ref_count(object), 2)
            reference = nil
            _ = reference
            XCTAssertEqual(finalizations.count, 0)
            g_object_unref(object)
            XCTAssertEqual(finalizations.count, 1)
        }
    }

    nonisolated func testANilPointerMakesNoReference() {
        MainActor.assumeIsolated {
            XCTAssertNil(GObjectRef(nil as UnsafeMutableRawPointer?, transfer: .full))
        }
    }

    // MARK: Types

    nonisolated func testRegisteringATypeUsesTheCStructsSizes() {
        MainActor.assumeIsolated {
            let type = Self.probeType
            var query = GTypeQuery()
            g_type_query(type, &query)
            XCTAssertEqual(Int(query.instance_size), MemoryLayout<PhotopickAssetItemInstance>.size)
            XCTAssertEqual(Int(query.class_size), MemoryLayout<GObjectClass>.size)
            let object = UnsafeMutableRawPointer(g_object_new_with_properties(type, 0, nil, nil)!)
            defer { g_object_unref(object) }
            let fields = instance(object, of: type, as: PhotopickAssetItemInstance.self)
            XCTAssertNotNil(fields)
            fields?.pointee.asset_id = 42
            XCTAssertEqual(fields?.pointee.asset_id, 42)
            XCTAssertNil(instance(newObjectLeakChecked(), of: type, as: PhotopickAssetItemInstance.self), "another type's object is refused")
        }
    }

    /// A type registered once per process (GLib refuses a second registration of a name).
    private static let probeType = registerStaticType("PhotopickGObjectSupportProbe", parent: g_object_get_type(),
                                                      instance: PhotopickAssetItemInstance.self, class: GObjectClass.self)

    private var othersToRelease: [UnsafeMutableRawPointer] = []
    private func newObjectLeakChecked() -> UnsafeMutableRawPointer {
        let object = newObject()
        othersToRelease.append(object)
        return object
    }

    nonisolated override func tearDown() {
        MainActor.assumeIsolated {
            othersToRelease.forEach { g_object_unref($0) }
            othersToRelease = []
            super.tearDown()
        }
    }

    // MARK: The GTK thread

    nonisolated func testTheGTKThreadIsTheProcesssFirstThread() {
        MainActor.assumeIsolated {
            XCTAssertTrue(isOnGTKThread)
            assertOnGTKThread("a test method")  // returns: this is the GTK thread
            final class Result: @unchecked Sendable { var onGTKThread: Bool? }
            let result = Result()
            let done = DispatchSemaphore(value: 0)
            Thread {
                result.onGTKThread = isOnGTKThread
                done.signal()
            }.start()
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            XCTAssertEqual(result.onGTKThread, false)
        }
    }

    /// The assertion traps in debug builds: that ends the process, so a child process makes the call.
    nonisolated func testCallingOffTheGTKThreadTrapsInDebugBuilds() throws {
        try MainActor.assumeIsolated {
            let onThread = try probe("on-thread")
            XCTAssertEqual(onThread.status, 0)
            XCTAssertEqual(onThread.output, "passed\n")
            let offThread = try probe("off-thread")
            #if DEBUG
            XCTAssertEqual(offThread.reason, .uncaughtSignal, "trapped")
            XCTAssertTrue(offThread.error.contains("called off the GTK thread: probe off the GTK thread"), offThread.error)
            XCTAssertEqual(offThread.output, "")
            #else
            XCTAssertEqual(offThread.status, 0, "release builds do not check")
            XCTAssertEqual(offThread.output, "passed\n")
            #endif
        }
    }

    /// Runs the probe executable built beside the tests.
    private func probe(_ argument: String) throws -> (status: Int32, reason: Process.TerminationReason, output: String, error: String) {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let candidates = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent(), root.appendingPathComponent(".build/debug")]
        guard let path = candidates.map({ $0.appendingPathComponent("gobject-support-probe").path })
            .first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw XCTSkip("gobject-support-probe is not built (swift build --build-tests builds it)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        process.arguments = [argument]
        // A trap is expected: no backtrace (it would take seconds to symbolicate).
        process.environment = ProcessInfo.processInfo.environment.merging(["SWIFT_BACKTRACE": "enable=no"]) { $1 }
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // The probe writes a line or two: the pipes cannot fill before it ends.
        process.waitUntilExit()
        return (process.terminationStatus, process.terminationReason,
                String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self),
                String(decoding: error.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}
