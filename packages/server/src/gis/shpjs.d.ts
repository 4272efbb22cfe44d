// shpjs 6 ships no type declarations: the part of its API Canopy uses.
declare module "shpjs" {
  interface ShapefileParts {
    readonly shp: ArrayBuffer | ArrayBufferView
    readonly dbf?: ArrayBuffer | ArrayBufferView
    readonly prj?: string
    readonly cpg?: string
  }
  interface ShapefileCollection {
    readonly type: "FeatureCollection"
    readonly features: ReadonlyArray<{ readonly type: "Feature"; readonly geometry: unknown; readonly properties: Record<string, unknown> | null }>
  }
  /** With an object of the files' bytes (never a URL: Canopy must not reach the network). */
  function getShapefile(parts: ShapefileParts): Promise<ShapefileCollection>
  export default getShapefile
}
