// SPDX-License-Identifier: GPL-3.0-or-later
import Camera
import CGdkPixbuf
import CGLib
import XCTest

/// Camera formats to RGB: packed YUV with known values, JPEG frames made here, plain RGB.
final class FrameConversionTests: XCTestCase {
    private typealias RGB = (red: UInt8, green: UInt8, blue: UInt8)

    private func assertClose(_ actual: RGB, _ expected: RGB, tolerance: Int = 12, _ message: String, line: UInt = #line) {
        let close = abs(Int(actual.red) - Int(expected.red)) <= tolerance && abs(Int(actual.green) - Int(expected.green)) <= tolerance
            && abs(Int(actual.blue) - Int(expected.blue)) <= tolerance
        XCTAssertTrue(close, "\(message): got \(actual), expected about \(expected)", line: line)
    }

    private func format(_ fourcc: FourCC, _ width: Int, _ height: Int, bytesPerLine: Int, size: Int) -> StreamFormat {
        StreamFormat(format: fourcc, width: width, height: height, bytesPerLine: bytesPerLine, imageSize: size,
                     frameRate: FrameRate(frames: 30, seconds: 1))
    }

    /// BT.601 studio-swing colours, as webcams send them: each pair of pixels shares U and V.
    func testYUYVGivesTheColoursItEncodes() throws {
        // (Y, U, V) and the colour it stands for: white, black, red, green, blue, grey.
        let vectors: [(y: UInt8, u: UInt8, v: UInt8, rgb: RGB)] = [
            (235, 128, 128, (255, 255, 255)), (16, 128, 128, (0, 0, 0)),
            (81, 90, 240, (255, 0, 0)), (145, 54, 34, (0, 255, 0)), (41, 240, 110, (0, 0, 255)),
            (126, 128, 128, (128, 128, 128)),
        ]
        let width = vectors.count * 2, height = 2
        var bytes: [UInt8] = []
        for _ in 0..<height {
            for vector in vectors { bytes += [vector.y, vector.u, vector.y, vector.v] }
        }
        let converter = try FrameConverter(format: format(.yuyv, width, height, bytesPerLine: width * 2, size: bytes.count))
        let frame = try XCTUnwrap(bytes.withUnsafeBytes { converter.convert($0) })
        XCTAssertEqual(frame.width, width)
        for (index, vector) in vectors.enumerated() {
            for x in [index * 2, index * 2 + 1] {
                // libv4lconvert keeps studio swing's ends a little inside 0...255.
                assertClose(frame.pixels.pixel(x: x, y: 1), vector.rgb, tolerance: 24, "YUV \(vector.y),\(vector.u),\(vector.v) at x \(x)")
            }
        }
    }

    func testRGBFramesPassThroughUnchanged() throws {
        let bytes: [UInt8] = (0..<(5 * 3 * 3)).map { UInt8($0 * 5) }
        let converter = try FrameConverter(format: format(.rgb24, 5, 3, bytesPerLine: 15, size: bytes.count))
        let frame = try XCTUnwrap(bytes.withUnsafeBytes { converter.convert($0) })
        XCTAssertEqual(Array(UnsafeBufferPointer(start: frame.pixels.bytes, count: frame.pixels.count)), bytes)
    }

    /// A JPEG made here, with four coloured quadrants, decoded as an MJPEG frame.
    func testMJPEGFramesDecodeToTheirPicture() throws {
        let jpeg = try quadrantsJPEG(width: 64, height: 48)
        let converter = try FrameConverter(format: format(.mjpeg, 64, 48, bytesPerLine: 0, size: jpeg.count))
        let frame = try XCTUnwrap(jpeg.withUnsafeBytes { converter.convert($0) }, converter.lastError)
        assertClose(frame.pixels.pixel(x: 8, y: 8), (255, 0, 0), "top left red")
        assertClose(frame.pixels.pixel(x: 56, y: 8), (255, 255, 0), "top right yellow")
        assertClose(frame.pixels.pixel(x: 8, y: 40), (0, 0, 255), "bottom left blue")
        assertClose(frame.pixels.pixel(x: 56, y: 40), (0, 255, 0), "bottom right green")
    }

    func testADamagedMJPEGFrameIsSkippedNotShown() throws {
        let jpeg = try quadrantsJPEG(width: 64, height: 48)
        let cut = Array(jpeg.prefix(40))
        let converter = try FrameConverter(format: format(.mjpeg, 64, 48, bytesPerLine: 0, size: jpeg.count))
        XCTAssertNil(cut.withUnsafeBytes { converter.convert($0) })
        // And the converter still works for the next, good frame.
        XCTAssertNotNil(jpeg.withUnsafeBytes { converter.convert($0) })
    }

    /// Red, yellow / blue, green quadrants, saved by GdkPixbuf's JPEG saver at quality 95.
    private func quadrantsJPEG(width: Int, height: Int) throws -> [UInt8] {
        let pixels = PixelBuffer(width: width, height: height)
        for y in 0..<height {
            for x in 0..<width {
                let colour: RGB = y < height / 2 ? (x < width / 2 ? (255, 0, 0) : (255, 255, 0)) : (x < width / 2 ? (0, 0, 255) : (0, 255, 0))
                let offset = y * pixels.stride + x * 3
                pixels.bytes[offset] = colour.red
                pixels.bytes[offset + 1] = colour.green
                pixels.bytes[offset + 2] = colour.blue
            }
        }
        return try CaptureWriter(make: "Test", model: "Test").encode(Frame(pixels: pixels, sequence: 0))
    }
}

/// The preview's picture is mirrored, in place, on the worker.
final class MirrorTests: XCTestCase {
    func testMirroringSwapsLeftAndRightAndKeepsRows() {
        let pixels = PixelBuffer(width: 3, height: 2)
        // Row 0: red, green, blue; row 1: white, black, grey.
        let rows: [[(UInt8, UInt8, UInt8)]] = [[(255, 0, 0), (0, 255, 0), (0, 0, 255)], [(255, 255, 255), (0, 0, 0), (128, 128, 128)]]
        for (y, row) in rows.enumerated() {
            for (x, colour) in row.enumerated() {
                let offset = y * pixels.stride + x * 3
                pixels.bytes[offset] = colour.0; pixels.bytes[offset + 1] = colour.1; pixels.bytes[offset + 2] = colour.2
            }
        }
        let copy = pixels.copy()
        pixels.mirrorHorizontally()
        for (y, row) in rows.enumerated() {
            for (x, colour) in row.enumerated() {
                XCTAssertTrue(pixels.pixel(x: 2 - x, y: y) == colour, "(\(x), \(y)) moved to (\(2 - x), \(y))")
                XCTAssertTrue(copy.pixel(x: x, y: y) == colour, "a copy is untouched")
            }
        }
    }

    func testASmallViewGetsAShrunkCopyAndTheFrameStaysWhole() {
        let pixels = PixelBuffer(width: 8, height: 4)
        for y in 0..<4 {
            for x in 0..<8 {
                let offset = y * pixels.stride + x * 3
                // Left half dark, right half light; within each 2x2 block the mean is 100 or 200.
                let base: UInt8 = x < 4 ? 100 : 200
                let wobble: UInt8 = (x + y) % 2 == 0 ? 10 : 0
                pixels.bytes[offset] = base &+ wobble &- 5; pixels.bytes[offset + 1] = base &+ wobble &- 5; pixels.bytes[offset + 2] = base &+ wobble &- 5
            }
        }
        let frame = Frame(pixels: pixels, sequence: 1).withSmall(covering: 3, 2)
        let small = try! XCTUnwrap(frame.small)
        XCTAssertEqual(small.width, 4, "a factor of 2: 8x4 to 4x2 still covers 3x2")
        XCTAssertEqual(small.height, 2)
        XCTAssertTrue(small.pixel(x: 0, y: 0) == (100, 100, 100))
        XCTAssertTrue(small.pixel(x: 3, y: 1) == (200, 200, 200))
        XCTAssertEqual(frame.pixels.width, 8, "the whole frame is kept (captures, the large view)")
        XCTAssertNil(Frame(pixels: pixels, sequence: 1).withSmall(covering: 5, 3).small, "no whole factor of 2 fits: none")
    }
}
