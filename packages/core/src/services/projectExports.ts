/**
 * A list export's rule: the filtered project list walked page by page, one storage call of
 * `EXPORT_PAGE_SIZE` projects each, within its caps (`MAX_EXPORT_PROJECTS` projects and a byte
 * cap); it stops before the project that would pass one, and finds the cursor that resumes the
 * list after the last project taken. The file's format is the caller's: it encodes each project
 * and says how many bytes that takes.
 */
import { Effect } from "effect"
import { BadRequest } from "../Errors.ts"
import type { Principal } from "../Principal.ts"
import * as Schemas from "../Schemas.ts"
import { Projects, type ProjectsError } from "./Projects.ts"

/** Most projects one list export holds. */
export const MAX_EXPORT_PROJECTS = 10_000

/**
 * Most bytes one streamed list export (GeoJSON, KML) writes (256 MiB): the export stops before the
 * project that would pass it and says so at the end of the file. `CANOPY_EXPORT_MAX_BYTES` (a
 * positive integer) overrides it, read at each export.
 */
export const MAX_EXPORT_BYTES = 256 * 1024 * 1024

/** The environment variable overriding `MAX_EXPORT_BYTES`. */
export const EXPORT_MAX_BYTES_ENV = "CANOPY_EXPORT_MAX_BYTES"

/**
 * Most bytes of the projects (their attributes and boundaries as JSON text) one zipped Shapefile
 * or GeoPackage list export is built from (64 MiB, or `CANOPY_EXPORT_MAX_BYTES` when smaller):
 * the file is built whole, so what it is made of is held until it is sent. The file is smaller
 * than its text (8 bytes per coordinate, then deflated for the Shapefile).
 */
export const MAX_BINARY_EXPORT_BYTES = 64 * 1024 * 1024

/** Projects a list export reads per storage call (the list's largest page). */
export const EXPORT_PAGE_SIZE = Schemas.limits.perPage

/** What one list export may hold. */
export interface ExportCaps {
  readonly maxProjects: number
  /** Bytes of the encoded projects (and of what the walk is told is reserved). */
  readonly maxBytes: number
}

/**
 * The caps of a list export: a streamed file's (`MAX_EXPORT_BYTES`) or a file built whole from
 * the projects' text (`MAX_BINARY_EXPORT_BYTES`). `override` is `CANOPY_EXPORT_MAX_BYTES`'s value:
 * a positive integer replaces the streamed cap and lowers the built one when smaller.
 */
export const exportCaps = (form: "streamed" | "built", override: string | undefined): ExportCaps => {
  const v = Number(override)
  const maxBytes = Number.isSafeInteger(v) && v > 0 ? v : MAX_EXPORT_BYTES
  return { maxProjects: MAX_EXPORT_PROJECTS, maxBytes: form === "built" ? Math.min(maxBytes, MAX_BINARY_EXPORT_BYTES) : maxBytes }
}

/**
 * Whether an export holds the whole list, and where to resume when it does not: written at the
 * end of the file, so a client learns it only once the file is complete.
 */
export interface ExportEnd {
  readonly truncated: boolean
  /** Pass as `cursor` (with the same filters and order) for the rest; null when complete. */
  readonly next_cursor: string | null
}

/** How a walk encodes and measures its projects. */
export interface WalkOptions<A> {
  readonly caps: ExportCaps
  /** Bytes of the file that are not projects (its head, room for its tail), counted against `caps.maxBytes`. */
  readonly reservedBytes?: number
  /** A project as the file holds it; `index` is how many the walk took before it. */
  readonly encode: (project: Schemas.Project, index: number) => A
  /** The bytes an encoded project takes of `caps.maxBytes`. */
  readonly size: (encoded: A) => number
  /** Told of each page of the list the walk reads (not of the reads that find the resume cursor). */
  readonly onPageRead?: () => void
}

/** A list export under way: its pages read as they are asked for. */
export interface ExportWalk<A> {
  /** Projects that matched the filters (the first page's `meta.total`), known before any is written. */
  readonly total: number
  /**
   * The next page's projects within the caps, each encoded as the iterable reaches it (read it
   * through before asking for the next page); undefined once the walk is over, at the list's end
   * or at a cap. The first page is the one read when the walk began.
   */
  readonly nextPage: Effect.Effect<Iterable<A> | undefined, ProjectsError>
  /** Once the walk is over: whole, or truncated with the cursor after the last project taken. */
  readonly end: Effect.Effect<ExportEnd, ProjectsError>
}

/** Where a walk stopped: the cursor of the page it stopped in, and how many of that page's projects it took. */
interface ExportStop {
  readonly from: string | undefined
  readonly taken: number
}

type ListPage = (after: string | undefined, perPage: number) => Effect.Effect<{
  readonly data: ReadonlyArray<Schemas.Project>
  readonly meta: { readonly total: number; readonly next_cursor: string | null }
}, ProjectsError>

/**
 * The cursor after the last project taken: the page's own when none of it was, else the list's
 * cursor after the first `taken` projects from the page's cursor (one more storage call; more
 * when a spatial filter answers pages shorter than asked).
 */
const cursorAfter = (stop: ExportStop, listPage: ListPage): Effect.Effect<string | null, ProjectsError> =>
  Effect.gen(function*() {
    let after = stop.from ?? null
    for (let need = stop.taken; need > 0;) {
      const part = yield* listPage(after ?? undefined, need)
      need -= part.data.length
      after = part.meta.next_cursor
      if (!after) break
    }
    return after
  })

/**
 * Begins a list export: `query` is the list's (filters, order, `cursor` to resume a truncated
 * export; `page` is refused, since a page number would skip rows yet end as a complete file). The
 * first page is read here, so its failures come before anything is written.
 */
export const walkExport = <A>(
  principal: Principal,
  query: Readonly<Record<string, string>>,
  options: WalkOptions<A>
): Effect.Effect<ExportWalk<A>, ProjectsError | BadRequest, Projects> =>
  Effect.gen(function*() {
    if (query.page !== undefined) {
      return yield* Effect.fail(new BadRequest({
        message: "Invalid query parameters",
        details: [{ field: "query.page", message: "is not accepted by the export: resume a truncated export with cursor=<next_cursor>" }]
      }))
    }
    const projects = yield* Projects
    const { cursor: start, ...filters } = query
    const listPage: ListPage = (after, perPage) =>
      projects.list(principal, { ...filters, per_page: String(perPage), ...(after !== undefined ? { cursor: after } : {}) })
    const { caps, encode, size, onPageRead } = options
    let page = yield* listPage(start, EXPORT_PAGE_SIZE)
    onPageRead?.()
    let from = start
    let begun = false
    let taken = 0
    let bytes = options.reservedBytes ?? 0
    let stop: ExportStop | undefined

    function* within(data: ReadonlyArray<Schemas.Project>, pageCursor: string | undefined): Generator<A> {
      for (let i = 0; i < data.length; i++) {
        if (taken >= caps.maxProjects) {
          stop = { from: pageCursor, taken: i }
          return
        }
        const encoded = encode(data[i]!, taken)
        const n = size(encoded)
        if (bytes + n > caps.maxBytes) {
          stop = { from: pageCursor, taken: i }
          return
        }
        bytes += n
        taken++
        yield encoded
      }
    }

    const nextPage: ExportWalk<A>["nextPage"] = Effect.suspend(() => {
      if (!begun) {
        begun = true
        return Effect.succeed(within(page.data, from))
      }
      // (a spatially filtered page may hold fewer projects than asked, even none, and still have a next one)
      const next = page.meta.next_cursor
      if (stop || !next) return Effect.succeed(undefined)
      if (taken >= caps.maxProjects) {
        stop = { from: next, taken: 0 }
        return Effect.succeed(undefined)
      }
      return Effect.map(listPage(next, EXPORT_PAGE_SIZE), (read) => {
        onPageRead?.()
        page = read
        from = next
        return within(read.data, next)
      })
    })

    const end: ExportWalk<A>["end"] = Effect.suspend(() =>
      stop
        ? Effect.map(cursorAfter(stop, listPage), (next_cursor): ExportEnd => ({ truncated: true, next_cursor }))
        : Effect.succeed<ExportEnd>({ truncated: false, next_cursor: null })
    )
    return { total: page.meta.total, nextPage, end }
  })
