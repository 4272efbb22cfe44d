import { startApp } from "./app.ts"

const app = await startApp({ port: Number(process.env.PORT ?? 3000), db: process.env.CANOPY_DB ?? "embedded.db" })
console.log(`host app on ${app.url}; Canopy's API at ${app.url}/canopy/v1`)
