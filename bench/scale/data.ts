/**
 * The scale benchmark's synthetic estate, fully deterministic: project `n` (0, 1, 2, …) always has
 * the same name, description and status, whichever size is being seeded.
 *
 * - names: `<Qualifier> <Tree> <Feature> <Kind> Lot <n>`, e.g. "Upper Cedar Creek Reforestation
 *   Lot 48213" (the lot number keeps every slug unique); exactly when `n % 100 === 37` the tree word
 *   is the made-up SEARCH_TERM, so it is in exactly 1% of the names of any multiple of 100 projects,
 *   and in no description;
 * - descriptions: present for about 40%, from a few sentence templates;
 * - statuses: about 85% active, 10% archived, 5% draft;
 * - boundaries (the base set only, replicas copy them): 96% small polygons of 4–20 vertices and
 *   ~2–400 ha, 4% traced boundaries of 100–1,000 vertices and ~200–20,000 ha, scattered over a few
 *   forest regions; every ring is star-shaped around its centre, so it is always simple.
 */

/** In exactly 1% of names (n % 100 === 37), in no description, and in no other word. */
export const SEARCH_TERM = "quillwort"

const QUALIFIERS = ["Upper", "Lower", "Northern", "Southern", "Eastern", "Western", "Old", "New", "Greater", "Little", "Misty", "Silver", "Green", "Red",
  "Black", "High"]
const TREES = ["Cedar", "Pine", "Oak", "Birch", "Spruce", "Aspen", "Maple", "Willow", "Alder", "Larch", "Fir", "Hemlock", "Mahogany", "Teak", "Ebony", "Kapok",
  "Mangrove", "Acacia", "Eucalyptus", "Redwood", "Sequoia", "Juniper", "Cypress", "Rowan"]
const FEATURES = ["Ridge", "Valley", "Creek", "River", "Hollow", "Basin", "Highlands", "Lowlands", "Plateau", "Delta", "Marsh", "Grove", "Woods", "Canyon",
  "Slope", "Terrace", "Glen", "Meadow", "Bluff", "Lake"]
const KINDS = ["Reforestation", "Restoration", "Conservation", "Agroforestry", "Carbon Project", "REDD+", "Afforestation", "Watershed Protection",
  "Buffer Zone", "Plantation", "Habitat Corridor", "Regeneration"]
const SENTENCES = [
  "Community-led restoration of degraded pasture in the {f} catchment.",
  "Baseline survey completed in {y}; permanent monitoring plots every 2 km.",
  "Native species planting with {t} as the dominant canopy species.",
  "Verified under a voluntary carbon standard since {y}.",
  "Fire breaks maintained along the northern boundary; patrols twice a month.",
  "Smallholder agroforestry with shade-grown coffee and cacao.",
  "Riparian buffer along the {f}; erosion control and bank stabilisation.",
  "Selective logging concession converted to protection in {y}."
]

/** A 32-bit integer hash of `n` (and a salt): the per-project randomness, independent of seeding order. */
const hash = (n: number, salt: number): number => {
  let h = Math.imul(n ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(salt + 1, 0xc2b2ae35)
  h ^= h >>> 16
  h = Math.imul(h, 0x7feb352d)
  h ^= h >>> 15
  h = Math.imul(h, 0x846ca68b)
  h ^= h >>> 16
  return h >>> 0
}
const pick = <A>(list: ReadonlyArray<A>, n: number, salt: number): A => list[hash(n, salt) % list.length]!
const unit = (n: number, salt: number): number => hash(n, salt) / 4294967296

/** The name of project `n`. */
export const projectName = (n: number): string =>
  `${pick(QUALIFIERS, n, 1)} ${n % 100 === 37 ? "Quillwort" : pick(TREES, n, 2)} ${pick(FEATURES, n, 3)} ${pick(KINDS, n, 4)} Lot ${n}`

/** The description of project `n`, or null (about 60%). */
export const projectDescription = (n: number): string | null => {
  if (unit(n, 5) >= 0.4) return null
  const first = pick(SENTENCES, n, 6)
  const text = unit(n, 7) < 0.5 ? first : `${first} ${pick(SENTENCES, n, 8)}`
  return text.replaceAll("{f}", pick(FEATURES, n, 9).toLowerCase()).replaceAll("{t}", pick(TREES, n, 10).toLowerCase())
    .replaceAll("{y}", String(2008 + (hash(n, 11) % 17)))
}

/** The status of project `n`: about 85% active, 10% archived, 5% draft. */
export const projectStatus = (n: number): "active" | "archived" | "draft" => {
  const u = unit(n, 12)
  return u < 0.85 ? "active" : u < 0.95 ? "archived" : "draft"
}

type Position = [number, number]
export interface Polygon {
  readonly type: "Polygon"
  readonly coordinates: Array<Array<Position>>
}

/** Forest regions, `[minLon, minLat, maxLon, maxLat]`. */
const REGIONS: ReadonlyArray<readonly [number, number, number, number]> = [
  [-70, -12, -50, 0], // Amazon
  [12, -4, 28, 4], // Congo basin
  [110, -3, 118, 4], // Borneo
  [-120, 48, -70, 58], // boreal Canada
  [10, 58, 30, 66], // Scandinavia
  [-124, 42, -120, 49] // Pacific Northwest
]

const round6 = (x: number) => Math.round(x * 1e6) / 1e6

/**
 * A counter-clockwise star-shaped ring of `vertices` positions around (lon, lat) with mean radius
 * about `radiusM` metres: angles strictly increasing, radii varying (random, or smooth harmonics
 * for a traced boundary), so the ring is simple.
 */
const ring = (lon: number, lat: number, radiusM: number, vertices: number, smooth: boolean, n: number): Array<Position> => {
  const out: Array<Position> = []
  const mPerDegLat = 110_574
  const mPerDegLon = 111_320 * Math.cos((lat * Math.PI) / 180)
  const phase = unit(n, 20) * 2 * Math.PI
  for (let i = 0; i < vertices; i++) {
    const jitter = smooth ? 0 : (unit(n * 1_000 + i, 21) - 0.5) * 0.6
    const theta = (2 * Math.PI * (i + jitter)) / vertices
    const w = smooth
      ? 1 + 0.12 * Math.sin(3 * theta + phase) + 0.07 * Math.sin(7 * theta + 2 * phase) + 0.03 * Math.sin(19 * theta)
      : 0.75 + 0.25 * unit(n * 1_000 + i, 22)
    const r = radiusM * w
    out.push([round6(lon + (r * Math.cos(theta)) / mPerDegLon), round6(lat + (r * Math.sin(theta)) / mPerDegLat)])
  }
  out.push([out[0]![0], out[0]![1]])
  return out
}

/** The boundary of base project `n`. */
export const projectGeometry = (n: number): Polygon => {
  const [x0, y0, x1, y1] = pick(REGIONS, n, 13)
  const lon = x0 + (x1 - x0) * unit(n, 14)
  const lat = y0 + (y1 - y0) * unit(n, 15)
  const large = unit(n, 16) < 0.04
  // Log-uniform areas; the radius of a circle of that area (the polygon's is a little smaller).
  const [minHa, maxHa] = large ? [200, 20_000] : [2, 400]
  const hectares = minHa * Math.pow(maxHa / minHa, unit(n, 17))
  const radiusM = Math.sqrt((hectares * 10_000) / Math.PI)
  const vertices = large ? 100 + (hash(n, 18) % 901) : 4 + (hash(n, 18) % 17)
  return { type: "Polygon", coordinates: [ring(lon, lat, radiusM, vertices, large, n)] }
}

/** A smooth 1,000-vertex polygon of about 500 ha (what the write benchmark posts). */
export const thousandVertexPolygon = (i: number): Polygon => ({
  type: "Polygon",
  coordinates: [ring(-60 + (i % 1000) * 0.01, -3 - Math.floor(i / 1000) * 0.01, 1_260, 1_000, true, i)]
})

/**
 * The hostile "star": centre (10, 10), `positions` positions in all (the closing one included),
 * radii alternating 1 and 0.001 degrees — valid, but every edge's box overlaps every other's.
 */
export const star = (positions: number): Polygon => {
  const vertices = positions - 1
  const out: Array<Position> = []
  for (let i = 0; i < vertices; i++) {
    const theta = (2 * Math.PI * i) / vertices
    const r = i % 2 === 0 ? 1 : 0.001
    out.push([Number((10 + r * Math.cos(theta)).toFixed(10)), Number((10 + r * Math.sin(theta)).toFixed(10))])
  }
  out.push([out[0]![0], out[0]![1]])
  return { type: "Polygon", coordinates: [out] }
}
