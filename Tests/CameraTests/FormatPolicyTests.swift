// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import XCTest

/// Which format and size a camera is asked for.
final class FormatPolicyTests: XCTestCase {
    private func rate(_ frames: Int, _ seconds: Int = 1) -> FrameRate { FrameRate(frames: frames, seconds: seconds) }

    /// vivid's webcam input, as with-vivid's header lists it (the same sizes for every format).
    private var vivid: [PixelFormatOffer] {
        let sizes = [SizeOffer(width: 320, height: 180, frameRates: [rate(60), rate(30)]),
                     SizeOffer(width: 640, height: 360, frameRates: [rate(40), rate(20)]),
                     SizeOffer(width: 640, height: 480, frameRates: [rate(25)]),
                     SizeOffer(width: 1280, height: 720, frameRates: [rate(25, 2)]),
                     SizeOffer(width: 1920, height: 1080, frameRates: [rate(5)])]
        return [PixelFormatOffer(format: .yuyv, name: "YUYV 4:2:2", sizes: sizes),
                PixelFormatOffer(format: .rgb24, name: "24-bit RGB", sizes: sizes),
                PixelFormatOffer(format: FourCC("HSV4"), name: "HSV", sizes: sizes)]
    }

    func testAPreviewGetsTheSmallestSizeThatCoversTheCellAtItsTopRate() {
        XCTAssertEqual(FormatPolicy.preview(from: vivid, covering: 200, 180),
                       FormatChoice(format: .yuyv, width: 320, height: 180, frameRate: rate(60)))
        XCTAssertEqual(FormatPolicy.preview(from: vivid, covering: 256, 256),
                       FormatChoice(format: .yuyv, width: 640, height: 360, frameRate: rate(40)))
        XCTAssertEqual(FormatPolicy.preview(from: vivid, covering: 900, 700),
                       FormatChoice(format: .yuyv, width: 1280, height: 720, frameRate: rate(25, 2)))
    }

    func testAViewLargerThanEverySizeGetsTheLargest() {
        XCTAssertEqual(FormatPolicy.preview(from: vivid, covering: 4000, 3000),
                       FormatChoice(format: .yuyv, width: 1920, height: 1080, frameRate: rate(5)))
        XCTAssertEqual(FormatPolicy.still(from: vivid),
                       FormatChoice(format: .yuyv, width: 1920, height: 1080, frameRate: rate(5)))
    }

    /// A typical UVC webcam: YUYV is slow at large sizes (USB bandwidth), MJPEG is not.
    func testMJPEGWinsWhereItIsFaster() {
        let uvc = [PixelFormatOffer(format: .yuyv, name: "YUYV", sizes: [
                       SizeOffer(width: 640, height: 480, frameRates: [rate(30)]),
                       SizeOffer(width: 1280, height: 720, frameRates: [rate(10)])]),
                   PixelFormatOffer(format: .mjpeg, name: "Motion-JPEG", sizes: [
                       SizeOffer(width: 640, height: 480, frameRates: [rate(30)]),
                       SizeOffer(width: 1280, height: 720, frameRates: [rate(30)])])]
        XCTAssertEqual(FormatPolicy.preview(from: uvc, covering: 300, 300)?.format, .yuyv, "same rate: the cheaper format")
        XCTAssertEqual(FormatPolicy.preview(from: uvc, covering: 900, 600),
                       FormatChoice(format: .mjpeg, width: 1280, height: 720, frameRate: rate(30)))
    }

    func testACameraWithNothingConvertibleHasNoChoice() {
        let odd = [PixelFormatOffer(format: FourCC("HSV4"), name: "HSV", sizes: [SizeOffer(width: 640, height: 480, frameRates: [rate(30)])])]
        XCTAssertNil(FormatPolicy.preview(from: odd, covering: 100, 100))
        XCTAssertNil(FormatPolicy.still(from: odd))
        XCTAssertNil(FormatPolicy.preview(from: [], covering: 100, 100))
    }

    func testRatesCompareAsFractions() {
        XCTAssertEqual(rate(50, 2), rate(25))
        XCTAssertLessThan(rate(25, 2), rate(25))
        XCTAssertEqual(rate(25, 2).description, "12.5 fps")
        XCTAssertEqual(FourCC("YUYV"), .yuyv)
        XCTAssertEqual(FourCC.mjpeg.description, "MJPG")
    }
}
