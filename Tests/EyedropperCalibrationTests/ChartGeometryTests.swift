import Eyedropper
import EyedropperCalibration
import Testing

private func point(_ x: Double, _ y: Double) -> SamplePoint { try! SamplePoint(x: x, y: y) }

@Suite struct ChartGeometryTests {
    @Test func anUprightChartHasEvenlySpacedCentres() throws {
        // Corner patch centres 100 px apart horizontally, 80 vertically, in a 1000 x 500 frame.
        let geometry = try ChartGeometry(
            corners: [point(0.1, 0.2), point(0.6, 0.2), point(0.6, 0.68), point(0.1, 0.68)], width: 1000, height: 500)
        for index in 0..<24 {
            let expectedX = 0.1 + 0.1 * Double(index % 6), expectedY = 0.2 + 0.16 * Double(index / 6)
            #expect(
                abs(geometry.centers[index].x - expectedX) < 1e-9 && abs(geometry.centers[index].y - expectedY) < 1e-9,
                "patch \(index + 1) at \(geometry.centers[index])")
        }
        #expect(abs(geometry.pitch - 80) < 1e-6)
        #expect(geometry.defaultRadius == 16)
    }

    /// A perspective map keeps straight lines straight, and the crossing of the quadrilateral's
    /// diagonals is the chart's centre: checked on a chart seen at a steep angle.
    @Test func aTiltedChartKeepsRowsColumnsAndDiagonalsStraight() throws {
        let corners = [point(0.2, 0.1), point(0.9, 0.25), point(0.8, 0.8), point(0.15, 0.6)]
        let geometry = try ChartGeometry(corners: corners, width: 640, height: 480)
        let c = geometry.centers.map { SIMD2($0.x * 640, $0.y * 480) }
        func collinear(_ indices: [Int]) -> Bool {
            let a = c[indices.first!], b = c[indices.last!]
            let direction = (b - a) / ((b - a) * (b - a)).sum().squareRoot()
            return indices.allSatisfy { i in
                let d = c[i] - a
                return abs(d.x * direction.y - d.y * direction.x) < 1e-6
            }
        }
        for row in 0..<4 { #expect(collinear(Array(row * 6..<row * 6 + 6)), "row \(row + 1)") }
        for column in 0..<6 { #expect(collinear([column, column + 6, column + 12, column + 18]), "column \(column + 1)") }
        #expect(collinear([0, 7, 14, 21]))
        // Uneven spacing: under perspective the far side's patches are closer together.
        let near = ((c[1] - c[0]) * (c[1] - c[0])).sum(), far = ((c[5] - c[4]) * (c[5] - c[4])).sum()
        #expect(abs(near - far) > 1)
        // The corners themselves come back as patches 1, 6, 24, 19.
        for (corner, patch) in zip(corners, [0, 5, 23, 18]) {
            #expect(abs(geometry.centers[patch].x - corner.x) < 1e-9 && abs(geometry.centers[patch].y - corner.y) < 1e-9)
        }
    }

    @Test func cornersOutOfOrderOrInALineAreRefused() {
        let good = [point(0.1, 0.1), point(0.9, 0.1), point(0.9, 0.9), point(0.1, 0.9)]
        #expect(throws: Never.self) { try ChartGeometry(corners: good, width: 100, height: 100) }
        #expect(throws: Never.self) { try ChartGeometry(corners: good.reversed(), width: 100, height: 100) }
        // Bluish green and black swapped: a bow tie.
        let swapped = [good[0], good[2], good[1], good[3]]
        #expect(throws: ChartGeometryError.notConvex) { try ChartGeometry(corners: swapped, width: 100, height: 100) }
        // A corner given twice.
        let twice = [good[0], good[1], good[1], good[3]]
        #expect(throws: ChartGeometryError.notConvex) { try ChartGeometry(corners: twice, width: 100, height: 100) }
        // A dent: the fourth corner pushed inside.
        let dented = [good[0], good[1], good[2], point(0.6, 0.5)]
        #expect(throws: ChartGeometryError.notConvex) { try ChartGeometry(corners: dented, width: 100, height: 100) }
        #expect(throws: ChartGeometryError.cornerCount(3)) { try ChartGeometry(corners: Array(good.prefix(3)), width: 100, height: 100) }
    }
}
