/** Test boundaries: GeoJSON squares placed by their south-west corner. */

/** A GeoJSON Polygon with one ring. */
export type Polygon = { readonly type: "Polygon"; readonly coordinates: Array<Array<[number, number]>> }

/** A lon/lat square `side` degrees wide (a quadrilateral with geodesic edges) with its south-west corner at (lon, lat). */
export const squareAt = (lon: number, lat: number, side: number): Polygon => ({
  type: "Polygon",
  coordinates: [[[lon, lat], [lon + side, lat], [lon + side, lat + side], [lon, lat + side], [lon, lat]]]
})

/** A square boundary of about `ha` hectares with its south-west corner at (lon, lat). */
export const squareOfHectares = (lon: number, lat: number, ha: number): Polygon => {
  const side = Math.sqrt(ha * 10_000)
  const dLon = side / (111_320 * Math.cos((lat * Math.PI) / 180))
  const dLat = side / 110_574
  return { type: "Polygon", coordinates: [[[lon, lat], [lon + dLon, lat], [lon + dLon, lat + dLat], [lon, lat + dLat], [lon, lat]]] }
}

/** A square on the equator at a longitude, `side` degrees wide (about 1.2 ha with the default side). */
export const square = (lon = 10, side = 0.001): Polygon => squareAt(lon, 0, side)
