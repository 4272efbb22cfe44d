/**
 * Quickstart: create a project with a polygon, list projects page by page, handle an error,
 * then archive and delete the project.
 *
 *   CANOPY_BASE_URL=http://127.0.0.1:8080 CANOPY_API_KEY=cnp_key_… node examples/quickstart.ts
 */
import { Canopy, NotFoundError, ValidationError } from "@canopy/client"

const canopy = new Canopy({
  baseUrl: process.env.CANOPY_BASE_URL ?? "http://127.0.0.1:8080",
  apiKey: process.env.CANOPY_API_KEY,
  maxRetries: 3
})

// Create a project with a polygon ([longitude, latitude]; a closed ring of at least 4 positions).
const project = await canopy.projects.create({
  name: "North block",
  description: "Spruce, replanted 2019",
  geometry: {
    type: "Polygon",
    coordinates: [[[10.0, 59.0], [10.01, 59.0], [10.01, 59.01], [10.0, 59.01], [10.0, 59.0]]]
  }
})
console.log(`created ${project.id}: ${project.area_hectares} ha`)

// Every active project, page after page (the client follows meta.next_cursor).
let count = 0
for await (const p of canopy.projects.listAll({ status: "active", per_page: 50 })) {
  count++
  if (count <= 3) console.log(`- ${p.name} (${p.id})`)
}
console.log(`listed ${count} active projects`)

// Errors are typed: a polygon with too few positions is a ValidationError with details.
try {
  await canopy.projects.create({ name: "Bad", geometry: { type: "Polygon", coordinates: [[[0, 0], [1, 0], [0, 0]]] } })
} catch (e) {
  if (e instanceof ValidationError) {
    for (const d of e.details) console.log(`invalid ${d.field}: ${d.message} (${e.requestId})`)
  } else throw e
}

await canopy.projects.archive(project.id)
await canopy.projects.delete(project.id)
try {
  await canopy.projects.get(project.id)
} catch (e) {
  if (e instanceof NotFoundError) console.log(`deleted ${project.id} (${e.code})`)
  else throw e
}
