/**
 * A file read feature by feature, for a bulk import (docs/gis.md, "Bulk imports"): each feature's
 * polygons assembled and validated on their own (`assemble`, the core validator), its name and
 * description taken from the attributes the caller names. Runs in an import worker, like
 * `importBoundary`; never throws.
 */
import { Geometry } from "@canopy/core"
import { assemble } from "./assemble.ts"
import { readFile } from "./index.ts"
import { DEFAULT_LIMITS, FileProblem, type GisFormat, type ImportFailure, type ImportHint, type ImportLimits, type ImportOptions, type ImportProblem,
  type SourceFeature } from "./types.ts"

/** Which attributes name a feature's project and describe it. */
export interface FeatureFields {
  readonly nameField?: string | undefined
  readonly descriptionField?: string | undefined
}

/** One feature: its name and description when found, and its boundary or its problems. */
export interface FeatureRead {
  readonly label: string
  readonly name?: string | undefined
  readonly description?: string | undefined
  readonly geometry?: Geometry.Boundary | undefined
  readonly areaHectares?: number | undefined
  readonly problems: ReadonlyArray<ImportProblem>
}

export interface FeaturesSuccess {
  readonly ok: true
  readonly format: GisFormat
  readonly sourceCrs: string
  readonly warnings: ReadonlyArray<string>
  readonly features: ReadonlyArray<FeatureRead>
  /** The named fields no feature of the file has. */
  readonly missingFields: ReadonlyArray<string>
}

export type FeaturesResult = FeaturesSuccess | ImportFailure

/** Longest name or description kept from an attribute (the validator refuses what is longer anyway). */
const MAX_TEXT = 5_001

/** An attribute as text: strings and numbers, trimmed; anything else is absent. */
const text = (value: unknown): string | undefined => {
  const s = typeof value === "string" ? value.trim() : typeof value === "number" && Number.isFinite(value) ? String(value) : undefined
  return s === undefined || s === "" ? undefined : s.slice(0, MAX_TEXT)
}

/** The attribute `field` of a feature, matched exactly, else case-insensitively. */
const attribute = (properties: Readonly<Record<string, unknown>> | undefined, field: string): { found: boolean; value?: string | undefined } => {
  if (!properties) return { found: false }
  if (field in properties) return { found: true, value: text(properties[field]) }
  const lower = field.toLowerCase()
  const key = Object.keys(properties).find((k) => k.toLowerCase() === lower)
  return key === undefined ? { found: false } : { found: true, value: text(properties[key]) }
}

/** One feature alone through the assembler: its boundary, or its problems naming it. */
const featureOf = (f: SourceFeature, fields: FeatureFields, sourceCrs: string): FeatureRead => {
  const name = fields.nameField !== undefined ? attribute(f.properties, fields.nameField).value : undefined
  const description = fields.descriptionField !== undefined ? attribute(f.properties, fields.descriptionField).value : undefined
  const own = name ?? text(f.properties?.name ?? f.properties?.NAME ?? f.properties?.Name)
  const assembled = assemble({ features: [f], sourceCrs, warnings: [] })
  const base = { label: f.label, name: own, description }
  if (!assembled.ok) {
    return { ...base, problems: assembled.problems.map((p) => p.source ? p : { ...p, message: `${f.label}: ${p.message}`, source: f.label }) }
  }
  return { ...base, geometry: assembled.geometry, areaHectares: Geometry.areaHectares(assembled.geometry), problems: [] }
}

/** Reads a file's features one by one. Every failure of the file as a whole is an `{ ok: false, problems }` answer. */
export const importFeatures = async (
  bytes: Uint8Array,
  hint: ImportHint = {},
  options: ImportOptions & { readonly fields?: FeatureFields } = {}
): Promise<FeaturesResult> => {
  const limits: ImportLimits = { ...DEFAULT_LIMITS, ...options.limits }
  const fields = options.fields ?? {}
  return readFile(bytes, hint, limits, (format, result): FeaturesResult => {
    if (result.features.length === 0) throw new FileProblem("the file holds no feature")
    const features = result.features.map((f) => featureOf(f, fields, result.sourceCrs))
    const missingFields = [fields.nameField, fields.descriptionField].filter((field): field is string =>
      field !== undefined && !result.features.some((f) => attribute(f.properties, field).found)
    )
    return { ok: true, format, sourceCrs: result.sourceCrs, warnings: result.warnings, features, missingFields }
  })
}
