import { ConflictError, createCanopy } from "@canopy/core"
import { sqliteStorage } from "@canopy/adapter-sqlite"

const canopy = await createCanopy({ storage: sqliteStorage({ filename: process.argv[2] ?? "canopy.db" }) })

// An account, its owner and an admin API key (the key's value is shown only here).
const { account, api_key } = await canopy.bootstrap({ account_name: "Acme Forestry", email: "owner@acme.example" })
const principal = await canopy.authenticate(api_key.token)

const project = await canopy.projects.create(principal, {
  name: "Amazon Reforestation",
  geometry: {
    type: "Polygon",
    coordinates: [[[-62.2, -3.4], [-62.18, -3.4], [-62.18, -3.38], [-62.2, -3.38], [-62.2, -3.4]]]
  }
})
console.log(`${account.name}: ${project.slug} covers ${project.area_hectares} ha`)
// Boundaries come back as GeoJSON values, typed as such (the shell counter-clockwise, RFC 7946).
const shell = project.geometry?.type === "Polygon" ? project.geometry.coordinates[0] : undefined
console.log(`its shell: ${shell?.length} positions from ${shell?.[0]?.join(", ")}`)

try {
  await canopy.projects.create(principal, { name: "Amazon reforestation!" }) // same slug
} catch (error) {
  if (error instanceof ConflictError) console.log(`refused: ${error.code} (${error.message})`)
}

await canopy.close()
