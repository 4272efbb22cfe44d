/**
 * A GIS export worker thread: builds a zipped Shapefile or a GeoPackage from the projects it is
 * sent (each a UTF-8 JSON text of an `ExportRecord`), one file at a time, and answers the file's
 * bytes (transferred, not copied). The pool (exportOffload.ts) bounds its time and memory.
 */
import { parentPort } from "node:worker_threads"
import type { ExportEnd } from "./export.ts"
import { toGeoPackage } from "./geopackageWriter.ts"
import { type ExportRecord, toShapefileZip } from "./shapefileWriter.ts"

/** The formats built here. */
export type BinaryExportFormat = "shapefile" | "geopackage"

/** What the pool sends. */
export interface ExportJob {
  readonly id: number
  readonly format: BinaryExportFormat
  /** The file name's stem, for the Shapefile's entries. */
  readonly baseName: string
  /** One UTF-8 JSON text per project. */
  readonly records: ReadonlyArray<Uint8Array>
  /** A list export's end (its note); absent for one project. */
  readonly end?: ExportEnd | undefined
}

/** What the worker answers. */
export type ExportAnswer =
  | { readonly id: number; readonly ok: true; readonly bytes: Uint8Array }
  | { readonly id: number; readonly ok: false; readonly message: string }

const port = parentPort
if (!port) throw new Error("gis/exportWorker.ts runs as a worker thread")

const decoder = new TextDecoder()

const build = async (job: ExportJob): Promise<Uint8Array> => {
  const records = job.records.map((r) => JSON.parse(decoder.decode(r)) as ExportRecord)
  const end = job.end ? { end: job.end } : {}
  return job.format === "shapefile" ? toShapefileZip(records, { baseName: job.baseName, ...end }) : toGeoPackage(records, end)
}

port.on("message", (job: ExportJob) => {
  build(job).then(
    (built) => {
      // the file's own buffer is handed over; a view into a larger one is copied first
      const bytes = built.byteOffset === 0 && built.byteLength === built.buffer.byteLength ? built : built.slice()
      port.postMessage({ id: job.id, ok: true, bytes } satisfies ExportAnswer, [bytes.buffer as ArrayBuffer])
    },
    (e: unknown) => port.postMessage({ id: job.id, ok: false, message: e instanceof Error ? e.message : String(e) } satisfies ExportAnswer)
  )
})
