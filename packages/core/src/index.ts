/**
 * @canopy/core: Canopy's pure domain. Each module is exported as a namespace.
 */
export * as FieldError from "./FieldError.ts"
export * as Geometry from "./Geometry.ts"
