/**
 * Bounded reading of zip archives (KMZ, zipped Shapefiles) with fflate.
 *
 * Two passes over the central directory: the first lists the entries (no inflating), refusing
 * archives with too many entries or with one name listed twice (names compared without case:
 * several listings of one entry would each be inflated); the second inflates only the selected
 * entries, counting the bytes each inflation may make as it goes. fflate inflates each entry into
 * a buffer of the size the archive declares and never grows it, so an entry that lies about its
 * size cannot make more bytes than declared: memory stays bounded by the counted total.
 */
import { unzipSync } from "fflate"
import { FileProblem } from "./types.ts"

export interface ZipEntry {
  readonly name: string
  readonly compressedSize: number
  readonly size: number
  readonly compression: number
}

const ZIP_MAGIC = [0x50, 0x4b] as const

/** Whether the bytes start like a zip archive (local file header or an empty archive). */
export const looksLikeZip = (bytes: Uint8Array): boolean =>
  bytes.length >= 4 && bytes[0] === ZIP_MAGIC[0] && bytes[1] === ZIP_MAGIC[1] &&
  ((bytes[2] === 0x03 && bytes[3] === 0x04) || (bytes[2] === 0x05 && bytes[3] === 0x06))

/**
 * The archive's entries, from its central directory; refuses more than `maxEntries`, and a name
 * listed more than once.
 */
export const listZip = (bytes: Uint8Array, maxEntries: number): ReadonlyArray<ZipEntry> => {
  const entries: Array<ZipEntry> = []
  const seen = new Set<string>()
  try {
    unzipSync(bytes, {
      filter: (f) => {
        if (entries.length >= maxEntries) throw new FileProblem(`the zip archive has more than ${maxEntries} entries`)
        const key = f.name.toLowerCase()
        if (seen.has(key)) throw new FileProblem(`the zip archive lists ${JSON.stringify(f.name)} more than once`)
        seen.add(key)
        entries.push({ name: f.name, compressedSize: f.size, size: f.originalSize, compression: f.compression })
        return false
      }
    })
  } catch (e) {
    if (e instanceof FileProblem) throw e
    throw new FileProblem(`not a readable zip archive (${e instanceof Error ? e.message : String(e)})`)
  }
  return entries
}

/**
 * Inflates the named entries, refusing when together they declare more than `maxBytes`; the
 * bytes handed to the inflater are counted again as it goes, whatever the listing said.
 */
export const readZipEntries = (
  bytes: Uint8Array,
  entries: ReadonlyArray<ZipEntry>,
  maxBytes: number
): Map<string, Uint8Array> => {
  let total = 0
  for (const e of entries) {
    if (e.compression !== 0 && e.compression !== 8) {
      throw new FileProblem(`zip entry ${JSON.stringify(e.name)} uses compression method ${e.compression}; only stored and deflated entries are supported`)
    }
    total += e.size
  }
  if (total > maxBytes) {
    throw new FileProblem(`the zip archive's entries inflate to ${total} bytes; at most ${maxBytes} are allowed`)
  }
  const wanted = new Set(entries.map((e) => e.name))
  const inflating = new Set<string>()
  let inflated = 0
  let files: Record<string, Uint8Array>
  try {
    files = unzipSync(bytes, {
      filter: (f) => {
        if (!wanted.has(f.name)) return false
        if (inflating.has(f.name)) throw new FileProblem(`the zip archive lists ${JSON.stringify(f.name)} more than once`)
        inflating.add(f.name)
        inflated += f.compression === 0 ? f.size : f.originalSize
        if (inflated > maxBytes) throw new FileProblem(`the zip archive's entries inflate to more than ${maxBytes} bytes`)
        return true
      }
    })
  } catch (e) {
    if (e instanceof FileProblem) throw e
    throw new FileProblem(`not a readable zip archive (${e instanceof Error ? e.message : String(e)})`)
  }
  const out = new Map<string, Uint8Array>()
  for (const name of wanted) {
    const data = files[name]
    if (data) out.set(name, data)
  }
  return out
}

/** Entry names without folders, lower-cased, for matching extensions. */
export const baseName = (name: string): string => name.slice(name.lastIndexOf("/") + 1)
export const isJunk = (name: string): boolean => name.startsWith("__MACOSX/") || baseName(name).startsWith("._") || name.endsWith("/")
