/**
 * The zoom grid of the map: the XYZ tiles' Web Mercator grid, with each project placed by its box's
 * centre. A project's cell at the finest level (`FINEST`) is stored with it as a Morton key (the
 * column and row bits interleaved), so that its cell at any coarser level is that key shifted right,
 * and the cells of a tile at a level form one range of keys. The stores keep, per account, the
 * projects and hectares of every non-empty cell at each of `LEVELS` (the tiles' clusters).
 */

/** The finest level: 2^21 cells across the world (about 19 m at the equator). */
export const FINEST = 21

/** The levels whose cells the stores count: every other one, so a tile's cells are 16 × 16 to 32 × 32. */
export const LEVELS = [5, 7, 9, 11, 13, 15, 17, 19] as const

/** Most levels between a tile's zoom and its cells' level: a tile holds at most 32 × 32 cells. */
export const CELLS_BELOW = 5

/** Web Mercator's latitude limit, where the square world ends. */
const MAX_LAT = 85.0511287798066

/** Interleaves `x` (even bits) and `y` (odd bits), each below 2^21, into a key below 2^42 (exact in a double). */
export const interleave = (x: number, y: number): number => {
  let key = 0
  for (let bit = 0, weight = 1; bit < FINEST; bit++, weight *= 4) {
    const p = 2 ** bit
    if (Math.floor(x / p) % 2 === 1) key += weight
    if (Math.floor(y / p) % 2 === 1) key += 2 * weight
  }
  return key
}

/** The column and row of a Morton key (the inverse of `interleave`). */
export const deinterleave = (key: number): readonly [number, number] => {
  let x = 0
  let y = 0
  for (let bit = 0, rest = key; rest > 0; bit++, rest = Math.floor(rest / 4)) {
    const pair = rest % 4
    if (pair % 2 === 1) x += 2 ** bit
    if (pair >= 2) y += 2 ** bit
  }
  return [x, y]
}

/** The finest cell's Morton key of a box's centre (`[west, south, east, north]` in degrees). */
export const cellOf = (bbox: readonly [number, number, number, number]): number => {
  const size = 2 ** FINEST
  const lon = (bbox[0] + bbox[2]) / 2
  const lat = Math.max(-MAX_LAT, Math.min(MAX_LAT, (bbox[1] + bbox[3]) / 2))
  const r = (lat * Math.PI) / 180
  const clamp = (v: number) => Math.max(0, Math.min(size - 1, Math.floor(v)))
  const x = clamp(((lon + 180) / 360) * size)
  const y = clamp(((1 - Math.log(Math.tan(r) + 1 / Math.cos(r)) / Math.PI) / 2) * size)
  return interleave(x, y)
}

/** The level whose cells cluster a tile of zoom `z`: the finest counted level at most `CELLS_BELOW` below it. */
export const levelFor = (z: number): number => LEVELS.reduce((best, l) => (l <= z + CELLS_BELOW ? l : best), LEVELS[0])

/** The keys (`lo` to `hi`, both included) of the cells at `level` within tile z/x/y, or of the one cell holding it. */
export const cellRange = (z: number, x: number, y: number, level: number): { readonly lo: number; readonly hi: number } => {
  if (level <= z) {
    const shift = 2 ** (z - level)
    const key = interleave(Math.floor(x / shift), Math.floor(y / shift))
    return { lo: key, hi: key }
  }
  const span = 4 ** (level - z)
  const lo = interleave(x, y) * span
  return { lo, hi: lo + span - 1 }
}

/**
 * Where the centre of cell `key` at `level` lies in tile z/x/y (a coarser zoom), in tile units
 * of `extent` from its north-west corner.
 */
export const cellInTile = (level: number, key: number, tile: { readonly z: number; readonly x: number; readonly y: number },
  extent: number): readonly [number, number] => {
  const [cx, cy] = deinterleave(key)
  const across = 2 ** (level - tile.z)
  return [Math.round(((cx + 0.5) / across - tile.x) * extent), Math.round(((cy + 0.5) / across - tile.y) * extent)]
}
